"""Delimited files whose every cell is a canonical int, read and written with NumPy alone.

The usual fact file is a TSV of ids. Such a file is parsed over its bytes (separator positions,
then the digits of all cells at once: io/int_reader.py) and such a relation is written back here
the same way, so that a run over int data never imports Polars (~0.1 s of a
sub-second run, issue 15). Only a file that is certainly all canonical ints is taken: cells
``0`` or ``-?[1-9][0-9]*`` (``storage.values.CANONICAL_INT``, the form that types a cell as an
int) of at most 18 digits (so every one fits 64 bits), in regular rows of the given arity, each
ending in a line feed (the last may not). Anything else (another byte such as a quote, ``+``,
``\\r``, a space or a BOM; ``007`` or ``-0``; an empty cell or a blank line; a ragged row; 19
digits) returns None, and the general reader (io/delimited.py) reads the file: it types every
cell and reports bad input by file, line and column, so the two paths give the same table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from deltalog.storage.values import INT64_MAX, INT64_MIN

if TYPE_CHECKING:
    import polars as pl

_ZERO, _MINUS, _LINE = 48, 45, 10


class ColumnTable:
    """A decoded table c0..ck held without Polars, a column per array (``IntTable``, and the small text
    files' ``io/text_table.TextTable``); ``to_polars`` converts it when Polars is needed."""

    def __init__(self, arrays: list, height: int = 0) -> None:
        self.arrays = arrays
        self.height = len(arrays[0]) if arrays else height   # no columns: ``height`` rows of arity 0

    @property
    def width(self) -> int:
        return len(self.arrays)

    @property
    def columns(self) -> list[str]:
        return [f"c{j}" for j in range(self.width)]

    def to_polars(self) -> pl.DataFrame:
        """The table as a Polars frame: an array column as it is (Int64 or Float64), a list as strings."""
        import polars as pl
        return pl.DataFrame([pl.Series(name, a) if isinstance(a, np.ndarray) else pl.Series(name, a, dtype=pl.String)
                             for name, a in zip(self.columns, self.arrays)])


class IntTable(ColumnTable):
    """A decoded table c0..ck whose columns all hold ints, as NumPy int64 arrays (no Polars).

    ``rows`` is the row-major (height, width) matrix the columns are views of, for a table made by
    ``of_rows`` (a file's cells as the int reader parses them, io/int_reader.py), else None: such a
    table's columns are never copied out, and the local backend encodes the matrix as it lies
    (backends/local/backend.py) instead of concatenating the columns again (1M rows of two ids:
    three passes over 16 MB fewer)."""

    def __init__(self, arrays: list[np.ndarray], height: int = 0) -> None:
        super().__init__([np.ascontiguousarray(a, np.int64) for a in arrays], height)
        self.rows: np.ndarray | None = None

    @classmethod
    def of_rows(cls, rows: np.ndarray) -> IntTable:
        """The table of an int64 matrix of one row per row, its columns strided views of it."""
        table = cls([])
        ColumnTable.__init__(table, list(rows.T))
        table.rows = rows
        return table

    def row_chunks(self, rows: int) -> list[IntTable]:
        """The table in consecutive slices of ``rows`` rows (views, no copies)."""
        return [IntTable([a[at:at + rows] for a in self.arrays]) for at in range(0, self.height, rows)]


def int_rows(rows: list[tuple]) -> IntTable | None:
    """Rows of Python values (tuples of one width) whose every value is an int in 64 bits, as an
    IntTable: NumPy arrays straight from the ints, the table an int file gives, which the local
    backend encodes without Polars (an update's 1,000 facts in 26 tables: ~0.1 ms instead of ~1 ms
    of Series and DataFrame construction and conversion back). None for any other rows (io/python_rows.py
    types them, and names a value that does not fit), and for no rows. Rows of no values (facts of a
    predicate of arity 0) are an IntTable of no columns and their number of rows: a Polars frame of
    no columns has no rows, so the fact would be lost."""
    if not rows:
        return None
    if not rows[0]:
        return IntTable([], height=len(rows))
    columns = [list(values) for values in zip(*rows)]
    if any(set(map(type, values)) != {int} for values in columns):   # a ``bool`` is no int here
        return None
    if any(min(values) < INT64_MIN or max(values) > INT64_MAX for values in columns):
        return None
    return IntTable([np.array(values, np.int64) for values in columns])


def as_polars(table: Any) -> pl.DataFrame:
    """A decoded table as a Polars DataFrame (an IntTable or a TextTable converted, a DataFrame as it is)."""
    return table.to_polars() if isinstance(table, ColumnTable) else table


def concat(tables: list[IntTable]) -> IntTable:
    return IntTable([np.concatenate(parts) for parts in zip(*(t.arrays for t in tables))])


def int_cells_bytes(table: IntTable, separator: str) -> bytes:
    """The rows of an IntTable as text: decimal cells joined by ``separator``, one line each.

    Every row is first laid out in a fixed-width byte matrix (each cell right-aligned in its
    column's widest width, padded on the left with zero bytes, then its terminator); its nonzero
    bytes, read in row order, are the file (when no cell is padded, the matrix as it is).
    Contiguous passes only: no scatter into the output."""
    if table.height == 0 or table.width == 0:
        return b""
    blocks = [_column_text(a) for a in table.arrays]
    return laid_out([block for block, _ in blocks], separator, padded=any(padded for _, padded in blocks))


def laid_out(blocks: list[np.ndarray], separator: str, *, padded: bool = True) -> bytes:
    """Rows as text from one fixed-width byte block per column (a row per row, cells padded with zero
    bytes): the blocks side by side, each cell followed by ``separator`` or, the last, a line feed; the
    nonzero bytes in row order are the text (all of them when no cell is ``padded``).

    Each block is copied as one item a row (a field of a record per row: a byte-by-byte strided copy
    costs twice as much), and the zero bytes are deleted by ``bytes.translate`` (faster than a boolean
    mask over the layout: 2M rows of two ids, 27 -> 15 ms)."""
    spans = [block.shape[1] for block in blocks]
    at = np.cumsum([0] + [span + 1 for span in spans]).tolist()   # where each cell starts in a row
    layout = np.empty((blocks[0].shape[0], at[-1]), np.uint8)
    filled = [j for j, span in enumerate(spans) if span]
    cells = np.dtype({"names": [f"c{j}" for j in filled], "formats": [f"V{spans[j]}" for j in filled],
                      "offsets": [at[j] for j in filled], "itemsize": at[-1]})
    rows = layout.view(cells).ravel()
    for j in filled:
        rows[f"c{j}"] = np.ascontiguousarray(blocks[j]).view(f"V{spans[j]}").ravel()
    for j in range(len(blocks)):
        layout[:, at[j + 1] - 1] = _LINE if j == len(blocks) - 1 else ord(separator)
    return layout.tobytes().translate(None, b"\0") if padded else layout.tobytes()


def _column_text(values: np.ndarray) -> tuple[np.ndarray, bool]:
    """``_right_aligned`` of a column; when its values span a range much smaller than the column (ids,
    counters: the usual int column), the texts of the range are made once and gathered row by row."""
    if values.size == 0:
        return _right_aligned(values)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo >= values.size // 4:   # as ``narrow_range``, with the bounds kept for the texts
        return _right_aligned(values)
    text, padded = _right_aligned(np.arange(lo, hi + 1, dtype=np.int64))
    rows = np.ascontiguousarray(text).view(f"V{text.shape[1]}").ravel()   # one fixed-size item a text
    return rows[values - lo].view(np.uint8).reshape(values.size, text.shape[1]), padded


def narrow_range(values: np.ndarray, span: int) -> bool:
    """Whether the values lie within fewer than ``span`` consecutive ints (their texts are then made once
    for the range and gathered)."""
    return values.size > 0 and int(values.max()) - int(values.min()) < span


_POWERS = np.array([10**k for k in range(1, 20)], np.uint64)   # a magnitude's digits: 1 + powers it reaches


def _right_aligned(values: np.ndarray) -> tuple[np.ndarray, bool]:
    """(text, padded): each value's decimal text right-aligned in a row of a uint8 matrix, zero bytes
    before it; whether any row has such padding (a shorter value, or a sign in the column but not the row)."""
    negative = values < 0
    magnitude = np.abs(values).astype(np.uint64)   # abs(-2**63) wraps to 2**63 as uint64: still exact
    widest = int(magnitude.max())
    places = len(str(widest))
    sign = int(bool(negative.any()))
    text = np.empty((values.size, places + sign), np.uint8)
    rest = magnitude.astype(np.uint32) if widest < 2**32 else magnitude   # 32-bit division is faster
    ten = rest.dtype.type(10)
    quotient = rest // ten
    np.add(rest - quotient * ten, _ZERO, out=text[:, -1], casting="unsafe")   # the units: always written
    for place in range(2, places + 1):   # then each place, a zero byte where the value has no such digit
        rest = quotient
        quotient = rest // ten
        digit = (rest - quotient * ten).astype(np.uint8) + np.uint8(_ZERO)
        np.multiply(digit, rest != 0, out=text[:, -place], casting="unsafe")
    if sign:
        text[:, 0] = 0
        rows = np.flatnonzero(negative)
        digits = np.searchsorted(_POWERS, magnitude[rows], side="right") + 1
        text[rows, text.shape[1] - 1 - digits] = _MINUS
    return text, bool(sign or len(str(int(magnitude.min()))) < places)
