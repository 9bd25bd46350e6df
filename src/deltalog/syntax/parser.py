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
from dataclasses import dataclass
from typing import Iterable

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedInput, VisitError

from deltalog.errors import ParseError
from deltalog.limits import recursion_headroom
from deltalog.syntax.constants import unescape, number, constant, ground_facts
from deltalog.syntax.messages import grammar, syntax_error
from deltalog.syntax.source_text import read_source
from deltalog.syntax.ast import Aggregate, Atom, BinaryOp, Call, Comparison, Constant, Negation, Span, Variable
from deltalog.syntax.statements import Attribute, Declaration, Fact, InputDirective, OutputDirective, Program, Rule

__all__ = ["parse", "parse_file", "parse_atom"]

MAX_NESTING = 2_000
"""Deepest parse tree accepted (a chain of N operators is N deep): deeper ones would exhaust
Python's stack in the transformer, the planner or the evaluator (limits.RECURSION_HEADROOM)."""
MAX_BODY = 2_000
"""Most literals in one rule body (or aggregate body): rule plans recurse once per atom."""


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
        return ground_facts(token, self.file, self.prefixes)

    def query(self, meta, children) -> Atom:
        return children[0]

    def prefix_directive(self, meta, children) -> _Prefix:
        name, iri = children[0][:-1], children[1][1:-1]
        self.prefixes[name] = iri
        return _Prefix(name, iri)

    def input_directive(self, meta, children) -> InputDirective:
        path = unescape(children[1][1:-1], self._tspan(children[1]))
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
        return number("".join(children), self._span(meta))

    float_const = int_const

    def string_const(self, meta, children) -> Constant:
        return constant(str(children[0]), self._span(meta), self.prefixes)

    symbol_const = iri_const = pname_const = literal_const = string_const


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
            tree = grammar().parse(text, start=start)
            _check_nesting(tree, builder.file)
            return builder.transform(tree)
    except UnexpectedInput as error:
        raise syntax_error(error, text, builder.file) from None
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


def parse_atom(text: str, *, source_name: str = "<query>", prefixes: Iterable[tuple[str, str]] = ()) -> Atom:
    """Parse one atom such as ``path(1, Y)``, ``path(1, Y)?`` or ``path(1,?y).`` (a query).

    ``prefixes`` (pairs such as ``Program.prefixes``) lets the query use prefixed names.
    """
    return _run(text, "query", _Builder(source_name, prefixes))
