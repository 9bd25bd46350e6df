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

import re
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from deltalog.syntax.ast import ConstantKind

Value = Union[int, float, str]
"""The Python value of a constant (an IRI or a literal is valued by its text)."""

INT, FLOAT, STRING, IRI, LITERAL = 0, 1, 2, 3, 4
KIND_CODES = {"int": INT, "float": FLOAT, "string": STRING, "iri": IRI, "literal": LITERAL}
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
# A well-formed BCP 47 language tag in lower case (RFC 5646 langtag or private use; RDF readers refuse others)
LANGUAGE_TAG = (r"(?:(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|[0-9]{3}))?"
                r"(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*(?:-[0-9a-wy-z](?:-[a-z0-9]{2,8})+)*"
                r"(?:-x(?:-[a-z0-9]{1,8})+)?|x(?:-[a-z0-9]{1,8})+)")
# An RDF literal with a language tag or a datatype, in its one canonical spelling (which is also its
# N-Triples term): the quoted lexical form, then @tag in lower case or ^^<datatype IRI>.
LITERAL_CELL = (r'^"((?:[^"\\]|\\[\\"tnr])*)"(?:@(' + LANGUAGE_TAG
                + r')|\^\^<([^<>"{}|^`\\\x00-\x20]*)>)$')
XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING, XSD_INTEGER, XSD_DOUBLE = XSD + "string", XSD + "integer", XSD + "double"
LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_INT_RE, _FLOAT_RE = re.compile(INT_PATTERN), re.compile(FLOAT_PATTERN)
_CANONICAL_INT, _CANONICAL_FLOAT = re.compile(CANONICAL_INT), re.compile(CANONICAL_FLOAT)
_IRI_CELL, _QUOTED_CELL, _LITERAL_CELL = re.compile(IRI_CELL), re.compile(QUOTED_CELL), re.compile(LITERAL_CELL)
_LANGUAGE = re.compile(LANGUAGE_TAG)
_TYPED_STARTS = frozenset('-0123456789<"')   # how an int, a float, an IRI, a literal or a quoted string starts
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
    if text[:1] not in _TYPED_STARTS:
        return "string", text   # the usual name: no other form starts so (io/cells.NOT_PLAIN, column-wise)
    if _CANONICAL_INT.fullmatch(text):
        value = int(text)
        if not INT64_MIN <= value <= INT64_MAX:
            raise UnrepresentableValue(f"integer {text} does not fit 64 bits (quote it to keep it as a string)")
        return "int", value
    if _CANONICAL_FLOAT.fullmatch(text) and text != "-0.0" and repr(float(text)) == text:
        return "float", float(text)
    if _IRI_CELL.fullmatch(text):
        return "iri", text[1:-1]
    if _LITERAL_CELL.fullmatch(text) and is_literal_cell(text):
        return "literal", text
    if _QUOTED_CELL.fullmatch(text):
        return "string", unescape(text[1:-1])
    return "string", text


def rdf_literal(lexical: str, language: str | None = None,
                datatype: str | None = None) -> tuple[ConstantKind, Value]:
    """The constant an RDF literal stands for (docs/semantics.md): a plain or ``xsd:string`` literal is
    a string, an ``xsd:integer`` in canonical form within 64 bits an int, an ``xsd:double`` whose
    lexical form is a canonical float a float; any other literal keeps its lexical form and its
    language tag (lower-cased) or datatype as a ``literal``, valued by its canonical text
    ``"chat"@fr`` / ``"1"^^<http://www.w3.org/2001/XMLSchema#int>``.

    >>> rdf_literal("chat", "FR"), rdf_literal("1", None, XSD + "int")[1], rdf_literal("1", None, XSD_INTEGER)
    (('literal', '"chat"@fr'), '"1"^^<http://www.w3.org/2001/XMLSchema#int>', ('int', 1))
    """
    if language:
        if not _LANGUAGE.fullmatch(language.lower()):
            raise ValueError(f"{language!r} is not a well-formed language tag (BCP 47)")
        return "literal", f"{quote(lexical)}@{language.lower()}"
    if datatype is None or datatype == XSD_STRING:
        return "string", lexical
    if datatype == LANG_STRING or not _IRI_CELL.fullmatch(f"<{datatype}>"):
        raise ValueError(f"{datatype!r} is no datatype IRI of a literal without a language tag")
    if datatype == XSD_INTEGER and _CANONICAL_INT.fullmatch(lexical) and INT64_MIN <= int(lexical) <= INT64_MAX:
        return "int", int(lexical)
    if datatype == XSD_DOUBLE and _CANONICAL_FLOAT.fullmatch(lexical) and lexical != "-0.0" \
            and repr(float(lexical)) == lexical:
        return "float", float(lexical)
    return "literal", f"{quote(lexical)}^^<{datatype}>"


def is_literal_cell(text: str) -> bool:
    """Whether a cell is the canonical text of a literal (not of a string, int or float, not malformed)."""
    match = _LITERAL_CELL.fullmatch(text)
    try:
        return match is not None and rdf_literal(unescape(match[1]), match[2], match[3]) == ("literal", text)
    except ValueError:   # ^^rdf:langString without a tag
        return False


def literal_parts(text: str) -> tuple[str, str | None, str | None]:
    """(lexical form, language tag, datatype) of a literal's canonical text."""
    match = _LITERAL_CELL.fullmatch(text)
    assert match is not None, f"not the text of a literal: {text!r}"
    return unescape(match[1]), match[2], match[3]


def unescape(body: str) -> str:
    """The string inside a quoted cell, escapes undone."""
    return re.sub(r"\\(.)", lambda m: _UNESCAPES[m.group(1)], body) if "\\" in body else body


def quote(text: str) -> str:
    """A string as a quoted cell."""
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def format_value(kind: str, value: Value) -> str:
    """The text cell written to files: ints as digits, floats as repr, IRIs in brackets, strings raw
    unless they would read back as another value (then quoted)."""
    if kind == "iri":
        return f"<{value}>"
    if kind == "float":
        return repr(float(value) + 0.0)
    if kind in ("int", "literal"):
        return str(value)
    text = str(value)
    return text if _reads_as_itself(text) else quote(text)


def _reads_as_itself(text: str) -> bool:
    if text == "" or "\t" in text or "\n" in text or "\r" in text:
        return False
    try:
        return parse_cell(text) == ("string", text)
    except UnrepresentableValue:
        return False


def parse_number_text(text: str) -> tuple[str, Value]:
    """int()/float() of a string: any decimal integer or float literal (not only canonical ones)."""
    if _INT_RE.fullmatch(text):
        value = int(text)
        return ("int", value) if INT64_MIN <= value <= INT64_MAX else ("float", float(value))
    if _FLOAT_RE.fullmatch(text):
        return "float", float(text) + 0.0
    return "string", text


def value_text(kind: str, value: Value) -> str:
    """The text that concat() and str() use: the value itself (IRIs without brackets, a literal's
    lexical form, no quoting)."""
    if kind == "float":
        return repr(float(value) + 0.0)
    if kind == "literal":
        return literal_parts(str(value))[0]
    return str(value)
