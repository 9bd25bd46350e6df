"""Opening a store: the version ``CURRENT`` names, read whole and checked, as a Reasoner (store/__init__.py
has the layout's guarantees). A reader pins the snapshot it reads (store/locks.py), so a writer removing
old snapshots never takes it away mid-read; a version that moves on meanwhile is read again."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from deltalog.store import layout
from deltalog.store.layout import StoreDamaged, StoreError
from deltalog.store.locks import WriterLock, reading
from deltalog.store.session import StoreLink, StoreSession
from deltalog.storage import checked_files, persist

READ_ATTEMPTS = 50


def open_store(store: str | os.PathLike, *, writable: bool = False, wait: float = 0.0, modules: str = "auto"):
    """The Reasoner saved in a store, ready for queries and updates. ``writable``: hold the writer lock
    until ``Reasoner.close()`` (waiting up to ``wait`` seconds for another writer). ``modules``: as for
    ``Reasoner`` (closure modules keep no state of their own, so either choice maintains any store)."""
    store = Path(store)
    lock = WriterLock(store, wait) if writable and _check_is_store(store) else None
    try:
        return _read(store, lock, modules)
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def _check_is_store(store: Path) -> bool:
    layout.read_pointer(store)
    return True


def _read(store: Path, lock: WriterLock | None, modules: str = "auto"):
    for _ in range(READ_ATTEMPTS):
        pointer = layout.read_pointer(store)
        snapshot, version, digest = pointer
        with reading(store / snapshot) as present:
            loaded = _load_version(store, snapshot, version, digest) if present else None
            if loaded is not None:
                return _reasoner(store, *loaded, lock=lock, modules=modules)
        # Writers switch CURRENT before they remove anything: what CURRENT still names must be there.
        if layout.read_pointer(store) == pointer:
            missing = snapshot if not present else f"{snapshot}/{layout.manifest_name(version)}"
            raise StoreDamaged(store, missing, "missing")
        time.sleep(0.01)
    raise StoreError(f"store {store} changed too often while being read; try again")


def _load_version(store: Path, snapshot: str, version: int, digest: str):
    """(manifest, program text, dictionary, relations), or None if the version went away meanwhile."""
    file = f"{snapshot}/{layout.manifest_name(version)}"
    try:
        data = (store / file).read_bytes()
    except FileNotFoundError:
        return None
    if checked_files.checksum(data) != digest:
        if layout.read_pointer(store) != (snapshot, version, digest):
            return None    # CURRENT moved on while we read
        raise StoreDamaged(store, file, "checksum mismatch (the manifest was changed or corrupted)")
    manifest = layout.parse_manifest(store, file, data, snapshot, version)
    source = checked_files.FileSource(store / snapshot, manifest["files"])
    try:
        program = source.parse("base/program.dl", lambda b: b.decode("utf-8"))
        dictionary, relations = persist.load_state(source, manifest["parts"])
    except checked_files.Damaged as damage:
        raise StoreDamaged(store, f"{snapshot}/{damage.file}", damage.what) from None
    return manifest, program, dictionary, relations


def _reasoner(store: Path, manifest: dict, program: str, dictionary, relations, *, lock: WriterLock | None,
              modules: str = "auto"):
    from deltalog.api import Reasoner
    from deltalog.backends.local.backend import LocalBackend
    from deltalog.syntax.parsed_cache import parse_cached
    backend = LocalBackend.from_parts(dictionary, relations)
    # (the parse cache, as for a program file: an unchanged store program costs no Lark import or parse)
    parsed = parse_cached(program, str(store / manifest["snapshot"] / "base" / "program.dl"))
    missing = set(manifest["arities"]) - set(relations)
    if missing:
        raise StoreDamaged(store, manifest["snapshot"], f"no saved relation for {', '.join(sorted(missing))}")
    reasoner = Reasoner(parsed, backend=backend, restore=manifest, modules=modules)
    reasoner.source = program
    saved = persist.Saved(len(dictionary), {n: (r.layout, len(r)) for n, r in relations.items()})
    link = StoreLink(store.resolve(), manifest["snapshot"], manifest["version"], saved, program, manifest, lock)
    reasoner.store_session = StoreSession(link, manifest.get("history", []))
    return reasoner


def verify_store(store: str | os.PathLike) -> dict[str, Any]:
    """Read the current version whole, checking every file's size and checksum and the state's
    consistency; returns a summary (raises StoreDamaged on the first problem)."""
    reasoner = open_store(store)
    link = reasoner.store_session.link
    files = link.manifest["files"]
    return {"snapshot": link.snapshot, "version": link.version, "files": len(files),
            "bytes": sum(size for size, _ in files.values()), "facts": reasoner.fact_count(),
            "predicates": len(reasoner.predicates())}
