"""Small tables of text cells read, typed and written in Python, so that a small run never imports Polars.

Importing Polars costs ~0.13 s, a third of a run over a few hundred facts (issue 15), while the
cells of a small file take a few milliseconds in Python. Below ``SMALL_TEXT_BYTES`` (reading) or
``SMALL_TEXT_CELLS`` (writing), and only while Polars is not loaded anyway, the engine takes this
path; the cells, types, values, errors and bytes are those of the Polars path (io/delimited.py,
io/cells.py, io/writers.py), because both parse rows with ``io/text_rows.text_columns`` and both
type and write cells by the rules of ``storage.values`` (``parse_cell`` and ``format_value`` are
those rules, cell by cell; io/cells.py applies them to whole columns). The per-cell loops are
bounded by the thresholds: larger data takes the vectorised path.
"""

from __future__ import annotations

import sys
from typing import Union

import numpy as np

from deltalog.errors import InputError
from deltalog.io.formats import Dialect
from deltalog.io.int_columns import ColumnTable
from deltalog.io.text_rows import text_columns
from deltalog.storage.values import UnrepresentableValue, parse_cell

SMALL_TEXT_BYTES = 1 << 19
"""Largest text file read in Python while Polars is not loaded. A run copying a file of N rows of two
distinct names (``p(X, Y) :- e(X, Y).``, a fresh process each, CPU; docs/design.md) costs 0.36 / 0.43 /
0.55 s in Python at 20k / 35k / 50k rows (300 / 540 / 780 kB) against 0.55 / 0.60 / 0.70 s through
Polars: Python stays cheaper past this bound, which keeps the per-cell loops to small data."""
SMALL_TEXT_CELLS = 100_000
"""Largest relation (rows x columns, not all ints) decoded and written in Python while Polars is not loaded
(each distinct value is formatted once; a row then costs ~0.3 us)."""

Column = Union[np.ndarray, list]
"""An int64 or float64 array (a column all of ints or all of floats), else a list of text cells."""


class TextTable(ColumnTable):
    """A decoded table c0..ck of a few cells without Polars: columns typed as ``io/delimited`` types
    them (all ints: int64, all floats: float64, else the text cells)."""

    arrays: list[Column]


def small_enough(size: int, limit: int) -> bool:
    """Whether Python may take data of ``size`` (bytes or cells): it is small, and Polars is not loaded
    (once it is, its vectorised path is the cheaper one)."""
    return size <= limit and "polars" not in sys.modules


def read_small_text(data: bytes, file: str, dialect: Dialect, arity: int | None) -> TextTable:
    """A small text file's table: the cells ``io/delimited.read_delimited`` reads, typed by form."""
    return TextTable([_typed(cells, file, j) for j, cells in enumerate(text_columns(data, file, dialect, arity))])


def _typed(cells: list[str], file: str, j: int) -> Column:
    """An int64 (float64) array for a column whose cells are all canonical ints (floats), else the cells;
    a canonical int beyond 64 bits is refused, naming the first row with one (as ``io/cells.classify``)."""
    try:
        kinds = {cell: parse_cell(cell) for cell in dict.fromkeys(cells)}
    except UnrepresentableValue:
        row = next(r for r, cell in enumerate(cells) if _overflows(cell))
        raise InputError(f"{file}: column {j + 1}, row {row + 1}: integer {cells[row]} does not fit 64 bits "
                         "(quote it to keep it as a string)") from None
    found = {kind for kind, _ in kinds.values()}
    if cells and found == {"int"}:
        return np.array([kinds[cell][1] for cell in cells], np.int64)
    if cells and found == {"float"}:
        return np.array([kinds[cell][1] for cell in cells], np.float64)
    return cells


def _overflows(cell: str) -> bool:
    try:
        parse_cell(cell)
    except UnrepresentableValue:
        return True
    return False


def cell_texts(column: Column) -> list[str]:
    """A column's cells as written: ints as digits, floats as ``repr``, text cells as they are."""
    if isinstance(column, np.ndarray):
        return [repr(v) for v in column.tolist()] if column.dtype.kind == "f" else [str(v) for v in column.tolist()]
    return column


def text_table_bytes(table: TextTable, fmt: str) -> bytes:
    """The file Polars' writer writes for the table (io/writers.py): TSV raw (a cell TSV cannot hold is
    refused), CSV with the cells that need it quoted (``quote_style="necessary"``)."""
    columns = [cell_texts(c) for c in table.arrays]
    if fmt == "csv":
        columns = [[_csv_cell(c) for c in column] if not isinstance(a, np.ndarray) else column
                   for column, a in zip(columns, table.arrays)]
        separator = ","
    else:
        _check_tsv(table)
        separator = "\t"
    return "".join(separator.join(row) + "\n" for row in zip(*columns)).encode()


def _csv_cell(cell: str) -> str:
    """Polars' "necessary" quoting: the empty cell, and cells holding a comma, a quote or a line break."""
    if cell == "" or any(c in cell for c in ',"\n\r'):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _check_tsv(table: TextTable) -> None:
    """``io/writers._check_tsv`` for a TextTable (the same errors)."""
    text = [(name, a) for name, a in zip(table.columns, table.arrays) if not isinstance(a, np.ndarray)]
    if table.width == 1 and text and "" in text[0][1]:
        raise tsv_empty_cell(text[0][0])
    for name, cells in text:
        joined = "".join(cells)
        if "\t" in joined or "\n" in joined or "\r" in joined:
            raise tsv_unwritable_cell(name)


def tsv_empty_cell(name: str) -> InputError:
    """TSV has no quoting: an empty cell alone on its line would be a blank line, which is no row."""
    return InputError(f"column {name!r} holds the empty string, which a one-column TSV file cannot hold; "
                      "use csv or parquet")


def tsv_unwritable_cell(name: str) -> InputError:
    """TSV has no quoting: a cell holding a tab or a line break cannot be written."""
    return InputError(f"column {name!r} has a cell with a tab or line break, which TSV cannot hold; use csv or parquet")
