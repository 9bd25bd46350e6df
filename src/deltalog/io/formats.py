"""Fact file formats by name and extension, and the one entry that reads a file without Polars when it can.

Kept free of Polars and PyArrow: ``read_decoded`` gives a file of canonical ints as an IntTable
(io/int_columns.py), a file of plain names as a PlainTable (io/plain_cells.py), a small text file
as a TextTable (io/text_table.py), and imports the general readers only for other files (start-up
time, issue 15).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltalog.io.int_columns import IntTable
from deltalog.io.int_reader import plausible, read_int_file

TABLE_SUFFIXES = {".tsv": "tsv", ".facts": "tsv", ".csv": "csv", ".parquet": "parquet"}
RDF_SUFFIXES = (".nt", ".ttl")
INT_TYPES = ("any", "int", "number")   # declared types under which a canonical int cell reads as that int
HEAD_BYTES = 1 << 16


@dataclass(frozen=True)
class Dialect:
    """How a text format splits rows into fields."""

    separator: str
    quote: str | None
    header: bool


DIALECTS = {
    "tsv": Dialect("\t", None, False),
    "facts": Dialect("\t", None, False),
    "csv": Dialect(",", '"', False),
    "csv-header": Dialect(",", '"', True),
}


def read_decoded(path: str | os.PathLike, *, format: str | None = None, arity: int | None = None,
                 decl=None) -> Any:
    """``deltalog.io.readers.read_table``'s table, except that a headerless text file of canonical
    ints comes back as an IntTable, a file of plain names as a PlainTable (io/plain_cells.py) and a
    small text file (typed by form) as a TextTable (io/text_table.py), all read without importing
    Polars; the same values either way."""
    dialect = _text_dialect(path, format)
    if dialect is not None:
        arity = decl.arity if decl is not None else arity
        if not dialect.header and _ints_allowed(decl):
            table = _read_ints(path, dialect, arity)
            if table is not None:
                return table
        if decl is None or (decl.arity and all(t == "any" for t in decl.types)):
            table = _read_names_or_small(path, dialect, arity)
            if table is not None:
                return table
    from deltalog.io.readers import read_table
    return read_table(path, format=format, arity=arity, decl=decl)


def _text_dialect(path: str | os.PathLike, format: str | None) -> Dialect | None:
    """The dialect of one text file (None for other formats, directories and globs)."""
    dialect = DIALECTS.get(format or TABLE_SUFFIXES.get(Path(path).suffix.lower(), ""))
    return dialect if dialect is not None and Path(path).is_file() else None


def _ints_allowed(decl) -> bool:
    """Whether the declared types (if any) read a canonical int cell as that int."""
    return decl is None or (bool(decl.arity) and all(t in INT_TYPES for t in decl.types))


def _read_names_or_small(path: str | os.PathLike, dialect: Dialect, arity: int | None) -> Any:
    """The PlainTable of a headerless file of plain names (io/plain_cells.py), else the TextTable of a
    small file while Polars is not loaded (io/text_table.py), else None (also when it cannot be read:
    the general reader says why). The file is read once for both."""
    from deltalog.io.plain_cells import read_plain_cells
    from deltalog.io.text_table import SMALL_TEXT_BYTES, read_small_text, small_enough
    try:
        if dialect.header and not small_enough(os.path.getsize(path), SMALL_TEXT_BYTES):
            return None   # only the small-file path takes a file with a header: not read for nothing
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    plain = None if dialect.header else read_plain_cells(data, dialect.separator, dialect.quote, arity)
    if plain is not None:
        return plain
    return read_small_text(data, str(path), dialect, arity) if small_enough(len(data), SMALL_TEXT_BYTES) else None


def _read_ints(path: str | os.PathLike, dialect: Dialect, arity: int | None) -> IntTable | None:
    """The IntTable of the file, or None (also when it cannot be read: the general reader says why)."""
    try:
        with open(path, "rb") as file:
            if not plausible(file.read(HEAD_BYTES), dialect.separator):
                return None   # some other byte: the usual text file is refused before it is read whole
            file.seek(0)
            return read_int_file(file, dialect.separator, arity)
    except OSError:
        return None
