"""Parsed program files kept on disk, so that a run of an unchanged program skips Lark altogether.

Importing Lark, loading its LALR tables and compiling the contextual lexer's patterns costs ~35-40 ms
of CPU in every process, a fifth of a small run (docs/benchmarks.md, Stop 14), while the AST of a
program file is a few kB. ``parse_cached`` keeps the AST of each program file it parses, pickled in
the user's cache directory (``$XDG_CACHE_HOME/deltalog/programs``, created private; or the directory
``DELTALOG_PARSE_CACHE`` names, ``off`` for none), under a SHA-256 of everything the result depends
on: the file's name as given (spans carry it) and text, the source of the parser (every file of this
package and storage/values.py) and the installed Lark and Python. A hit unpickles the AST; a miss
(or an entry that cannot be read) parses the text and stores the result, written to a temporary file
and renamed, so a concurrent run never reads half of one. Only programs that parse are kept: errors
come from the parser as before. The directory keeps at most MAX_ENTRIES programs (the oldest go).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from deltalog.syntax.statements import Program

MAX_ENTRIES = 256
MAX_TEXT = 1 << 20   # a larger program (a long fact list) is parsed each time: its pickle would be large too
_HERE = Path(__file__).resolve().parent
_PARSER_SOURCES = sorted(_HERE.glob("*.py")) + [_HERE / "grammar.lark", _HERE.parent / "storage" / "values.py"]


def parse_cached(text: str, source_name: str) -> Program:
    """``parse(text, source_name=source_name)``, from the cache when this text was parsed before."""
    try:
        directory = cache_directory()
        if directory is None or len(text) > MAX_TEXT:
            return _parse(text, source_name)
        entry = directory / f"{_key(text, source_name)}.pickle"
    except OSError:   # no home directory, unreadable parser sources: no cache
        return _parse(text, source_name)
    try:
        program = pickle.loads(entry.read_bytes())
        if isinstance(program, Program):
            return program
    except Exception:   # missing, or unreadable in any way: parsed again below
        pass
    program = _parse(text, source_name)
    _store(directory, entry, program)
    return program


def cache_directory() -> Path | None:
    """The cache's directory (not created yet), or None when caching is off."""
    chosen = os.environ.get("DELTALOG_PARSE_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    try:
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "deltalog" / "programs"
    except RuntimeError:   # Path.home() without HOME or a password entry
        return None


def _parse(text: str, source_name: str) -> Program:
    from deltalog.syntax.parser import parse   # Lark is imported here, on a miss only
    return parse(text, source_name=source_name)


def _key(text: str, source_name: str) -> str:
    digest = hashlib.sha256(_fingerprint().encode())
    digest.update(os.fsencode(source_name) + b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _fingerprint() -> str:
    """What the AST of a text depends on besides the text: the parser's source, Lark, Python, pickle."""
    digest = hashlib.sha256(f"{sys.version}\0{pickle.HIGHEST_PROTOCOL}\0".encode())
    for path in _PARSER_SOURCES:
        digest.update(path.read_bytes())
    lark = importlib.util.find_spec("lark")   # its version is in its __init__.py; found, not imported
    if lark is not None and lark.origin:
        digest.update(lark.origin.encode() + Path(lark.origin).read_bytes())
    return digest.hexdigest()


def _store(directory: Path, entry: Path, program: Program) -> None:
    """Write the entry atomically and trim the directory; a cache that cannot be written is no error."""
    temporary = None
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL)
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, entry)
        _trim(directory)
    except Exception:   # full disk, read-only home, an AST that does not pickle: just not cached
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)   # a write that failed half-way leaves no file behind


def _trim(directory: Path) -> None:
    entries = list(directory.glob("*.pickle"))
    if len(entries) <= MAX_ENTRIES:
        return
    for old in sorted(entries, key=_modified)[:len(entries) - MAX_ENTRIES // 2]:
        old.unlink(missing_ok=True)


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:   # removed meanwhile by another run's trim
        return 0.0
