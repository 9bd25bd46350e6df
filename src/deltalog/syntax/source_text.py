"""The text of a program file (``read_source``), read without the parser (and so without Lark): a run
whose program's AST is cached (syntax/parsed_cache.py) needs the text, not the parser."""

from __future__ import annotations

import os
from pathlib import Path

from deltalog.errors import InputError, ParseError
from deltalog.syntax.ast import Span


def read_source(path: str | os.PathLike) -> str:
    """The text of a program file; a missing, unreadable or non-UTF-8 file is an InputError naming the place."""
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"no such program file: {name}", Span(name)) from None
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}", Span(name)) from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError("the program is UTF-16; deltalog reads programs in UTF-8", Span(name),
                         notes=("convert it, e.g. iconv -f UTF-16 -t UTF-8",))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _decode_error(data, error, name) from None


def _decode_error(data: bytes, error: UnicodeDecodeError, name: str) -> ParseError:
    """Where the first invalid byte is, as a line and a column (in characters of the valid text before it)."""
    before = data[:error.start].decode("utf-8-sig", errors="replace")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    return ParseError(f"invalid UTF-8 (byte 0x{data[error.start]:02x}); deltalog reads programs in UTF-8",
                      Span(name, line, column, line, column + 1))
