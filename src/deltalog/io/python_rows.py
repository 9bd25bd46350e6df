"""Rows of Python values as a decoded table, every value keeping its kind.

Python gives typed values, so nothing is read from text: ``"42"`` is a string, ``1`` an int and
``1.5`` a float even in one column, ``deltalog.IRI(...)`` an IRI. A column of one kind becomes a
typed column (Int64, Float64, or strings quoted where they would read as another value); a column
mixing kinds becomes text cells in their canonical forms (docs/semantics.md).
"""

from __future__ import annotations

import math

import polars as pl

from deltalog.errors import InputError
from deltalog.io.cells import string_cells
from deltalog.storage.values import INT64_MAX, INT64_MIN, Iri, format_value


def _kind(value, row: int, column: int) -> str:
    """The kind of one Python value, refusing the ones with no exact constant."""
    where = f"row {row + 1}, column {column + 1}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise InputError(f"{where}: integer {value} does not fit 64 bits")
        return "int"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{where}: {value} is no value (NaN and infinities are refused)")
        return "float"
    if isinstance(value, Iri):
        return "iri"
    if isinstance(value, str):
        return "string"
    if value is None:
        raise InputError(f"{where}: None is no value")
    raise InputError(f"{where}: a {type(value).__name__} has no constant kind (use int, float, str or deltalog.IRI)")


def _column(values: list, column: int) -> pl.Series:
    name = f"c{column}"
    if (single := _one_plain_kind(values)) is not None:
        return single.alias(name)
    kinds = [_kind(v, row, column) for row, v in enumerate(values)]
    distinct = set(kinds)
    if distinct == {"int"}:
        return pl.Series(name, values, dtype=pl.Int64)
    if distinct == {"float"}:
        return pl.Series(name, values, dtype=pl.Float64)
    if distinct <= {"string", "bool"}:   # booleans are the strings true/false, as in Parquet
        texts = [("true" if v else "false") if k == "bool" else v for v, k in zip(values, kinds)]
        return string_cells(pl.Series(name, texts, dtype=pl.String))
    cells = [format_value("string", "true" if v else "false") if k == "bool" else format_value(k, v)
             for v, k in zip(values, kinds)]
    return pl.Series(name, cells, dtype=pl.String)


def _one_plain_kind(values: list) -> pl.Series | None:
    """A column of ints in 64 bits only, or of finite floats only, typed without a look at each value
    in Python (the types are collected in C; ``bool`` is a type of its own): an update's 1,000 facts
    spent ~1 ms in ``_kind``. None for every other column, which ``_kind`` checks value by value."""
    types = set(map(type, values))
    if types == {int} and INT64_MIN <= min(values) and max(values) <= INT64_MAX:
        return pl.Series(values, dtype=pl.Int64)
    if types == {float} and all(map(math.isfinite, values)):
        return pl.Series(values, dtype=pl.Float64)
    return None


def rows_table(data, arity: int | None) -> pl.DataFrame:
    """Rows (tuples) of Python values as a decoded table c0..ck; ragged rows are refused."""
    rows = list(map(tuple, data))
    width = len(rows[0]) if rows else (arity or 0)
    if set(map(len, rows)) - {width}:   # the widths are compared in C; the loop only names the bad row
        for number, row in enumerate(rows):
            if len(row) != width:
                raise InputError(f"row {number + 1} has {len(row)} values, expected {width}")
    if not rows:
        return pl.DataFrame(schema={f"c{i}": pl.String for i in range(width)})
    return pl.DataFrame([_column(list(values), i) for i, values in enumerate(zip(*rows))])
