"""A ``deltalog run``'s fact files of ints read while the engine's modules load (issue 15: start-up).

The command line knows the facts directory from its arguments, long before the loader reaches it:
the engine's ~120 modules import and the program is parsed first (~50-60 ms of a sub-second run,
holding the GIL). ``prefetch_directory`` starts one daemon thread that imports NumPy and reads every
``*.tsv``/``*.facts``/``*.csv`` file of the directory with the int reader (io/int_reader.py, mostly
NumPy passes that release the GIL) as the loader would ask for it with no arity known. The loader's
``read_decoded`` then takes a file's table from here (``take``) instead of reading it again, when
the file is still the one that was read (device, inode, size and modification time as before the
read) and the arity it asks for is the one the table has (or none): a file read with an arity
gives the table read without one if that table has that many columns, else no int table (every row
has the first row's number of cells), so the table is the one the loader would read itself. Any
other file, or one that changed, is read by the loader as before.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from deltalog.io.threads import workers

_SUFFIXES = {".tsv": "\t", ".facts": "\t", ".csv": ","}   # headerless files of these dialects (io/formats.py)
_read: dict[str, tuple[threading.Event, list]] = {}   # path -> (done, [file signature, table or None])
_lock = threading.Lock()
_readers: list[threading.Thread] = []


def prefetch_directory(directory: str | os.PathLike[str]) -> None:
    """Start reading the directory's text fact files in a daemon thread (nothing if it cannot be listed,
    or when one thread is all a run may use: io/threads.workers)."""
    if workers() < 2:
        return
    try:
        files = sorted(entry.path for entry in os.scandir(os.fspath(directory))
                       if os.path.splitext(entry.name)[1].lower() in _SUFFIXES and entry.is_file())
    except OSError:
        return
    forget()
    if not files:
        return
    entries = [(path, threading.Event(), [None, None]) for path in files]
    with _lock:
        _read.update((_key(path), (done, result)) for path, done, result in entries)
    reader = threading.Thread(target=_read_all, args=(entries,), name="deltalog-prefetch", daemon=True)
    _readers.append(reader)
    reader.start()


def _read_all(entries: list[tuple[str, threading.Event, list]]) -> None:
    from deltalog.io.int_reader import plausible, read_int_file
    for path, done, result in entries:
        try:
            separator = _SUFFIXES[os.path.splitext(path)[1].lower()]
            with open(path, "rb") as file:
                signature = _signature(os.fstat(file.fileno()))
                if plausible(file.read(1 << 16), separator):
                    file.seek(0)
                    result[1] = read_int_file(file, separator, None)
            result[0] = signature
        except Exception:   # noqa: BLE001 -- the loader reads the file itself and reports what is wrong
            result[0] = None
        finally:
            done.set()


def _key(path: str | os.PathLike) -> str:
    """The same file named the same way by the command line (``facts/``, ``./facts``) and the loader."""
    return os.path.abspath(path)


def _signature(stat: os.stat_result) -> tuple[int, ...]:
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def forget() -> None:
    """Drop the tables no loader took (a file of a declared string column, or a failed run), once the
    reading thread has stopped (a command ends with no thread of its own alive: process.exit_command)."""
    while _readers:
        _readers.pop().join()
    with _lock:
        _read.clear()


def take(path: str | os.PathLike, separator: str, arity: int | None) -> tuple[bool, Any]:
    """(True, the int reader's table or None) for a file read here and unchanged since, with the
    separator its suffix gives; (False, None) otherwise. A file is taken once (its table is not kept)."""
    with _lock:
        entry = _read.pop(_key(path), None)
    if entry is None or _SUFFIXES.get(os.path.splitext(os.fspath(path))[1].lower()) != separator:
        return False, None
    entry[0].wait()
    signature, table = entry[1]
    try:
        unchanged = signature is not None and signature == _signature(os.stat(path))
    except OSError:
        unchanged = False
    if not unchanged:
        return False, None
    if table is not None and arity is not None and table.width != arity:
        return True, None   # every row has the first row's cells: no int table of ``arity`` columns
    return True, table
