"""The grammar, and syntax-error messages: what the parser expected, in words, at the offending token (Lark's
``UnexpectedInput`` turned into a :class:`~deltalog.errors.ParseError` with a span and notes)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from deltalog.errors import ParseError
from deltalog.syntax.ast import Span


@lru_cache(maxsize=1)
def grammar() -> Lark:
    """The LALR(1) parser of ``grammar.lark`` (its tables cached on disk by Lark: ``cache=True``)."""
    text = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer="contextual", propagate_positions=True, cache=True,
                maybe_placeholders=False, start=["start", "query", "fast_path_patterns"])

_QUIET = {"WS", "PERCENT_COMMENT", "SLASH_COMMENT", "GROUND_FACTS", "GF_FACT", "GF_CONST"}
_OPERATORS = {"EQ", "COMPOP", "PLUS", "MINUS", "STAR", "SLASH", "MOD"}
_AGGREGATES = {"COUNT", "SUM", "MIN", "MAX", "AVG", "MEDIAN"}
_DESCRIPTIONS = {
    "NAME": "a name", "UPRED": "a name", "WORD": "a name", "VAR": "a variable", "QVAR": "a variable",
    "ANON": "a variable", "INT": "a number", "FLOAT": "a number", "STRING": "a string", "IRIREF": "an IRI",
    "PNAME": "a prefixed name", "PNAME_NS": "a prefix such as 'ex:'", "LABEL": "a rule label",
    "FORMAT": "a format name", "$END": "end of input",
}
_LEXEME = re.compile(r'"(?:[^"\\\n]|\\.)*"?|<[^<>\s]*>|\?\w+|\w+|:-|[!<>=]=|\S')


def _describe(name: str) -> str:
    if name in _DESCRIPTIONS:
        return _DESCRIPTIONS[name]
    if name in _AGGREGATES:
        return "an aggregate function"
    pattern = grammar().get_terminal(name).pattern
    return f"'{pattern.value}'" if pattern.type == "str" else name.lower()


def _expected(names: Iterable[str]) -> str:
    names = {n for n in names if n not in _QUIET}
    if "NAME" in names and "VAR" not in names:  # a predicate position: keywords are just names there
        names -= _AGGREGATES
    operators = names & _OPERATORS if len(names & _OPERATORS) > 2 else set()
    words = sorted({_describe(n) for n in names - operators}, key=lambda d: (not d.startswith("'"), d))
    words += ["an operator"] if operators else []
    if not words:
        return ""
    return f"expected {words[0]}" if len(words) == 1 else f"expected one of: {', '.join(words)}"


def _accepted(error: UnexpectedInput, fallback: Iterable[str]) -> set[str]:
    parser = getattr(error, "interactive_parser", None)
    try:
        return set(parser.accepts()) if parser is not None else set(fallback)
    except Exception:  # accepts() re-runs the parser; never let it hide the real error
        return set(fallback)


def _token_error(error: UnexpectedToken, text: str, file: str) -> ParseError:
    token, names = error.token, _accepted(error, error.expected)
    notes: tuple[str, ...]
    if token.type == "$END":
        line, col = (token.end_line, token.end_column) if token.end_line else (token.line or 1, token.column or 1)
        span, found, notes = Span(file, line, col, line, col + 1), "end of input", ()
    else:
        match = _LEXEME.match(text, token.start_pos)
        assert match is not None   # a token starts with a non-blank character, which \S matches
        lexeme = match.group()
        span = Span(file, token.line, token.column, token.line, token.column + len(lexeme))
        found, notes = f"'{lexeme}'", _missing_dot_note(names, text, token.start_pos)
    return ParseError(f"unexpected {found}; {_expected(names)}".rstrip("; "), span, notes=notes)


def _missing_dot_note(names: set[str], text: str, start: int) -> tuple[str, ...]:
    """A hint when '.' would have fitted and the unexpected token starts its line."""
    first_on_line = not text[text.rfind("\n", 0, start) + 1:start].strip()
    return ("the previous statement may be missing its final '.'",) if "DOT" in names and first_on_line else ()


def _char_error(error: UnexpectedCharacters, text: str, file: str) -> ParseError:
    span = Span(file, error.line, error.column, error.line, error.column + 1)
    if error.char == '"':
        return ParseError("unterminated string", span, notes=('a string ends with " on the same line',))
    if error.char == "@":
        match = re.match(r"@\w*", text[error.pos_in_stream:])
        assert match is not None   # the text there starts with the "@"
        word = match.group()
        return ParseError(f"unknown directive '{word}'", span,
                          notes=("directives: @prefix @input @output @decl @name",))
    expected = _expected(_accepted(error, error.allowed or ()))
    return ParseError(f"unexpected character {error.char!r}" + (f"; {expected}" if expected else ""), span)


def syntax_error(error: UnexpectedInput, text: str, file: str) -> ParseError:
    if isinstance(error, UnexpectedToken):
        return _token_error(error, text, file)
    if isinstance(error, UnexpectedCharacters):
        return _char_error(error, text, file)
    return ParseError(f"syntax error: {error}", Span(file, getattr(error, "line", 0), getattr(error, "column", 0)))
