"""Advisory locks of a store: one writer at a time, and readers that pin the snapshot they read.

``STORE/LOCK`` is the writer lock: ``flock(LOCK_EX)`` held from reading the current state to
switching ``CURRENT``, so that no update is lost. The operating system drops a ``flock`` when its
process dies, so a crashed writer never leaves a stale lock behind; the lock file keeps the pid of
the last writer only to name it in the error a second writer gets.

``snap-N/READERS`` pins a snapshot: readers hold ``LOCK_SH`` on it while they load, and a writer
removes an old snapshot only after taking ``LOCK_EX`` on it without waiting (a snapshot still being
read stays until a later writer finds it free).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from typing import Iterator

from deltalog.errors import DeltalogError

WRITER_LOCK = "LOCK"
READERS_LOCK = "READERS"
POLL_SECONDS = 0.05


class StoreBusy(DeltalogError):
    """Another process is updating the store."""


@contextlib.contextmanager
def writer_lock(store: Path, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the store's writer lock; wait up to ``wait`` seconds for another writer to finish."""
    fd = os.open(store / WRITER_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(fd, store, wait)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)   # closing the descriptor releases the lock


def _acquire(fd: int, store: Path, wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                waited = f" (waited {wait:g} s)" if wait else " (use --wait SECONDS to wait for it)"
                raise StoreBusy(f"store {store} is being updated by process {holder}{waited}") from None
            time.sleep(POLL_SECONDS)


class WriterLock:
    """The writer lock held across calls (``Reasoner.open(store, writable=True)`` until ``close()``)."""

    def __init__(self, store: Path, wait: float) -> None:
        self._context: contextlib.AbstractContextManager[None] | None = writer_lock(store, wait=wait)
        self._context.__enter__()
        self.store = store

    def release(self) -> None:
        if self._context is not None:
            self._context.__exit__(None, None, None)
            self._context = None


@contextlib.contextmanager
def reading(snapshot: Path) -> Iterator[bool]:
    """Pin a snapshot while reading it; yields False if it is gone or going (read CURRENT again)."""
    try:
        fd = os.open(snapshot / READERS_LOCK, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        yield False
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        # a writer renames a snapshot away while holding LOCK_EX: the path tells whether it is still there
        yield (snapshot / READERS_LOCK).exists()
    finally:
        os.close(fd)


def try_pin_exclusively(snapshot: Path) -> int | None:
    """A descriptor holding LOCK_EX on a snapshot no reader holds, or None (busy or not a snapshot)."""
    try:
        fd = os.open(snapshot / READERS_LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except BlockingIOError:
        os.close(fd)
        return None
