"""Rows and columns of a delimited text file parsed in Python, without Polars.

The exact path of io/delimited.py (blank lines skipped, empty cells kept, a ragged row or bad
UTF-8 reported with its line) and the whole reader of small text files (io/text_table.py):
both take their cells from ``text_columns``, so they agree cell for cell.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from deltalog.errors import InputError
from deltalog.io.formats import Dialect
from deltalog.syntax.ast import Span


def read_bytes(path: str | os.PathLike) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def ragged(file: str, line: int, fields: int, expected: int) -> InputError:
    return InputError(f"row has {fields} fields, expected {expected}", Span(file, line, 1))


def rows(text: str, dialect: Dialect, file: str):
    """(1-based line, fields) of every non-blank row of ``text``; a header row is included."""
    if dialect.quote is None:
        for number, line in enumerate(text.split("\n"), 1):
            line = line.removesuffix("\r")
            if line:
                yield number, line.split(dialect.separator)
        return
    import csv   # CSV files only (start-up time)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=dialect.separator, quotechar=dialect.quote,
                        strict=True)   # a malformed quoted cell is refused, never read some lenient way
    start = 1
    try:
        for fields in reader:
            if fields:
                yield start, fields
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"malformed CSV row: {exc}", Span(file, start, 1)) from None


def decode_text(data: bytes, file: str) -> str:
    """The file's text (a UTF-8 byte order mark dropped); bad UTF-8 is refused, naming its line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("file is not valid UTF-8", Span(file, line, 1)) from None


def text_columns(data: bytes, file: str, dialect: Dialect, arity: int | None) -> list[list[str]]:
    """Every data row's cells, by column (``arity`` columns, else as many as the header or else the
    first data row has); a row of another width is refused, naming its line."""
    parsed = rows(decode_text(data, file), dialect, file)
    if dialect.header:
        header = next(parsed, None)
        if arity is None and header is not None:
            arity = len(header[1])
    columns: list[list[str]] | None = None if arity is None else [[] for _ in range(arity)]
    for line, fields in parsed:
        if columns is None:
            arity, columns = len(fields), [[] for _ in fields]
        if len(fields) != arity:
            raise ragged(file, line, len(fields), len(columns))
        for column, cell in zip(columns, fields):
            column.append(cell)
    return columns or []
