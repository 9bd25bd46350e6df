"""A persistent store: a directory holding a program, its facts and their materialisation, kept up to date.

An update appends a *segment* with what it changed (storage/persist.py) and a new manifest, then
switches ``CURRENT`` to it (store/layout.py has the layout). Now and then (many segments, or
segments as large as half the base, or a changed program) a save writes a whole new snapshot
instead and removes the old ones that no reader is reading. Files and directories are fsynced
before ``CURRENT`` changes, so a crash at any point leaves either the old or the new version
current, and a failed save removes what it staged. Writers hold the store's lock
(store/locks.py); a Reasoner that was opened without it refuses to save over a version it did
not start from, so no update is lost. Saving is here; opening and verifying in store/opening.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from deltalog.backends.base import Persistent
from deltalog.store import layout
from deltalog.store.layout import StoreDamaged, StoreError
from deltalog.store.locks import try_pin_exclusively, writer_lock, READERS_LOCK
from deltalog.store.opening import open_store, verify_store
from deltalog.store.session import StoreLink, StoreSession
from deltalog.storage import checked_files, persist

__all__ = ["open_store", "save_store", "verify_store", "require_persistent", "StoreError", "StoreDamaged",
           "StoreLink", "StoreSession"]

HISTORY_KEPT = 1000
"""Update history entries a manifest keeps (the manifest is rewritten by every update)."""
MAX_SEGMENTS = 64
SEGMENT_SHARE = 0.5
"""A save writes a whole new snapshot once the segments hold more than this share of the base's bytes
(or number MAX_SEGMENTS): opening then reads little more than the state itself."""


# ---- writing --------------------------------------------------------------------------------------

def require_persistent(backend) -> None:
    """Refuse, clearly, a backend whose state cannot be saved (the ``Persistent`` capability)."""
    if not isinstance(backend, Persistent):
        raise StoreError(f"saving a store needs the local backend; the {getattr(backend, 'name', 'given')} "
                         "backend cannot save its state (materialise with the local backend to make a store)")


def save_store(reasoner, store: str | os.PathLike, program_text: str, event: dict, *, wait: float = 0.0) -> Path:
    """Save the reasoner's state as the store's new current version (a segment or a whole snapshot)."""
    require_persistent(reasoner.backend)
    store = Path(store)
    if reasoner.store_session is None:
        reasoner.store_session = StoreSession()
    session: StoreSession = reasoner.store_session
    link = session.link
    holding = link is not None and link.lock is not None and link.path == store.resolve()
    if not holding:
        layout.prepare_directory(store)
    with _locked(store, holding, wait):
        layout.remove_leftovers(store)
        current = layout.read_pointer(store) if (store / layout.CURRENT).exists() else None
        ours = link if link is not None and link.path == store.resolve() else None   # the version it follows
        if ours is not None and current is not None and current[:2] != (ours.snapshot, ours.version):
            raise StoreError(f"store {store} was updated by another writer since this reasoner read it "
                             f"(it read {ours.snapshot} version {ours.version}); open it again and redo the update")
        change = _rule_change(reasoner, store, current, ours, program_text)
        if change is not None:
            event = dict(event, rules=change)
        history = (list(session.history) + [dict(event, time=time.time())])[-HISTORY_KEPT:]
        if ours is not None and current is not None and _append_is_worthwhile(ours, program_text):
            written, session.link = _append_segment(reasoner, store, ours, program_text, history)
        else:
            written, session.link = _write_snapshot(reasoner, store, program_text, history, ours)
        session.history = history
        if link is not None and link.lock is not None and ours is None:
            link.lock.release()     # saved elsewhere: the reasoner no longer follows the store it locked
        _remove_old_snapshots(store, keep=session.link.snapshot)
        return written


def _rule_change(reasoner, store: Path, current: tuple[str, int, str] | None, link: StoreLink | None,
                 program_text: str) -> dict[str, Any] | None:
    """When the saved program differs from the store version it replaces: how its rules map onto that
    version's (``analysis.identity.compare_rules``), for the history (``deltalog stats``): the rule ids
    added and removed, how many are kept, and the derived predicates whose stored facts stay valid.
    None when nothing changed or the old program cannot be read or analysed (the save goes on)."""
    from deltalog.analysis import analyse
    from deltalog.analysis.identity import compare_rules
    from deltalog.errors import DeltalogError
    if current is None:
        return None
    try:
        manifest, old_text = (link.manifest, link.program) if link is not None else _stored_program(store, current)
        if old_text == program_text:
            return None
        from deltalog.syntax import parse   # (Lark, imported only for a changed program)
        old = analyse(parse(old_text), extra_arities=dict(manifest.get("arities", {})))
    except (DeltalogError, OSError, ValueError, checked_files.Damaged):
        return None
    change = compare_rules(old, reasoner.analysed)
    return {"kept": len(change.kept), "added": sorted(change.added), "removed": sorted(change.removed),
            "unchanged_predicates": sorted(change.unchanged_predicates)}


def _stored_program(store: Path, current: tuple[str, int, str]) -> tuple[dict, str]:
    """The manifest and program text of the store's current version (not its facts)."""
    snapshot, version, digest = current
    file = f"{snapshot}/{layout.manifest_name(version)}"
    data = (store / file).read_bytes()
    if checked_files.checksum(data) != digest:
        raise StoreDamaged(store, file, "checksum mismatch (the manifest was changed or corrupted)")
    manifest = layout.parse_manifest(store, file, data, snapshot, version)
    text = checked_files.FileSource(store / snapshot, manifest["files"]).parse("base/program.dl",
                                                                      lambda b: b.decode("utf-8"))
    return manifest, str(text)


def _locked(store: Path, holding: bool, wait: float):
    return contextlib.nullcontext() if holding else writer_lock(store, wait=wait)


def _append_is_worthwhile(link: StoreLink, program_text: str) -> bool:
    parts = link.manifest["parts"]
    sizes = link.manifest["files"]
    base = sum(size for name, (size, _) in sizes.items() if name.startswith("base/"))
    segments = sum(size for name, (size, _) in sizes.items() if not name.startswith("base/"))
    return program_text == link.program and len(parts) <= MAX_SEGMENTS and segments <= SEGMENT_SHARE * max(base, 1)


def _manifest(reasoner, snapshot: str, version: int, parts: list[str], files: dict, history: list) -> dict:
    return {"format": layout.FORMAT_VERSION, "snapshot": snapshot, "version": version, "parts": parts,
            "files": files, "generation": reasoner.reasoning.generation, "arities": reasoner.predicates(),
            "history": history,
            "rules": [info.id for info in reasoner.analysed.rules]}   # stable rule ids (analysis/identity.py)


def _write_snapshot(reasoner, store: Path, program_text: str, history: list,
                    link: StoreLink | None) -> tuple[Path, StoreLink]:
    snapshot = layout.snapshot_name(max(layout.snapshot_numbers(store), default=0) + 1)
    staging = store / f".{snapshot}.tmp"
    try:
        (staging / "base").mkdir(parents=True)
        (staging / READERS_LOCK).touch()
        sink = checked_files.FileSink(staging / "base", "base")
        sink.write("program.dl", program_text.encode("utf-8"))
        backend = reasoner.backend
        saved, committed = persist.save_state(backend.dictionary, backend.relations_state(), sink, since=None)
        manifest = _manifest(reasoner, snapshot, 0, ["base"], sink.files, history)
        digest = _write_manifest(staging, 0, manifest)
        layout.fsync_directory(staging / "base")
        layout.fsync_directory(staging)
        os.replace(staging, store / snapshot)
        layout.fsync_directory(store)
        _point_to(store, snapshot, 0, digest)
    except BaseException:
        layout.remove(staging)
        raise
    committed()
    lock = link.lock if link is not None else None
    return store / snapshot, StoreLink(store.resolve(), snapshot, 0, saved, program_text, manifest, lock)


def _append_segment(reasoner, store: Path, link: StoreLink, program_text: str,
                    history: list) -> tuple[Path, StoreLink]:
    version = link.version + 1
    segment = layout.segment_name(version)
    directory = store / link.snapshot
    staging, final = directory / f"{segment}.tmp", directory / segment
    layout.remove(staging)
    layout.remove(final)     # left by a writer that died before switching CURRENT: not part of any version
    try:
        staging.mkdir()
        sink = checked_files.FileSink(staging, segment)
        backend = reasoner.backend
        saved, committed = persist.save_state(backend.dictionary, backend.relations_state(), sink, since=link.saved)
        files = {**link.manifest["files"], **sink.files}
        manifest = _manifest(reasoner, link.snapshot, version, link.manifest["parts"] + [segment], files, history)
        layout.fsync_directory(staging)
        os.replace(staging, final)
        digest = _write_manifest(directory, version, manifest)
        layout.fsync_directory(directory)
        _point_to(store, link.snapshot, version, digest)
    except BaseException:
        layout.remove(staging)
        layout.remove(final)
        raise
    committed()
    _remove_old_manifests(directory, keep={version, version - 1})
    return final, StoreLink(link.path, link.snapshot, version, saved, program_text, manifest, link.lock)


def _write_manifest(directory: Path, version: int, manifest: dict) -> str:
    data = json.dumps(manifest, sort_keys=True).encode()
    checked_files.write_durably(directory / layout.manifest_name(version), data)
    return checked_files.checksum(data)


def _point_to(store: Path, snapshot: str, version: int, digest: str) -> None:
    pointer = store / ".CURRENT.tmp"
    checked_files.write_durably(pointer, layout.pointer_text(snapshot, version, digest).encode("ascii"))
    os.replace(pointer, store / layout.CURRENT)
    layout.fsync_directory(store)


def _remove_old_manifests(directory: Path, keep: set[int]) -> None:
    """Older manifests (a reader that still wants one reads CURRENT again)."""
    for path in directory.iterdir():
        match = layout.MANIFEST.fullmatch(path.name)
        if match and int(match.group(1)) not in keep:
            path.unlink(missing_ok=True)


def _remove_old_snapshots(store: Path, keep: str) -> None:
    """Snapshots other than ``keep`` that no reader holds (a busy one is left for a later writer)."""
    for path in store.iterdir():
        if not layout.SNAPSHOT.fullmatch(path.name) or path.name == keep:
            continue
        fd = try_pin_exclusively(path)
        if fd is None:
            continue
        try:
            trash = store / f".trash-{path.name}"
            os.replace(path, trash)
        finally:
            os.close(fd)
        layout.remove(trash)
