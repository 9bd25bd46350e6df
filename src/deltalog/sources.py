"""Where a Reasoner's inputs come from: a program (text, a path, a Program), a backend (a name or an
instance) and rows of Python values, each checked so that a caller's mistake is a typed error."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deltalog.errors import UsageError
from deltalog.syntax.statements import Program
from deltalog.syntax.parsed_cache import parse_cached
from deltalog.syntax.source_text import read_source

if TYPE_CHECKING:
    from deltalog.backends.base import Backend


def make_backend(backend: str | Backend) -> Backend:
    """A backend instance from its name (the Spark one is imported only when asked for)."""
    if not isinstance(backend, str):
        return backend
    if backend == "local":
        from deltalog.backends.local.backend import LocalBackend
        return LocalBackend()
    if backend == "spark":
        from deltalog.backends.spark.backend import SparkBackend
        return SparkBackend()
    raise UsageError(f"unknown backend {backend!r} (available: local, spark)")


def read_program(program: str | os.PathLike | Program) -> tuple[Program, str | None, Path | None]:
    """A Program from text, a path or a Program; also its source text and directory (for errors, @input).
    A program file's AST comes from the parse cache when the file is unchanged (syntax/parsed_cache.py)."""
    if isinstance(program, Program):
        return program, None, None
    if not isinstance(program, (str, os.PathLike)):
        raise UsageError(f"a program is text, a path or a Program, not {type(program).__name__}")
    if isinstance(program, os.PathLike) or _looks_like_path(program):
        path = Path(program)
        text = read_source(path)
        return parse_cached(text, os.fspath(program)), text, path.parent
    from deltalog.syntax.parser import parse
    return parse(program), program, None


def _looks_like_path(text: str) -> bool:
    """A string naming a .dl file (program text never ends in '.dl' without an atom's parentheses)."""
    return text.strip().endswith(".dl") and "\n" not in text and ("(" not in text or Path(text).exists())


def rows_of(predicate: str, data: Any) -> list[tuple]:
    """Rows of Python values as tuples of one width, or a UsageError naming the first bad row."""
    try:
        rows = list(map(tuple, data))
    except TypeError:
        raise UsageError(f"the facts of {predicate} must be a path, a table or rows (tuples of values), "
                         f"not {type(data).__name__} of scalars") from None
    if len(set(map(len, rows))) > 1:   # the widths are compared in C; the loop only names the bad row
        for number, row in enumerate(rows[1:], 2):
            if len(row) != len(rows[0]):
                raise UsageError(f"row {number} of {predicate} has {len(row)} values, row 1 has {len(rows[0])}")
    return rows
