"""Value kinds and their text forms: the one place that turns cells into typed constants and back.

A text cell is typed by its form only when it is the *canonical* spelling of a value (exactly
what the writers write), so every value reads back as it was written and no text changes value
on the way in: ``"007"`` and ``"1.50"`` stay strings. A string that would read as something else
is written quoted (``"\\"42\\""``), see docs/semantics.md.

>>> parse_cell("42"), parse_cell("1.5"), parse_cell("<http://x>"), parse_cell("007"), parse_cell('"42"')
(('int', 42), ('float', 1.5), ('iri', 'http://x'), ('string', '007'), ('string', '42'))
>>> format_value("iri", "http://x"), format_value("float", 2.0), format_value("string", "42")
('<http://x>', '2.0', '"42"')
"""

from __future__ import annotations

import math
import re

INT, FLOAT, STRING, IRI = 0, 1, 2, 3
KIND_CODES = {"int": INT, "float": FLOAT, "string": STRING, "iri": IRI}
KIND_NAMES = {code: name for name, code in KIND_CODES.items()}
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# Lenient number forms: what int() and float() of a string accept (docs/semantics.md, Expressions).
INT_PATTERN = r"-?[0-9]+"
FLOAT_PATTERN = r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?"
# Canonical cell forms (anchored): what the writers produce, so the only forms a reader types.
CANONICAL_INT = r"^(?:0|-?[1-9][0-9]*)$"
CANONICAL_FLOAT = r"^-?[0-9]+(?:\.[0-9]+(?:e[-+][0-9]+)?|e[-+][0-9]+)$"   # then checked against repr
IRI_CELL = r'^<[^<>"{}|^`\\\x00-\x20]*>$'        # the IRIREF of the language (no escapes)
QUOTED_CELL = r'^"(?:[^"\\]|\\[\\"tnr])*"$'      # a quoted string with \\ \" \t \n \r escapes
_INT_RE, _FLOAT_RE = re.compile(INT_PATTERN), re.compile(FLOAT_PATTERN)
_CANONICAL_INT, _CANONICAL_FLOAT = re.compile(CANONICAL_INT), re.compile(CANONICAL_FLOAT)
_IRI_CELL, _QUOTED_CELL = re.compile(IRI_CELL), re.compile(QUOTED_CELL)
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {v[1]: k for k, v in _ESCAPES.items()}


class Iri(str):
    """An IRI given from Python (``deltalog.IRI("http://x")``): a plain ``str`` is always a string."""

    __slots__ = ()

    def __new__(cls, text: str):
        if not _IRI_CELL.fullmatch(f"<{text}>"):
            raise ValueError(f"{text!r} is not an IRI (no spaces, <, >, \", {{, }}, |, ^, ` or \\)")
        return super().__new__(cls, text)

    def __repr__(self) -> str:
        return f"IRI({str(self)!r})"


class UnrepresentableValue(ValueError):
    """A value with no exact constant (an int beyond 64 bits, NaN, an infinity, None)."""


def parse_cell(text: str) -> tuple[str, object]:
    """The (kind, value) a text cell stands for (docs/semantics.md): canonical forms are typed,
    quoted strings unquoted, everything else is the string as written.

    An int beyond 64 bits written canonically is refused (UnrepresentableValue) rather than
    turned into a float or a string.
    """
    if _CANONICAL_INT.fullmatch(text):
        value = int(text)
        if not INT64_MIN <= value <= INT64_MAX:
            raise UnrepresentableValue(f"integer {text} does not fit 64 bits (quote it to keep it as a string)")
        return "int", value
    if _CANONICAL_FLOAT.fullmatch(text) and text != "-0.0" and repr(float(text)) == text:
        return "float", float(text)
    if _IRI_CELL.fullmatch(text):
        return "iri", text[1:-1]
    if _QUOTED_CELL.fullmatch(text):
        return "string", unescape(text[1:-1])
    return "string", text


def unescape(body: str) -> str:
    """The string inside a quoted cell, escapes undone."""
    return re.sub(r"\\(.)", lambda m: _UNESCAPES[m.group(1)], body) if "\\" in body else body


def quote(text: str) -> str:
    """A string as a quoted cell."""
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def format_value(kind: str, value: object) -> str:
    """The text cell written to files: ints as digits, floats as repr, IRIs in brackets, strings raw
    unless they would read back as another value (then quoted)."""
    if kind == "iri":
        return f"<{value}>"
    if kind == "float":
        return repr(float(value) + 0.0)
    if kind == "int":
        return str(value)
    text = str(value)
    return text if _reads_as_itself(text) else quote(text)


def _reads_as_itself(text: str) -> bool:
    if text == "" or any(c in text for c in "\t\n\r"):
        return False
    try:
        return parse_cell(text) == ("string", text)
    except UnrepresentableValue:
        return False


def check_number(kind: str, value) -> None:
    """Refuse a Python number with no exact constant (see UnrepresentableValue)."""
    if kind == "int" and not INT64_MIN <= value <= INT64_MAX:
        raise UnrepresentableValue(f"integer {value} does not fit 64 bits")
    if kind == "float" and not math.isfinite(value):
        raise UnrepresentableValue(f"float {value} is no constant (NaN and infinities are not values)")


def parse_number_text(text: str) -> tuple[str, object]:
    """int()/float() of a string: any decimal integer or float literal (not only canonical ones)."""
    if _INT_RE.fullmatch(text):
        value = int(text)
        return ("int", value) if INT64_MIN <= value <= INT64_MAX else ("float", float(value))
    if _FLOAT_RE.fullmatch(text):
        return "float", float(text) + 0.0
    return "string", text


def value_text(kind: str, value: object) -> str:
    """The text that concat() and str() use: the value itself (IRIs without brackets, no quoting)."""
    if kind == "float":
        return repr(float(value) + 0.0)
    return str(value)
