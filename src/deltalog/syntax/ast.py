"""The abstract syntax of deltalog programs: terms, literals, rules and directives, each with a source span.

Every node is a frozen dataclass so that analyses can cache on them and hypothesis can
build them directly. Constants keep their Python value and a ``kind`` that decides how
they print and compare; prefixed names are expanded to full IRIs by the parser.

>>> x, y = Variable("X"), Variable("Y")
>>> str(Rule(Atom("path", (x, y)), (Atom("edge", (x, y)),)))
'path(X, Y) :- edge(X, Y).'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal as TypingLiteral, Union

ConstantKind = TypingLiteral["int", "float", "string", "iri", "literal"]
_BARE_STRING = re.compile(r"[a-z][A-Za-z0-9_]*")
KEYWORDS = frozenset({"not", "count", "sum", "min", "max", "avg", "median"})
AGGREGATE_FUNCTIONS = ("count", "sum", "min", "max", "avg", "median")
COMPARISON_OPERATORS = ("=", "!=", "<", "<=", ">", ">=")
FUNCTIONS = {"abs": 1, "min": 2, "max": 2, "concat": None, "str": 1, "int": 1, "float": 1}
"""Built-in functions usable in expressions, with their arity (None: one or more)."""


@dataclass(frozen=True)
class Span:
    """Where a node came from: file name (or ``<string>``), 1-based line and column, and its end."""

    file: str = "<string>"
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span()


def _no_span() -> Span:
    return NO_SPAN


@dataclass(frozen=True)
class Variable:
    """A variable: ``X``, ``?x`` or an anonymous ``_`` (renamed apart by the parser, ``anonymous=True``)."""

    name: str
    span: Span = field(default_factory=_no_span, compare=False, repr=False)
    anonymous: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        return "_" if self.anonymous else self.name


@dataclass(frozen=True)
class Constant:
    """A constant with its Python value; ``kind`` says whether it is an int, a float, a string, an IRI
    or an RDF literal with a language tag or datatype (valued by its canonical text ``"chat"@fr``).

    Symbols (``alice``) and double-quoted strings (``"alice"``) are the same constant: kind ``string``.
    """

    value: Union[int, float, str]
    kind: ConstantKind
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        if self.kind == "string":
            text = str(self.value)
            if _BARE_STRING.fullmatch(text) and text not in KEYWORDS:
                return text
            escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
            return f'"{escaped}"'
        if self.kind == "iri":
            return f"<{self.value}>"
        if self.kind == "literal":
            return str(self.value)
        return repr(self.value) if self.kind == "float" else str(self.value)


Term = Union[Variable, Constant]


@dataclass(frozen=True)
class BinaryOp:
    """An arithmetic expression ``left op right`` with op one of + - * / %."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Call:
    """A built-in function call such as ``abs(T - M)`` or ``concat(A, "-", B)``."""

    function: str
    args: tuple["Expr", ...]
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.function}({', '.join(map(str, self.args))})"


Expr = Union[Variable, Constant, BinaryOp, Call]


@dataclass(frozen=True)
class Atom:
    """``predicate(t1, ..., tn)``."""

    predicate: str
    terms: tuple[Term, ...]
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    @property
    def arity(self) -> int:
        return len(self.terms)

    def __str__(self) -> str:
        return f"{self.predicate}({', '.join(map(str, self.terms))})"


@dataclass(frozen=True)
class Negation:
    """``not atom`` (also written ``!atom``)."""

    atom: Atom
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"not {self.atom}"


@dataclass(frozen=True)
class Comparison:
    """``left op right`` with op one of = != < <= > >=.

    The parser emits ``V = expr`` as a Comparison; analysis turns it into an
    :class:`Assignment` when ``V`` is not bound by a positive atom.
    """

    op: str
    left: Expr
    right: Expr
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Assignment:
    """BIND: ``variable = expr``, where the variable is bound by this literal alone."""

    variable: Variable
    expr: Expr
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.variable} = {self.expr}"


@dataclass(frozen=True)
class Aggregate:
    """``Result = func Arg : { body }``; ``arg`` is None for ``count : { ... }``.

    The aggregate ranges over the distinct bindings of all variables of ``body``,
    grouped by the body variables that also occur elsewhere in the rule.
    """

    result: Variable
    function: str
    arg: Term | None
    body: tuple["Literal", ...]
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        arg = f" {self.arg}" if self.arg is not None else ""
        return f"{self.result} = {self.function}{arg} : {{ {', '.join(map(str, self.body))} }}"


Literal = Union[Atom, Negation, Comparison, Assignment, Aggregate]


@dataclass(frozen=True)
class Rule:
    """``head :- body.`` with an optional label (``r1: ...`` or ``@name r1``)."""

    head: Atom
    body: tuple[Literal, ...]
    label: str | None = None
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        prefix = f"{self.label}: " if self.label else ""
        return f"{prefix}{self.head} :- {', '.join(map(str, self.body))}."


@dataclass(frozen=True)
class Fact:
    """A ground atom stated in the program text: ``edge(1, 2).``"""

    atom: Atom
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.atom}."


@dataclass(frozen=True)
class InputDirective:
    """``@input pred "path"`` (optionally ``@input pred "path" format``): load pred from a file."""

    predicate: str
    path: str
    format: str | None = None
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        fmt = f" {self.format}" if self.format else ""
        return f'@input {self.predicate} "{self.path}"{fmt} .'


@dataclass(frozen=True)
class OutputDirective:
    """``@output pred``: write pred (only the declared outputs are written when any is declared)."""

    predicate: str
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"@output {self.predicate} ."


TYPE_NAMES = ("int", "float", "number", "string", "iri", "any")
"""Attribute types of ``@decl`` (docs/semantics.md, Declarations): ``number`` is int or float, ``any`` types by form."""


@dataclass(frozen=True)
class Attribute:
    """One ``name: type`` of a declaration; the type is checked by the analysis (so its span is kept)."""

    name: str
    type: str
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.name}: {self.type}"


@dataclass(frozen=True)
class Declaration:
    """``@decl edge(src: int, dst: string).``: the predicate's arity, column names and column types."""

    predicate: str
    attributes: tuple[Attribute, ...]
    span: Span = field(default_factory=_no_span, compare=False, repr=False)

    @property
    def arity(self) -> int:
        return len(self.attributes)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(a.type for a in self.attributes)

    def __str__(self) -> str:
        return f"@decl {self.predicate}({', '.join(map(str, self.attributes))}) ."


@dataclass(frozen=True)
class Program:
    """A parsed program: rules and facts in source order, I/O directives, the prefix table and ``@decl``s."""

    rules: tuple[Rule, ...] = ()
    facts: tuple[Fact, ...] = ()
    inputs: tuple[InputDirective, ...] = ()
    outputs: tuple[OutputDirective, ...] = ()
    prefixes: tuple[tuple[str, str], ...] = ()
    source_name: str = "<string>"
    declarations: tuple[Declaration, ...] = ()

    def __str__(self) -> str:
        lines = [f"@prefix {p}: <{iri}> ." for p, iri in self.prefixes]
        lines += [str(d) for d in self.declarations]
        lines += [str(d) for d in self.inputs] + [str(d) for d in self.outputs]
        lines += [str(f) for f in self.facts] + [str(r) for r in self.rules]
        return "\n".join(lines) + ("\n" if lines else "")


def literal_atoms(literal: Literal) -> tuple[Atom, ...]:
    """The atoms a literal mentions (an aggregate's inner atoms included, negated ones too)."""
    if isinstance(literal, Atom):
        return (literal,)
    if isinstance(literal, Negation):
        return (literal.atom,)
    if isinstance(literal, Aggregate):
        return tuple(a for inner in literal.body for a in literal_atoms(inner))
    return ()


def expr_variables(expr: Expr) -> tuple[Variable, ...]:
    """Variables of an expression, left to right, with repeats."""
    if isinstance(expr, Variable):
        return (expr,)
    if isinstance(expr, BinaryOp):
        return expr_variables(expr.left) + expr_variables(expr.right)
    if isinstance(expr, Call):
        return tuple(v for a in expr.args for v in expr_variables(a))
    return ()
