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

EXCERPT_WIDTH = 100
"""Characters of a source line shown under an error; longer lines are cut around the span."""


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
                lines += self._excerpt(text_lines[self.span.line - 1])
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _excerpt(self, text: str) -> list[str]:
        """The line and a caret under the span; a long line is cut to a window around the span."""
        column, width = self.span.column, 1
        if self.span.end_line == self.span.line and self.span.end_column > column:
            width = self.span.end_column - column
        start = max(0, column - 1 - EXCERPT_WIDTH // 2) if len(text) > EXCERPT_WIDTH else 0
        shown = text[start:start + EXCERPT_WIDTH]
        prefix = "..." if start else ""
        suffix = "..." if start + EXCERPT_WIDTH < len(text) else ""
        width = max(1, min(width, len(shown) - (column - 1 - start)))
        return [f"  {prefix}{shown}{suffix}", "  " + " " * (len(prefix) + column - 1 - start) + "^" * width]

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


class UsageError(DeltalogError, ValueError):
    """The API was called with arguments it cannot take (an unknown backend, algorithm, ragged rows).

    Also a ValueError, so callers that caught the untyped error before keep working."""


class UnknownPredicateError(QueryError, KeyError):
    """A predicate neither the program nor the data knows (also a KeyError, for dictionary-style lookups)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self.render()


class UndefinedPredicateWarning(DeltalogError):
    """A body predicate with no rules and no facts, or a fact file that matches no predicate:
    almost always a typo, and the reason for a silently empty result (an error under ``--strict``)."""

    kind = "warning"


class LimitExceededError(DeltalogError):
    """A run passed its ``max_facts`` or ``timeout`` limit; the materialisation was rolled back."""


class OutOfMemoryError(DeltalogError):
    """Evaluating a rule needed more memory than the machine has; the materialisation was rolled back."""


class NestingError(DeltalogError):
    """A program nests expressions, or lists body literals, beyond what deltalog evaluates."""
