"""The abstract syntax of deltalog programs: terms, expressions and literals, each with a source span
(the rules, facts and directives they make up: syntax/statements.py).

Every node is a frozen dataclass so that analyses can cache on them and hypothesis can
build them directly. Constants keep their Python value and a ``kind`` that decides how
they print and compare; prefixed names are expanded to full IRIs by the parser.

>>> x, y = Variable("X"), Variable("Y")
>>> str(Comparison("<", x, BinaryOp("+", y, Constant(1, "int"))))
'X < (Y + 1)'
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


def no_span() -> Span:
    return NO_SPAN


@dataclass(frozen=True)
class Variable:
    """A variable: ``X``, ``?x`` or an anonymous ``_`` (renamed apart by the parser, ``anonymous=True``)."""

    name: str
    span: Span = field(default_factory=no_span, compare=False, repr=False)
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
    span: Span = field(default_factory=no_span, compare=False, repr=False)

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
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Call:
    """A built-in function call such as ``abs(T - M)`` or ``concat(A, "-", B)``."""

    function: str
    args: tuple["Expr", ...]
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.function}({', '.join(map(str, self.args))})"


Expr = Union[Variable, Constant, BinaryOp, Call]


@dataclass(frozen=True)
class Atom:
    """``predicate(t1, ..., tn)``."""

    predicate: str
    terms: tuple[Term, ...]
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    @property
    def arity(self) -> int:
        return len(self.terms)

    def __str__(self) -> str:
        return f"{self.predicate}({', '.join(map(str, self.terms))})"


@dataclass(frozen=True)
class Negation:
    """``not atom`` (also written ``!atom``)."""

    atom: Atom
    span: Span = field(default_factory=no_span, compare=False, repr=False)

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
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Assignment:
    """BIND: ``variable = expr``, where the variable is bound by this literal alone."""

    variable: Variable
    expr: Expr
    span: Span = field(default_factory=no_span, compare=False, repr=False)

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
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        arg = f" {self.arg}" if self.arg is not None else ""
        return f"{self.result} = {self.function}{arg} : {{ {', '.join(map(str, self.body))} }}"


Literal = Union[Atom, Negation, Comparison, Assignment, Aggregate]


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
