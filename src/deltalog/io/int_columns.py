"""Delimited files whose every cell is a canonical int, read and written with NumPy alone.

The usual fact file is a TSV of ids. Such a file is parsed here over its bytes (separator
positions, then the digits of all cells at once, one pass per digit place) and such a relation
is written back the same way, so that a run over int data never imports Polars (~0.1 s of a
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

MAX_DIGITS = 18   # 10**18 - 1 < 2**63 - 1: a cell this short always fits 64 bits
_ZERO, _MINUS, _LINE = 48, 45, 10


class ColumnTable:
    """A decoded table c0..ck held without Polars, a column per array (``IntTable``, and the small text
    files' ``io/text_table.TextTable``); ``to_polars`` converts it when Polars is needed."""

    def __init__(self, arrays: list) -> None:
        self.arrays = arrays
        self.height = len(arrays[0]) if arrays else 0

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
    """A decoded table c0..ck whose columns all hold ints, as NumPy int64 arrays (no Polars)."""

    def __init__(self, arrays: list[np.ndarray]) -> None:
        super().__init__([np.ascontiguousarray(a, np.int64) for a in arrays])

    def row_chunks(self, rows: int) -> list[IntTable]:
        """The table in consecutive slices of ``rows`` rows (views, no copies)."""
        return [IntTable([a[at:at + rows] for a in self.arrays]) for at in range(0, self.height, rows)]


def int_rows(rows: list[tuple]) -> IntTable | None:
    """Rows of Python values (tuples of one width) whose every value is an int in 64 bits, as an
    IntTable: NumPy arrays straight from the ints, the table an int file gives, which the local
    backend encodes without Polars (an update's 1,000 facts in 26 tables: ~0.1 ms instead of ~1 ms
    of Series and DataFrame construction and conversion back). None for any other rows (io/python_rows.py
    types them, and names a value that does not fit), and for no rows."""
    if not rows or not rows[0]:
        return None
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


def read_int_cells(data: bytes, separator: str, arity: int | None) -> IntTable | None:
    """The table of a file of canonical ints in rows of ``arity`` cells (of the first row's number of
    cells when None), or None when the file is anything else (see the module docstring)."""
    if not data or len(separator) != 1 or not plausible(data, separator):
        return None   # a byte that is no digit, '-' or terminator
    padded = _padded(data)
    buf = padded[_PAD:]
    sep = ord(separator)
    ends = np.flatnonzero((buf == sep) | (buf == _LINE))   # the byte after each cell
    first_line = int(np.argmax(buf[ends] == _LINE))
    arity = arity if arity is not None else first_line + 1
    if arity < 1 or ends.size % arity or not regular_rows(buf[ends].reshape(-1, arity), sep):
        return None
    values = _cell_values(padded, ends)
    if values is None:
        return None
    return IntTable(list(values.reshape(-1, arity).T))


def _padded(data: bytes) -> np.ndarray:
    """The bytes of ``data`` after _PAD bytes '0' (so that the 8-byte words ending at the first cells'
    ends exist, and read as leading zeros) and ending in a line feed (one is added if it does not)."""
    padded = np.empty(_PAD + len(data) + (not data.endswith(b"\n")), np.uint8)
    padded[:_PAD] = _ZERO
    padded[_PAD:_PAD + len(data)] = np.frombuffer(data, np.uint8)
    padded[-1] = _LINE
    return padded


def plausible(data: bytes, separator: str) -> bool:
    """No byte but digits, '-', the separator and line feeds in ``data`` (on a file's first bytes: a
    cheap refusal of text files before the rest is read)."""
    return not data.translate(None, b"0123456789-\n" + separator.encode())


def regular_rows(terminators: np.ndarray, sep: int) -> bool:
    """Every row has its cells separated by ``sep`` and ends in a line feed."""
    return bool((terminators[:, :-1] == sep).all() and (terminators[:, -1] == _LINE).all())


def _cell_values(padded: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The int of each cell ``[previous end + 1, end)`` (offsets in ``padded[_PAD:]``), or None if any
    cell is not a canonical int (the caller has checked that every byte is a digit, '-' or a terminator)."""
    buf = padded[_PAD:]
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    digits = ends - starts
    if not digits.all():
        return None   # an empty cell or a blank line
    minus = int(np.count_nonzero(buf == _MINUS))
    negative = buf[starts] == _MINUS if minus else np.zeros(ends.size, bool)
    digits -= negative
    if int(np.count_nonzero(negative)) != minus or not digits.all() or int(digits.max()) > MAX_DIGITS:
        return None   # a '-' inside a cell, a lone '-', or a cell that may not fit 64 bits
    lead = buf[starts + negative]
    if ((lead == _ZERO) & ((digits > 1) | negative)).any():
        return None   # 007 or -0: not the canonical form, a string to the general reader
    return _accumulate(padded, ends, digits, negative)


_PAD = 24   # bytes before the data: the three 8-byte words of an 18-digit cell that starts the file
_KEEP = np.array([0] + [2**64 - 2**(8 * (8 - d)) for d in range(1, 9)], np.uint64)   # the top d bytes of a word
_NIBBLES, _LANES = np.uint64(0x0F0F0F0F0F0F0F0F), np.uint64(0x000000FF000000FF)
_HUNDREDS, _UNITS = np.uint64(100 + (1_000_000 << 32)), np.uint64(1 + (10_000 << 32))


def _accumulate(padded: np.ndarray, ends: np.ndarray, digits: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """All cells at once, up to eight digits per step: the 8 bytes before each cell's end read as one
    little-endian word (an unaligned view: no copy), the bytes before the cell masked off (they read as
    leading zeros) and its digits combined by SWAR multiplications (Lemire, "Faster integer parsing"
    (2018), the 8-digit kernel of simdjson); a cell of 9-18 digits takes two or three words."""
    words = np.ndarray((padded.size - 7,), "<u8", padded, 0, (1,))
    at = ends + (_PAD - 8)
    scratch = np.empty(ends.size, np.uint64)
    value = _eight_digits(words[at], np.minimum(digits, 8), scratch).view(np.int64)
    for step in range(1, (int(digits.max()) + 7) // 8):
        at -= 8
        more = _eight_digits(words[at], np.clip(digits - 8 * step, 0, 8), scratch).view(np.int64)
        value += more * 10 ** (8 * step)
    np.negative(value, out=value, where=negative)
    return value


def _eight_digits(word: np.ndarray, count: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """The number written by the last ``count`` (0-8) bytes of each word (ASCII digits, the first the
    least significant byte), in place: the digit pairs, then the quadruples, then the eight."""
    np.take(_KEEP, count, out=scratch, mode="clip")   # counts are 0-8; "raise" would buffer the output first
    word &= scratch
    word &= _NIBBLES   # each digit's value, 0 in the masked bytes
    np.right_shift(word, np.uint64(8), out=scratch)
    word *= np.uint64(10)
    word += scratch   # each 16-bit lane's low byte: its two digits' value
    np.right_shift(word, np.uint64(16), out=scratch)
    scratch &= _LANES
    scratch *= _UNITS
    word &= _LANES
    word *= _HUNDREDS
    word += scratch
    word >>= np.uint64(32)
    return word


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
