"""A persistent store: a directory holding a program, its facts and their materialisation, updated atomically.

Layout::

    STORE/CURRENT                 the name of the current snapshot (replaced atomically)
    STORE/snap-000007/manifest.json   format version, generation, arities, update history
    STORE/snap-000007/program.dl      the program
    STORE/snap-000007/*.npz, *.arrow  the backend state (storage/persist.py)

Every update writes a complete new snapshot next to the current one and then replaces
``CURRENT`` with ``os.replace``; a crash at any point leaves the previous snapshot current
and readable. Old snapshots are removed once the new one is current.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from deltalog.errors import InputError

FORMAT_VERSION = 1
CURRENT = "CURRENT"


def current_snapshot(store: Path) -> Path:
    pointer = store / CURRENT
    if not pointer.is_file():
        raise InputError(f"{store} is not a deltalog store (no {CURRENT} file); create one with 'deltalog init'")
    return store / pointer.read_text().strip()


def read_manifest(store: Path) -> dict:
    manifest = json.loads((current_snapshot(store) / "manifest.json").read_text())
    if manifest.get("format") != FORMAT_VERSION:
        raise InputError(f"{store}: unsupported store format {manifest.get('format')!r} (expected {FORMAT_VERSION})")
    return manifest


def open_store(store: str | os.PathLike):
    """The Reasoner saved in a store, ready for queries and updates."""
    from deltalog.api import Reasoner
    from deltalog.backends.local.backend import LocalBackend
    store = Path(store)
    manifest, snapshot = read_manifest(store), current_snapshot(store)
    backend = LocalBackend.from_state(snapshot)
    reasoner = Reasoner(snapshot / "program.dl", backend=backend, restore=manifest)
    reasoner.store_history = manifest.get("history", [])
    return reasoner


def save_store(reasoner, store: str | os.PathLike, program_text: str, event: dict) -> Path:
    """Write the reasoner's state as the store's new current snapshot."""
    store = Path(store)
    store.mkdir(parents=True, exist_ok=True)
    number = _next_number(store)
    staging = store / f".snap-{number:06d}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    reasoner.backend.save_state(directory=staging)
    (staging / "program.dl").write_text(program_text)
    history = list(getattr(reasoner, "store_history", [])) + [dict(event, time=time.time())]
    manifest = {"format": FORMAT_VERSION, "generation": reasoner.reasoning.generation,
                "arities": reasoner.predicates(), "history": history}
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    final = store / f"snap-{number:06d}"
    os.replace(staging, final)
    _point_to(store, final.name)
    reasoner.store_history = history
    _remove_old_snapshots(store, keep=final.name)
    return final


def _next_number(store: Path) -> int:
    numbers = [int(p.name.split("-")[1]) for p in store.glob("snap-*") if p.name.split("-")[1].isdigit()]
    return max(numbers, default=0) + 1


def _point_to(store: Path, name: str) -> None:
    pointer = store / (CURRENT + ".tmp")
    with open(pointer, "w") as f:
        f.write(name + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(pointer, store / CURRENT)


def _remove_old_snapshots(store: Path, keep: str) -> None:
    for old in store.glob("snap-*"):
        if old.name != keep:
            shutil.rmtree(old, ignore_errors=True)
