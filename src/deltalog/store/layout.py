"""The names and small files of a store directory, checked on every read.

Layout (format 2)::

    STORE/deltalog-store               marks a deltalog store (nothing else is ever touched or deleted)
    STORE/LOCK                         the writer lock (store/locks.py)
    STORE/CURRENT                      "snap-000003/v-000005.json <checksum of that manifest>"
    STORE/snap-000003/READERS          readers pin the snapshot with a shared lock
    STORE/snap-000003/base/            program.dl and the whole state as of the snapshot
    STORE/snap-000003/seg-000001/      what each later update changed (storage/persist.py)
    STORE/snap-000003/v-000005.json    manifest: the parts base, seg-000001..5, every file's size and checksum

A version's manifest is written before ``CURRENT`` names it, so ``CURRENT`` always names a complete
version, and its checksum in ``CURRENT`` covers the manifest, whose checksums cover everything else.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from deltalog.errors import InputError

FORMAT_VERSION = 2
MARKER = "deltalog-store"
CURRENT = "CURRENT"
POINTER = re.compile(r"(snap-\d{6})/(v-(\d{6})\.json) ([0-9a-f]{32})")
SNAPSHOT = re.compile(r"snap-(\d{6})")
LEFTOVER = re.compile(r"\.(snap-\d{6})\.tmp|\.trash-snap-\d{6}|\.CURRENT\.tmp")
SEGMENT = re.compile(r"seg-(\d{6})(\.tmp)?")
MANIFEST = re.compile(r"v-(\d{6})\.json")


class StoreError(InputError):
    """A store cannot be used as asked (not a store, changed by another writer, ...)."""


class StoreDamaged(StoreError):
    """A store's files do not match what its manifest records."""

    def __init__(self, store: Path, file: str, what: str) -> None:
        super().__init__(f"store {store} is damaged: {file}: {what}")
        self.file, self.what = file, what


def snapshot_name(number: int) -> str:
    return f"snap-{number:06d}"


def segment_name(number: int) -> str:
    return f"seg-{number:06d}"


def manifest_name(version: int) -> str:
    return f"v-{version:06d}.json"


def is_store(store: Path) -> bool:
    return (store / MARKER).is_file()


def read_pointer(store: Path) -> tuple[str, int, str]:
    """(snapshot, version, manifest checksum) named by CURRENT."""
    if not is_store(store):
        if (store / CURRENT).is_file():
            raise StoreError(f"{store} is a store of an older deltalog format (no {MARKER} file); export it "
                             "with the deltalog that made it and create it anew with 'deltalog init'")
        raise StoreError(f"{store} is not a deltalog store; create one with 'deltalog init'")
    try:
        text = (store / CURRENT).read_text(encoding="ascii")
    except FileNotFoundError:
        raise StoreError(f"store {store} holds no saved version yet (a first save that did not finish?)") from None
    except (UnicodeDecodeError, OSError) as error:
        raise StoreDamaged(store, CURRENT, f"unreadable ({error})") from None
    match = POINTER.fullmatch(text.rstrip("\n"))
    if match is None:
        raise StoreDamaged(store, CURRENT, f"does not name a snapshot of this store: {text[:80]!r}")
    return match.group(1), int(match.group(3)), match.group(4)


def pointer_text(snapshot: str, version: int, digest: str) -> str:
    return f"{snapshot}/{manifest_name(version)} {digest}\n"


def parse_manifest(store: Path, file: str, data: bytes, snapshot: str, version: int) -> dict:
    """The manifest, its structure checked (its checksum was checked by the caller)."""
    try:
        manifest = json.loads(data)
        ok = (manifest["format"] == FORMAT_VERSION and manifest["snapshot"] == snapshot
              and manifest["version"] == version and isinstance(manifest["parts"], list)
              and isinstance(manifest["files"], dict) and isinstance(manifest["arities"], dict)
              and isinstance(manifest["generation"], int) and manifest["parts"][:1] == ["base"])
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise StoreDamaged(store, file, "not a valid manifest")
    for part in manifest["parts"][1:]:
        if not isinstance(part, str) or not SEGMENT.fullmatch(part) or part.endswith(".tmp"):
            raise StoreDamaged(store, file, f"names an invalid part {part!r}")
    for name in manifest["files"]:
        if not isinstance(name, str) or ".." in name.split("/") or name.startswith("/"):
            raise StoreDamaged(store, file, f"names a file outside its snapshot: {name!r}")
    return manifest


# ---- directories ---------------------------------------------------------------------------------

def fsync_directory(path: Path) -> None:
    """Make the directory's entries (files created or renamed in it) durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def refuse_foreign(store: Path) -> None:
    """Refuse a path that is neither new, nor an empty directory, nor a store."""
    if store.exists() and not store.is_dir():
        raise StoreError(f"{store} is a file, not a store directory")
    if store.is_dir() and not is_store(store):
        foreign = sorted(p.name for p in store.iterdir())
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise StoreError(f"{store} is not empty and not a deltalog store (it holds {shown}); "
                             "choose a new or empty directory")


def prepare_directory(store: Path) -> None:
    """Make ``store`` a store directory: new, empty, or a store already; refuse anything else."""
    refuse_foreign(store)
    store.mkdir(parents=True, exist_ok=True)
    if not is_store(store):
        marker = store / MARKER
        marker.write_text(f"deltalog store, format {FORMAT_VERSION}\n")
        fsync_directory(store)


def remove_leftovers(store: Path) -> None:
    """Staging and trash directories of writers that died (only names deltalog makes); writer lock held."""
    for path in store.iterdir():
        if LEFTOVER.fullmatch(path.name):
            remove(path)


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def snapshot_numbers(store: Path) -> list[int]:
    found = []
    for path in store.iterdir():
        name = path.name.removeprefix(".").removeprefix("trash-").removesuffix(".tmp")
        match = SNAPSHOT.fullmatch(name)
        if match:
            found.append(int(match.group(1)))
    return found
