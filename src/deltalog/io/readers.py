"""Reading fact files (TSV/.facts, CSV, Parquet, and directories of them) into decoded tables c0..ck.

Text formats are read by io/delimited.py; this file picks the reader by format, reads Parquet and
turns tables of typed values (Parquet, DataFrames) into decoded tables (``values_frame``).
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Callable

import polars as pl

from deltalog.errors import InputError
from deltalog.io.cells import string_cells
from deltalog.io.declared import BadCell, match_columns, value_column
from deltalog.io.delimited import DIALECTS, empty_table, read_delimited
from deltalog.io.formats import RDF_SUFFIXES, TABLE_SUFFIXES
from deltalog.io.int_columns import as_polars
from deltalog.io.writers import cell_strings
from deltalog.syntax.ast import Span
from deltalog.syntax.statements import Declaration

__all__ = ["CELLS_SUFFIX", "DIALECTS", "RDF_SUFFIXES", "TABLE_SUFFIXES", "empty_table", "read_facts_dir", "read_table",
           "values_frame"]



def read_table(path: str | os.PathLike, *, format: str | None = None, arity: int | None = None,
               decl: Declaration | None = None) -> pl.DataFrame:
    """One fact file as a DataFrame with columns c0..ck (Int64, Float64 or String cells).

    ``format``: ``tsv``/``facts`` (tab-separated, no header, no quoting), ``csv`` (no header),
    ``csv-header``, ``parquet``; from the extension when None. Blank lines are skipped. A text
    column is Int64 when every cell reads as an int, Float64 when every cell reads as a float and
    none as an int, else String (the engine types each cell as docs/semantics.md says).
    A directory (a Spark-style dataset of part files) or a glob pattern reads every file it
    names (``deltalog.io.datasets``); an empty file is zero rows (``arity`` columns if given).
    ``decl``: the predicate's ``@decl``, whose types type its columns (``deltalog.io.declared``).
    """
    if Path(path).is_dir() or (not Path(path).exists() and any(c in str(path) for c in "*?[")):
        from deltalog.io.datasets import read_dataset
        return read_dataset(path, format=format, arity=arity, decl=decl)
    fmt = format or _format_of(path)
    arity = decl.arity if decl is not None else arity
    if fmt == "parquet":
        return _read_parquet(path, arity, decl)
    if fmt not in DIALECTS:
        raise InputError(f"unknown input format {fmt!r} for {path}")
    return read_delimited(path, DIALECTS[fmt], arity, decl)


def _format_of(path: str | os.PathLike) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(f"cannot tell the format of {path} from its extension (use .tsv, .facts, .csv, .parquet)")
    return TABLE_SUFFIXES[suffix]



CELLS_SUFFIX = ":cells"   # a Parquet column of text cells (the tagged form of a mixed column)


def _read_parquet(path: str | os.PathLike, arity: int | None, decl: Declaration | None = None) -> pl.DataFrame:
    """A Parquet file: integers Int64, floats Float64, text strings (never retyped), columns named
    ``*:cells`` text cells (docs/semantics.md); nulls, NaN, infinities and ints beyond 64 bits refused."""
    if not Path(path).is_file():
        raise InputError(f"no such file: {path}")
    try:
        df = pl.read_parquet(Path(path))
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError(f"cannot read Parquet file {path}: {exc}") from None
    if arity is not None and df.width != arity:
        raise InputError(f"table has {df.width} columns, expected {arity}", Span(str(path), 1, 1))
    try:
        return values_frame(df, str(path), decl)
    except pl.exceptions.PolarsError as exc:
        raise InputError(f"cannot read Parquet file {path}: {exc}") from None


def values_frame(df: pl.DataFrame, source: str, decl: Declaration | None = None) -> pl.DataFrame:
    """A table of typed values (Parquet, a DataFrame) as a decoded table c0..ck: dtypes respected,
    String columns strings (quoted where they would read as another value), ``*:cells`` columns
    taken as text cells. Anything with no exact constant is refused, naming row and column.
    With a ``decl``, columns named as its attributes are taken by name, and each must fit its type."""
    if decl is not None:
        df = df.select(match_columns(df.columns, decl.names))
    columns = []
    for j, name in enumerate(df.columns):
        column = df[name]
        nulls = column.is_null()
        if nulls.any():
            raise InputError(f"{source}: row {int(nulls.arg_true()[0]) + 1}, column {j + 1} ({name!r}): "
                             "a null is no value")
        cells = name.endswith(CELLS_SUFFIX) and column.dtype == pl.String
        as_value = None if cells else partial(_value_column, source=source, j=j, name=name)
        if decl is not None and decl.types[j] != "any":
            typed = _declared_value(column, decl, j, source, as_value)
        else:
            typed = column if as_value is None else as_value(column)
        columns.append(typed.rename(f"c{j}"))
    return pl.DataFrame(columns) if columns else pl.DataFrame(schema={})


def _declared_value(column: pl.Series, decl: Declaration, j: int, source: str,
                    as_value: Callable[[pl.Series], pl.Series] | None) -> pl.Series:
    attribute = decl.attributes[j]
    try:
        return value_column(column, attribute.type, as_value or (lambda c: c))
    except BadCell as bad:
        row = f", row {bad.row + 1}" if bad.row >= 0 else ""
        raise InputError(f"{source}: column {j + 1} ({column.name!r}){row}: {bad}; {decl.predicate}."
                         f"{attribute.name} is declared {attribute.type}") from None


def _value_column(column: pl.Series, source: str, j: int, name: str) -> pl.Series:
    where = f"{source}: column {j + 1} ({name!r})"
    if column.dtype.is_integer():
        wide = column.cast(pl.Int64, strict=False)
        if wide.null_count():
            row = int(wide.is_null().arg_true()[0])
            raise InputError(f"{where}, row {row + 1}: integer {column[row]} does not fit 64 bits")
        return wide
    if column.dtype.is_float():
        floats = column.cast(pl.Float64)
        bad = ~floats.is_finite()
        if bad.any():
            row = int(bad.arg_true()[0])
            raise InputError(f"{where}, row {row + 1}: {floats[row]} is no value (NaN and infinities are refused)")
        return floats
    if column.dtype == pl.Datetime:
        return string_cells(column.dt.to_string("iso:strict"))
    if column.dtype == pl.Object:
        raise InputError(f"{where}: holds Python objects, which have no exact constant")
    return string_cells(cell_strings(column))


def read_facts_dir(directory: str | os.PathLike, *, rdf_predicates: bool = False,
                   arities: dict[str, int] | None = None, declarations=None, rdf_map=None) -> dict[str, pl.DataFrame]:
    """Every fact file and dataset of ``directory`` (see ``deltalog.io.datasets.read_facts_dir``), as DataFrames."""
    from deltalog.io.datasets import read_facts_dir as read_dir
    tables = read_dir(directory, rdf_predicates=rdf_predicates, arities=arities, declarations=declarations,
                      rdf_map=rdf_map)
    return {name: as_polars(table) for name, table in tables.items()}
