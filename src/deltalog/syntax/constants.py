"""Constants and ground facts as the parser reads them: escapes, numbers (64-bit ints), IRIs and
prefixed names, RDF literals, and the fast path that splits runs of one-line ground facts with the
grammar's own ``GF_FACT``/``GF_CONST`` patterns."""

from __future__ import annotations

import re
from functools import lru_cache

from lark import Token

from deltalog.errors import ParseError
from deltalog.storage.values import rdf_literal
from deltalog.syntax.ast import Atom, Constant, ConstantKind, Span
from deltalog.syntax.statements import Fact
from deltalog.syntax.messages import grammar

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_ESCAPE = re.compile(r"\\(.)")
_INT_TEXT = re.compile(r"-?[0-9]+")
_LITERAL_TEXT = re.compile(r'(".*")(?:@(.+)|\^\^(.+))', re.S)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@lru_cache(maxsize=1)
def _fast_patterns() -> tuple[re.Pattern, re.Pattern]:
    """The item pattern (a fact, a newline, or a gap) and the argument pattern for GROUND_FACTS runs."""
    lark = grammar()
    fact, const = (lark.get_terminal(n).pattern.to_regexp() for n in ("GF_FACT", "GF_CONST"))
    item = re.compile(rf"(?P<fact>{fact})|(?P<nl>\n)|[ \t\f\r]+|%[^\n]*|//[^\n]*")
    return item, re.compile(rf"[ \t]*(?P<c>{const})[ \t]*(?P<sep>[,)])")


# ---------------------------------------------------------------- constants


def unescape(body: str, span: Span) -> str:
    """Decode the escapes \\" \\\\ \\n \\t \\r of a string literal's body; anything else is an error."""
    def replace(match: re.Match) -> str:
        if match.group(1) not in _ESCAPES:
            at = Span(span.file, span.line, span.column + 1 + match.start(), span.line, span.column + 3 + match.start())
            raise ParseError(f"unknown escape sequence '\\{match.group(1)}' in a string", at,
                             notes=('strings know the escapes \\" \\\\ \\n \\t and \\r',))
        return _ESCAPES[match.group(1)]
    return _ESCAPE.sub(replace, body) if "\\" in body else body


def number(text: str, span: Span) -> Constant:
    if not _INT_TEXT.fullmatch(text):
        return Constant(float(text), "float", span)
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ParseError(f"integer {text} is outside the 64-bit range", span)
    return Constant(value, "int", span)


def constant(text: str, span: Span, prefixes: dict[str, str]) -> Constant:
    """A constant from its literal text: a string, an IRI, a prefixed name, a symbol or a number."""
    first = text[0]
    if first == '"' and not text.endswith('"'):
        return _rdf_literal(text, span, prefixes)
    if first == '"':
        return Constant(unescape(text[1:-1], span), "string", span)
    if first == "<":
        return Constant(text[1:-1], "iri", span)
    if ":" in text:
        return _expand(text, span, prefixes)
    if first.isalpha() or first == "_":
        return Constant(text, "string", span)
    return number(text, span)


def _rdf_literal(text: str, span: Span, prefixes: dict[str, str]) -> Constant:
    """``"chat"@fr``, ``"1"^^<iri>`` or ``"1"^^xsd:int``: the constant of that RDF literal (docs/semantics.md)."""
    match = _LITERAL_TEXT.fullmatch(text)   # the closing quote is the last "
    assert match is not None, text        # the grammar's LITERAL token has this form
    quoted, language, datatype = match.groups()
    if datatype and not datatype.startswith("<"):
        datatype = _expand(datatype, span, prefixes).value
    try:
        kind, value = rdf_literal(unescape(quoted[1:-1], span), language, datatype and datatype.strip("<>"))
    except ValueError as error:
        raise ParseError(f"invalid RDF literal {text}: {error}", span) from None
    return Constant(value, kind, span)


def _expand(text: str, span: Span, prefixes: dict[str, str]) -> Constant:
    prefix, _, local = text.partition(":")
    if prefix not in prefixes:
        raise ParseError(f"undeclared prefix '{prefix}:'", span,
                         notes=(f"declare it first: @prefix {prefix}: <http://...> .",))
    return Constant(prefixes[prefix] + local, "iri", span)


# ---------------------------------------------------------------- the fast path for ground facts


def ground_facts(token: Token, file: str, prefixes: dict[str, str]) -> list[Fact]:
    """Split a GROUND_FACTS token into facts, with exact spans (``base`` + column = offset in the token)."""
    item_re, arg_re = _fast_patterns()
    assert token.line is not None and token.column is not None   # a lexed token has its position
    facts: list[Fact] = []
    values: dict[str, tuple[int | float | str, ConstantKind]] = {}
    line, base = token.line, -token.column

    def cached(text: str, span: Span) -> Constant:
        if text not in values:
            decoded = constant(text, span, prefixes)
            values[text] = (decoded.value, decoded.kind)
        return Constant(*values[text], span)

    for item in item_re.finditer(token.value):
        if item.lastgroup == "nl":
            line, base = line + 1, item.start()
        elif item.lastgroup == "fact":
            at = Span(file, line, item.start() - base)
            facts.append(_ground_fact(item.group(), arg_re, at, cached))
    return facts


def _ground_fact(text: str, arg_re: re.Pattern, at: Span, constant) -> Fact:
    """One fact of a GROUND_FACTS run starting ``at``; ``constant(text, span)`` decodes a literal."""
    file, line, col = at.file, at.line, at.column
    pos = text.index("(") + 1
    predicate, terms = text[:pos - 1].rstrip(), []
    while True:
        arg = arg_re.match(text, pos)
        assert arg is not None, text   # the text matched GF_FACT, a run of GF_CONST arguments
        literal, start = arg.group("c"), col + arg.start("c")
        span = Span(file, line, start, line, start + len(literal))
        terms.append(constant(literal, span))
        pos = arg.end()
        if arg.group("sep") == ")":
            break
    atom = Atom(predicate, tuple(terms), Span(file, line, col, line, col + pos))
    return Fact(atom, Span(file, line, col, line, col + len(text)))


# ---------------------------------------------------------------- the tree to AST transformer
