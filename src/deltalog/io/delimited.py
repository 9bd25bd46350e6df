"""Delimited text fact files (TSV/.facts and CSV, no header or with one) read into decoded tables c0..ck.

A sample of the file is parsed first; when its rows are regular, Polars reads every cell as text,
otherwise (ragged rows, a header not on the first line, empty cells, bad UTF-8) Python parses the
whole file, so that a bad row is reported with its line and field. Columns are then typed by
form (``io/cells.py``) or by a ``@decl`` (``io/declared.py``).
"""

from __future__ import annotations

import os
from functools import partial

import numpy as np
import polars as pl

from deltalog.errors import InputError
from deltalog.io.cells import classify
from deltalog.storage.values import FLOAT, INT, UnrepresentableValue
from deltalog.io.declared import BadCell, text_column
from deltalog.io.formats import DIALECTS, Dialect
from deltalog.io.text_rows import read_bytes, rows, text_columns
from deltalog.syntax.ast import Span
from deltalog.syntax.statements import Declaration

SAMPLE_BYTES, SAMPLE_ROWS = 1 << 16, 1000
_LINE_FEED, _CARRIAGE_RETURN = 10, 13


__all__ = ["DIALECTS", "Dialect", "empty_table", "read_delimited"]


def read_delimited(path: str | os.PathLike, dialect: Dialect, arity: int | None,
                   decl: Declaration | None = None) -> pl.DataFrame:
    """One text file in ``dialect`` (see ``deltalog.io.readers.read_table``)."""
    data = read_bytes(path)
    typing = None if decl is None else partial(_type_declared, decl=decl, data=data, dialect=dialect)
    return _read_text(data, str(path), dialect, arity, typing)


def empty_table(arity: int | None) -> pl.DataFrame:
    return pl.DataFrame(schema={f"c{i}": pl.String for i in range(arity or 0)})


def _sample(data: bytes, dialect: Dialect, file: str) -> tuple[list[tuple[int, list[str]]], int]:
    """The first rows of the file, parsed in Python (they fix the arity and hint at column types),
    and the number of bytes they were taken from."""
    end = len(data) if len(data) <= SAMPLE_BYTES else data.rfind(b"\n", 0, SAMPLE_BYTES) + 1
    if end <= 0:
        end = data.find(b"\n") + 1 or len(data)
    sample: list[tuple[int, list[str]]] = []
    try:
        for row in rows(data[:end].decode("utf-8-sig", errors="replace"), dialect, file):
            sample.append(row)
            if len(sample) > SAMPLE_ROWS:
                break
    except InputError:
        if end == len(data):
            raise   # the sample is the whole file: its error is the file's
        # else a quoted field may run past the sample: the full read decides
    return sample, end


def _read_text(data: bytes, file: str, dialect: Dialect, arity: int | None, typing=None) -> pl.DataFrame:
    """A text file's cells as columns c0..ck, typed by ``typing(df, file)`` (default: by form)."""
    type_columns = typing or _type_by_form
    try:
        sample, end = _sample(data, dialect, file)
    except InputError:   # a malformed whole file: the Python path names its first bad row, ragged or not
        return type_columns(_read_python(data, file, dialect, arity), file)
    if dialect.header and sample:
        arity = arity if arity is not None else len(sample[0][1])
        if sample[0][0] != 1:
            return type_columns(_read_python(data, file, dialect, arity), file)
        sample = sample[1:]
    if not sample:
        if data[end:].strip():
            return type_columns(_read_python(data, file, dialect, arity), file)
        return empty_table(arity)
    expected = arity if arity is not None else len(sample[0][1])
    if any(len(fields) != expected for _, fields in sample):
        return type_columns(_read_python(data, file, dialect, expected), file)
    schema = {f"c{j}": pl.String for j in range(expected)}
    df = None if _lone_carriage_return(data) or not quotes_well_formed(data, dialect) else \
        _read_polars(data, dialect, schema)
    if df is None or _has_nulls(df):
        df = _read_python(data, file, dialect, expected)
    return type_columns(df, file)


def _lone_carriage_return(data: bytes) -> bool:
    """Whether a carriage return stands anywhere but before a line feed: Polars drops one that ends a
    cell (``x\\r<TAB>0`` reads as ``x``), the Python path keeps it as the cell's last character."""
    return data.count(b"\r") != data.count(b"\r\n")


def quotes_well_formed(data: bytes, dialect: Dialect) -> bool:
    r"""Whether every quote of a CSV file stands where RFC 4180 allows it, checked over the quotes' byte
    positions alone. Polars reads a malformed quoted cell leniently and silently (``"a"b`` as ``ab``);
    the Python path refuses it with its line (``csv.reader(strict=True)``), so a file that fails here
    goes there.

    Outside a quoted cell the number of quotes before a position is even, inside it odd (an opening
    and a closing quote, and pairs for the quotes a cell holds), so the k-th quote (from 0) is: the
    second of a pair when k is even and it follows quote k-1 directly; else an opening one when k is
    even, which must start a cell; a closing one when k is odd and no quote follows it directly,
    which must end a cell.

    >>> csv = DIALECTS["csv"]
    >>> [quotes_well_formed(t, csv) for t in (b'a,"b ""c"" d"\n', b'"x\ny",""\r\n', b'"a"b\n', b'a"b\n', b'"a\n')]
    [True, True, False, False, False]
    """
    if dialect.quote is None or dialect.quote.encode() not in data:
        return True
    buf = np.frombuffer(data, np.uint8)
    at = np.flatnonzero(buf == ord(dialect.quote))
    if at.size % 2:
        return False   # a quoted cell runs to the end of the file
    odd = np.arange(at.size) % 2 == 1
    followed = np.zeros(at.size, bool)
    followed[:-1] = at[1:] == at[:-1] + 1
    pair_first = odd & followed
    pair_second = np.zeros(at.size, bool)
    pair_second[1:] = pair_first[:-1]
    separator, start = ord(dialect.separator), 3 if data.startswith(b"\xef\xbb\xbf") else 0
    opening, closing = at[~odd & ~pair_second], at[odd & ~pair_first]
    before = buf[np.maximum(opening - 1, 0)]
    after = buf[np.minimum(closing + 1, buf.size - 1)]
    return bool(np.all((opening == start) | (before == separator) | (before == _LINE_FEED))
                and np.all((closing == buf.size - 1) | (after == separator) | (after == _LINE_FEED)
                           | (after == _CARRIAGE_RETURN)))


def _has_nulls(df: pl.DataFrame) -> bool:
    return df.width > 0 and any(df.null_count().row(0))


def _read_polars(data: bytes, dialect: Dialect, schema: dict) -> pl.DataFrame | None:
    """Read every cell as text with Polars (typing is ours, see _type_by_form); None when Polars cannot."""
    try:
        return pl.read_csv(
            data, has_header=False, separator=dialect.separator, quote_char=dialect.quote,
            skip_rows=1 if dialect.header else 0, schema=schema, truncate_ragged_lines=False,
            raise_if_empty=False,
        )
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        return None


def _read_python(data: bytes, file: str, dialect: Dialect, arity: int | None) -> pl.DataFrame:
    """The slow, exact path (blank lines, empty cells, errors): parse every row in Python."""
    columns = text_columns(data, file, dialect, arity)
    return pl.DataFrame({f"c{j}": pl.Series(col, dtype=pl.String) for j, col in enumerate(columns)})


def _type_by_form(df: pl.DataFrame, file: str) -> pl.DataFrame:
    """Int64 (Float64) for a column whose cells are all canonical ints (floats), else the text cells
    (the engine types each one as docs/semantics.md says); a canonical int beyond 64 bits is refused."""
    return df.with_columns([_typed(df[name], file) for name in df.columns if df[name].dtype == pl.String])


def _typed(column: pl.Series, file: str) -> pl.Series:
    try:
        kinds = classify(column)
    except UnrepresentableValue as exc:
        raise InputError(f"{file}: column {int(column.name[1:]) + 1}, {exc}") from None
    if column.len() and (kinds["kind"] == INT).all():
        return kinds["int"].rename(column.name)
    if column.len() and (kinds["kind"] == FLOAT).all():
        return kinds["float"].rename(column.name)
    return column


def _type_declared(df: pl.DataFrame, file: str, *, decl: Declaration, data: bytes, dialect: Dialect) -> pl.DataFrame:
    """Columns typed by the declaration (``any`` ones by form); a bad cell is named by line and column."""
    columns = []
    for j, attribute in enumerate(decl.attributes):
        if attribute.type == "any":
            columns.append(_typed(df[f"c{j}"], file))
            continue
        try:
            columns.append(text_column(df[f"c{j}"], attribute.type))
        except BadCell as bad:
            line, column, width = _locate(data, dialect, file, bad.row, j)
            raise InputError(f"{bad}: {decl.predicate}.{attribute.name} (column {j + 1}) is declared "
                             f"{attribute.type}", Span(file, line, column, line, column + width)) from None
    return pl.DataFrame(columns) if columns else df


def _locate(data: bytes, dialect: Dialect, file: str, row: int, field: int) -> tuple[int, int, int]:
    """(line, 1-based character column, width) of a data row's field: the file is scanned again (errors only)."""
    parsed = rows(data.decode("utf-8-sig", errors="replace"), dialect, file)
    if dialect.header:
        next(parsed, None)
    for index, (line, fields) in enumerate(parsed):
        if index == row:
            text = data.decode("utf-8-sig", errors="replace").split("\n")[line - 1]
            return line, _field_start(text, dialect, field), max(1, len(fields[field]))
    return 0, 0, 0


def _field_start(text: str, dialect: Dialect, field: int) -> int:
    """The 1-based character column where field ``field`` of a row starts (separators in quotes skipped)."""
    count, inside = 0, False
    for i, char in enumerate(text):
        if count == field:
            return i + 1
        if char == dialect.quote:
            inside = not inside
        elif char == dialect.separator and not inside:
            count += 1
    return len(text) + 1
