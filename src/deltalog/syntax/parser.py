"""The parser: program text to :mod:`deltalog.syntax.ast` nodes (``parse``, ``parse_file``, ``parse_atom``).

The grammar lives in ``grammar.lark`` (LALR(1), Lark's contextual lexer). Runs of simple
one-line ground facts are lexed as a single ``GROUND_FACTS`` token and split here with the
grammar's own ``GF_FACT``/``GF_CONST`` patterns, which keeps large fact lists fast.

>>> str(parse("path(X, Y) :- edge(X, Y).").rules[0])
'path(X, Y) :- edge(X, Y).'
>>> parse_atom("path(1, ?y)?")
Atom(predicate='path', terms=(Constant(value=1, kind='int'), Variable(name='?y', anonymous=False)))
"""

from __future__ import annotations

import gc
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from deltalog.errors import InputError, ParseError
from deltalog.limits import recursion_headroom
from deltalog.storage.values import rdf_literal
from deltalog.syntax.ast import (
    Aggregate, Atom, Attribute, BinaryOp, Call, Comparison, Constant, ConstantKind, Declaration, Fact, InputDirective,
    Negation, OutputDirective, Program, Rule, Span, Variable,
)

__all__ = ["parse", "parse_file", "parse_atom"]

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_ESCAPE = re.compile(r"\\(.)")
_INT_TEXT = re.compile(r"-?[0-9]+")
_LITERAL_TEXT = re.compile(r'(".*")(?:@(.+)|\^\^(.+))', re.S)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
MAX_NESTING = 2_000
"""Deepest parse tree accepted (a chain of N operators is N deep): deeper ones would exhaust
Python's stack in the transformer, the planner or the evaluator (limits.RECURSION_HEADROOM)."""
MAX_BODY = 2_000
"""Most literals in one rule body (or aggregate body): rule plans recurse once per atom."""


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True, cache=True,
                maybe_placeholders=False, start=["start", "query", "fast_path_patterns"])


@lru_cache(maxsize=1)
def _fast_patterns() -> tuple[re.Pattern, re.Pattern]:
    """The item pattern (a fact, a newline, or a gap) and the argument pattern for GROUND_FACTS runs."""
    lark = _lark()
    fact, const = (lark.get_terminal(n).pattern.to_regexp() for n in ("GF_FACT", "GF_CONST"))
    item = re.compile(rf"(?P<fact>{fact})|(?P<nl>\n)|[ \t\f\r]+|%[^\n]*|//[^\n]*")
    return item, re.compile(rf"[ \t]*(?P<c>{const})[ \t]*(?P<sep>[,)])")


# ---------------------------------------------------------------- constants


def _unescape(body: str, span: Span) -> str:
    """Decode the escapes \\" \\\\ \\n \\t \\r of a string literal's body; anything else is an error."""
    def replace(match: re.Match) -> str:
        if match.group(1) not in _ESCAPES:
            at = Span(span.file, span.line, span.column + 1 + match.start(), span.line, span.column + 3 + match.start())
            raise ParseError(f"unknown escape sequence '\\{match.group(1)}' in a string", at,
                             notes=('strings know the escapes \\" \\\\ \\n \\t and \\r',))
        return _ESCAPES[match.group(1)]
    return _ESCAPE.sub(replace, body) if "\\" in body else body


def _number(text: str, span: Span) -> Constant:
    if not _INT_TEXT.fullmatch(text):
        return Constant(float(text), "float", span)
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ParseError(f"integer {text} is outside the 64-bit range", span)
    return Constant(value, "int", span)


def _constant(text: str, span: Span, prefixes: dict[str, str]) -> Constant:
    """A constant from its literal text: a string, an IRI, a prefixed name, a symbol or a number."""
    first = text[0]
    if first == '"' and not text.endswith('"'):
        return _rdf_literal(text, span, prefixes)
    if first == '"':
        return Constant(_unescape(text[1:-1], span), "string", span)
    if first == "<":
        return Constant(text[1:-1], "iri", span)
    if ":" in text:
        return _expand(text, span, prefixes)
    if first.isalpha() or first == "_":
        return Constant(text, "string", span)
    return _number(text, span)


def _rdf_literal(text: str, span: Span, prefixes: dict[str, str]) -> Constant:
    """``"chat"@fr``, ``"1"^^<iri>`` or ``"1"^^xsd:int``: the constant of that RDF literal (docs/semantics.md)."""
    match = _LITERAL_TEXT.fullmatch(text)   # the closing quote is the last "
    assert match is not None, text        # the grammar's LITERAL token has this form
    quoted, language, datatype = match.groups()
    if datatype and not datatype.startswith("<"):
        datatype = _expand(datatype, span, prefixes).value
    try:
        kind, value = rdf_literal(_unescape(quoted[1:-1], span), language, datatype and datatype.strip("<>"))
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


def _ground_facts(token: Token, file: str, prefixes: dict[str, str]) -> list[Fact]:
    """Split a GROUND_FACTS token into facts, with exact spans (``base`` + column = offset in the token)."""
    item_re, arg_re = _fast_patterns()
    assert token.line is not None and token.column is not None   # a lexed token has its position
    facts: list[Fact] = []
    values: dict[str, tuple[int | float | str, ConstantKind]] = {}
    line, base = token.line, -token.column

    def constant(text: str, span: Span) -> Constant:
        if text not in values:
            decoded = _constant(text, span, prefixes)
            values[text] = (decoded.value, decoded.kind)
        return Constant(*values[text], span)

    for item in item_re.finditer(token.value):
        if item.lastgroup == "nl":
            line, base = line + 1, item.start()
        elif item.lastgroup == "fact":
            at = Span(file, line, item.start() - base)
            facts.append(_ground_fact(item.group(), arg_re, at, constant))
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


@dataclass(frozen=True)
class _Label:
    name: str
    span: Span


@dataclass(frozen=True)
class _Prefix:
    name: str
    iri: str


@v_args(meta=True)
class _Builder(Transformer):
    """Builds AST nodes bottom-up; statements are visited in source order (prefixes, anonymous variables)."""

    def __init__(self, file: str, prefixes: Iterable[tuple[str, str]] = ()):
        super().__init__(visit_tokens=True)
        self.file, self.prefixes, self.anonymous = file, dict(prefixes), 0

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, token: Token) -> Span:
        line, column, end_line, end_column = token.line, token.column, token.end_line, token.end_column
        assert line is not None and column is not None and end_line is not None and end_column is not None  # lexed
        return Span(self.file, line, column, end_line, end_column)

    # -- statements
    def start(self, meta, children) -> Program:
        parts: dict[type, list] = {Rule: [], Fact: [], InputDirective: [], OutputDirective: [], _Prefix: [],
                                   Declaration: []}
        for child in children:
            if isinstance(child, list):
                parts[Fact].extend(child)
            else:
                parts[type(child)].append(child)
        prefixes = tuple((p.name, p.iri) for p in parts[_Prefix])
        return Program(tuple(parts[Rule]), tuple(parts[Fact]), tuple(parts[InputDirective]),
                       tuple(parts[OutputDirective]), prefixes, self.file, tuple(parts[Declaration]))

    def GROUND_FACTS(self, token: Token) -> list[Fact]:  # noqa: N802 (Lark calls terminals by name)
        return _ground_facts(token, self.file, self.prefixes)

    def query(self, meta, children) -> Atom:
        return children[0]

    def prefix_directive(self, meta, children) -> _Prefix:
        name, iri = children[0][:-1], children[1][1:-1]
        self.prefixes[name] = iri
        return _Prefix(name, iri)

    def input_directive(self, meta, children) -> InputDirective:
        path = _unescape(children[1][1:-1], self._tspan(children[1]))
        fmt = children[2].strip() if len(children) > 2 else None
        return InputDirective(str(children[0]), path, fmt, self._span(meta))

    def output_directive(self, meta, children) -> OutputDirective:
        return OutputDirective(str(children[0]), self._span(meta))

    def decl_directive(self, meta, children) -> Declaration:
        return Declaration(str(children[0]), tuple(children[1:]), self._span(meta))

    def decl_attribute(self, meta, children) -> Attribute:
        return Attribute(str(children[0]), str(children[1]), self._tspan(children[1]))

    def label(self, meta, children) -> _Label:
        token = children[0]
        name = token[:-1].rstrip() if token.type == "LABEL" else str(token)
        return _Label(name, self._tspan(token))

    def clause(self, meta, children) -> Rule | Fact:
        self.anonymous = 0
        label = children[0] if isinstance(children[0], _Label) else None
        head, *body = children[1:] if label else children
        if body:
            return Rule(head, body[0], label.name if label else None, self._span(meta))
        if label is not None:
            raise ParseError("a fact cannot have a label", label.span, notes=("labels name rules only",))
        for term in head.terms:
            if isinstance(term, Variable):
                raise ParseError(f"facts must be ground, but {term} is a variable", term.span)
        return Fact(head, self._span(meta))

    # -- atoms and literals
    def atom(self, meta, children) -> Atom:
        return Atom(children[0], tuple(children[1:]), self._span(meta))

    def bare_atom(self, meta, children) -> Atom:
        return Atom(str(children[0]), (), self._span(meta))

    def pred_name(self, meta, children) -> str:
        return str(children[0])

    fname = aggfunc = pred_name

    def body(self, meta, children) -> tuple:
        if len(children) > MAX_BODY:
            raise ParseError(f"a body of {len(children):,} literals; deltalog evaluates at most {MAX_BODY:,}",
                             self._span(meta), notes=("split it: define part of the body as a rule of its own",))
        return tuple(children)

    def negation(self, meta, children) -> Negation:
        return Negation(children[-1], self._span(meta))

    def body_atom(self, meta, children) -> Atom:
        item = children[0]
        if isinstance(item, Token):
            return Atom(str(item), (), self._span(meta))
        for arg in item.args:
            if not isinstance(arg, (Variable, Constant)):
                raise ParseError("the arguments of an atom must be variables or constants", arg.span,
                                 notes=("bind the value first: V = expr, then use V",))
        return Atom(item.function, item.args, item.span)

    def comparison(self, meta, children) -> Comparison:
        return Comparison(str(children[1]), children[0], children[2], self._span(meta))

    def aggregate(self, meta, children) -> Aggregate:
        result, function, body = children[0], str(children[2]), children[-1]
        if not isinstance(result, Variable):
            raise ParseError("the result of an aggregate must be a variable", result.span)
        arg = children[3] if len(children) == 5 else None
        return Aggregate(result, function, arg, body, self._span(meta))

    def agg_arg(self, meta, children):
        return children[0]

    # -- expressions and terms
    def binop(self, meta, children) -> BinaryOp:
        return BinaryOp(str(children[1]), children[0], children[2], self._span(meta))

    def application(self, meta, children) -> Call:
        return Call(children[0], tuple(children[1:]), self._span(meta))

    def variable(self, meta, children) -> Variable:
        token = children[0]
        if token.type != "ANON":
            return Variable(str(token), self._span(meta))
        self.anonymous += 1
        return Variable(f"_{self.anonymous - 1}", self._span(meta), anonymous=True)

    def int_const(self, meta, children) -> Constant:
        return _number("".join(children), self._span(meta))

    float_const = int_const

    def string_const(self, meta, children) -> Constant:
        return _constant(str(children[0]), self._span(meta), self.prefixes)

    symbol_const = iri_const = pname_const = literal_const = string_const


# ---------------------------------------------------------------- syntax errors

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
    pattern = _lark().get_terminal(name).pattern
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


def _syntax_error(error: UnexpectedInput, text: str, file: str) -> ParseError:
    if isinstance(error, UnexpectedToken):
        return _token_error(error, text, file)
    if isinstance(error, UnexpectedCharacters):
        return _char_error(error, text, file)
    return ParseError(f"syntax error: {error}", Span(file, getattr(error, "line", 0), getattr(error, "column", 0)))


# ---------------------------------------------------------------- public API


def _check_nesting(tree: Tree, file: str) -> None:
    """Refuse trees deeper than MAX_NESTING before the (recursive) transformer meets them; level by
    level, which costs a few percent of the parse."""
    level, depth = [tree], 1
    while level:
        if depth > MAX_NESTING:
            meta = level[0].meta
            raise ParseError(f"expression nested too deeply (more than {MAX_NESTING:,} levels)",
                             Span(file, getattr(meta, "line", 0), getattr(meta, "column", 0)),
                             notes=("bind parts of it to variables first: V = expr, then use V",))
        level = [child for node in level for child in node.children if type(child) is Tree]
        depth += 1


def _run(text: str, start: str, builder: _Builder):
    """Parse and build; the cyclic garbage collector is paused meanwhile (it is quadratic on big fact lists)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        with recursion_headroom("the program"):
            tree = _lark().parse(text, start=start)
            _check_nesting(tree, builder.file)
            return builder.transform(tree)
    except UnexpectedInput as error:
        raise _syntax_error(error, text, builder.file) from None
    except VisitError as error:
        raise error.orig_exc from None
    finally:
        if collecting:
            gc.enable()


def parse(text: str, *, source_name: str = "<string>") -> Program:
    """Parse a whole program; raises :class:`~deltalog.errors.ParseError` with the offending span."""
    return _run(text, "start", _Builder(source_name))


def parse_file(path: str | os.PathLike) -> Program:
    """Parse the program in a UTF-8 file; spans and ``Program.source_name`` carry the path as given.

    Line ends are read untranslated (a carriage return inside a string stays one); a BOM is skipped.
    """
    return parse(read_source(path), source_name=os.fspath(path))


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


def parse_atom(text: str, *, source_name: str = "<query>", prefixes: Iterable[tuple[str, str]] = ()) -> Atom:
    """Parse one atom such as ``path(1, Y)``, ``path(1, Y)?`` or ``path(1,?y).`` (a query).

    ``prefixes`` (pairs such as ``Program.prefixes``) lets the query use prefixed names.
    """
    return _run(text, "query", _Builder(source_name, prefixes))
