"""The statements of a deltalog program: rules, facts, I/O directives and declarations, and the
``Program`` that holds them (over the terms and literals of syntax/ast.py).

>>> from deltalog.syntax.ast import Atom, Variable
>>> x, y = Variable("X"), Variable("Y")
>>> str(Rule(Atom("path", (x, y)), (Atom("edge", (x, y)),)))
'path(X, Y) :- edge(X, Y).'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deltalog.syntax.ast import Atom, Literal, Span, no_span


@dataclass(frozen=True)
class Rule:
    """``head :- body.`` with an optional label (``r1: ...`` or ``@name r1``)."""

    head: Atom
    body: tuple[Literal, ...]
    label: str | None = None
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        prefix = f"{self.label}: " if self.label else ""
        return f"{prefix}{self.head} :- {', '.join(map(str, self.body))}."


@dataclass(frozen=True)
class Fact:
    """A ground atom stated in the program text: ``edge(1, 2).``"""

    atom: Atom
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.atom}."


@dataclass(frozen=True)
class InputDirective:
    """``@input pred "path"`` (optionally ``@input pred "path" format``): load pred from a file."""

    predicate: str
    path: str
    format: str | None = None
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        fmt = f" {self.format}" if self.format else ""
        return f'@input {self.predicate} "{self.path}"{fmt} .'


@dataclass(frozen=True)
class OutputDirective:
    """``@output pred``: write pred (only the declared outputs are written when any is declared)."""

    predicate: str
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"@output {self.predicate} ."


TYPE_NAMES = ("int", "float", "number", "string", "iri", "any")
"""Attribute types of ``@decl`` (docs/semantics.md, Declarations): ``number`` is int or float, ``any`` types by form."""


@dataclass(frozen=True)
class Attribute:
    """One ``name: type`` of a declaration; the type is checked by the analysis (so its span is kept)."""

    name: str
    type: str
    span: Span = field(default_factory=no_span, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.name}: {self.type}"


@dataclass(frozen=True)
class Declaration:
    """``@decl edge(src: int, dst: string).``: the predicate's arity, column names and column types."""

    predicate: str
    attributes: tuple[Attribute, ...]
    span: Span = field(default_factory=no_span, compare=False, repr=False)

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
