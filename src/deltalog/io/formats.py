"""Fact file formats by name and extension, and the one entry that reads a file without Polars when it can.

Kept free of Polars and PyArrow: ``read_decoded`` gives a file of canonical ints as an IntTable
(io/int_columns.py) and imports the general readers only for other files (start-up time, issue 15).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltalog.io.int_columns import IntTable, plausible, read_int_cells

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
    ints comes back as an IntTable, read without importing Polars; the same values either way."""
    dialect = _int_dialect(path, format, decl)
    if dialect is not None:
        table = _read_ints(path, dialect, decl.arity if decl is not None else arity)
        if table is not None:
            return table
    from deltalog.io.readers import read_table
    return read_table(path, format=format, arity=arity, decl=decl)


def _int_dialect(path: str | os.PathLike, format: str | None, decl) -> Dialect | None:
    """The dialect of a file the int reader may take: one headerless text file whose declared types
    (if any) read a canonical int as that int."""
    dialect = DIALECTS.get(format or TABLE_SUFFIXES.get(Path(path).suffix.lower(), ""))
    if dialect is None or dialect.header or not Path(path).is_file():
        return None
    if decl is not None and (not decl.arity or any(t not in INT_TYPES for t in decl.types)):
        return None
    return dialect


def _read_ints(path: str | os.PathLike, dialect: Dialect, arity: int | None) -> IntTable | None:
    """The IntTable of the file, or None (also when it cannot be read: the general reader says why)."""
    try:
        with open(path, "rb") as file:
            head = file.read(HEAD_BYTES)
            if not plausible(head, dialect.separator):
                return None   # some other byte: the usual text file is refused before it is read whole
            data = head + file.read()
    except OSError:
        return None
    return read_int_cells(data, dialect.separator, arity)
