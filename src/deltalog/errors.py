"""Typed exceptions for every user-facing failure, rendered as ``file:line:col: message`` plus a caret line.

>>> from deltalog.syntax.ast import Span
>>> err = UnsafeVariableError("variable 'Z' occurs only in the head", Span("p.dl", 1, 9, 1, 10))
>>> print(err.render("p(X, Y, Z) :- e(X, Y)."))
p.dl:1:9: error: variable 'Z' occurs only in the head
  p(X, Y, Z) :- e(X, Y).
          ^
"""

from __future__ import annotations

from deltalog.syntax.ast import NO_SPAN, Span


class DeltalogError(Exception):
    """Base class: a message, where it happened (a span, possibly unknown), and optional notes."""

    kind = "error"

    def __init__(self, message: str, span: Span = NO_SPAN, *, notes: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.span = span
        self.notes = notes

    def location(self) -> str:
        if self.span.line:
            return str(self.span)
        return "" if self.span.file == "<string>" else self.span.file

    def render(self, source: str | None = None) -> str:
        """The message with its location and, when the source text is known, the line and a caret."""
        where = self.location()
        lines = [f"{where}: {self.kind}: {self.message}" if where else f"{self.kind}: {self.message}"]
        if source is not None and self.span.line:
            text_lines = source.splitlines()
            if 0 < self.span.line <= len(text_lines):
                text = text_lines[self.span.line - 1]
                lines.append(f"  {text}")
                width = 1
                if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                    width = self.span.end_column - self.span.column
                lines.append("  " + " " * (self.span.column - 1) + "^" * max(1, width))
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class ParseError(DeltalogError):
    """The program text does not match the grammar."""


class UnsafeVariableError(DeltalogError):
    """A variable is not bound by a positive body atom where it must be."""


class ArityError(DeltalogError):
    """A predicate is used with two different arities."""


class StratificationError(DeltalogError):
    """Negation or aggregation through recursion: the program has no stratification."""


class UnknownFunctionError(DeltalogError):
    """An expression calls a function deltalog does not know (or with the wrong number of arguments)."""


class TypeCheckError(DeltalogError):
    """An expression is applied to values of the wrong type (e.g. arithmetic on a string)."""


class DeclarationError(DeltalogError):
    """A ``@decl`` is malformed: declared twice, an unknown type, an attribute name used twice."""


class InputError(DeltalogError):
    """A fact file cannot be read, or holds rows that do not fit the predicate."""


class QueryError(DeltalogError):
    """A query atom is malformed or names an unknown predicate."""
