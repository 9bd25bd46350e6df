"""Value kinds and their text forms: the one place that turns cells into typed constants and back.

>>> parse_cell("42"), parse_cell("1.5"), parse_cell("<http://x>"), parse_cell("alice")
(('int', 42), ('float', 1.5), ('iri', 'http://x'), ('string', 'alice'))
>>> format_value("iri", "http://x"), format_value("float", 2.0)
('<http://x>', '2.0')
"""

from __future__ import annotations

import re

INT, FLOAT, STRING, IRI = 0, 1, 2, 3
KIND_CODES = {"int": INT, "float": FLOAT, "string": STRING, "iri": IRI}
KIND_NAMES = {code: name for name, code in KIND_CODES.items()}
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

INT_PATTERN = r"-?[0-9]+"
FLOAT_PATTERN = r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?"
_INT_RE = re.compile(INT_PATTERN)
_FLOAT_RE = re.compile(FLOAT_PATTERN)


def parse_cell(text: str) -> tuple[str, object]:
    """The (kind, value) a text cell stands for, following docs/semantics.md."""
    if _INT_RE.fullmatch(text):
        value = int(text)
        if INT64_MIN <= value <= INT64_MAX:
            return "int", value
        return "float", float(value)
    if _FLOAT_RE.fullmatch(text):
        return "float", float(text) + 0.0  # -0.0 is 0.0
    if len(text) >= 2 and text[0] == "<" and text[-1] == ">":
        return "iri", text[1:-1]
    return "string", text


def format_value(kind: str, value: object) -> str:
    """The text form written to files: ints as digits, floats as repr, strings raw, IRIs in brackets."""
    if kind == "iri":
        return f"<{value}>"
    if kind == "float":
        return repr(float(value))
    return str(value)


def value_text(kind: str, value: object) -> str:
    """The text that concat() and str() use: like format_value but IRIs without brackets."""
    return str(value) if kind == "iri" else format_value(kind, value)
