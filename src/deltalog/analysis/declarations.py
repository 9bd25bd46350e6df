"""``@decl`` checks: well-formed declarations, arities that agree with every use, typed facts and rule heads.

A declared type is a set of value kinds (``number`` = int or float, ``any`` = every kind). The
program text is checked where a kind is known statically: constants in facts and heads, and head
variables whose kinds follow from declared body columns, assignments or aggregates. A head column
whose kinds are not proven to fit is listed in ``unproven`` and checked on the derived facts at run
time (``deltalog.algorithms.typecheck``), so a value never lands in a column that refuses it.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from deltalog.analysis.types import static_kind
from deltalog.errors import ArityError, DeclarationError, TypeCheckError
from deltalog.syntax.ast import Atom, Constant, Variable
from deltalog.syntax.statements import TYPE_NAMES, Declaration, Program

ALL_KINDS = frozenset({"int", "float", "string", "iri"})
TYPE_KINDS = {"int": frozenset({"int"}), "float": frozenset({"float"}), "number": frozenset({"int", "float"}),
              "string": frozenset({"string"}), "iri": frozenset({"iri"}), "any": ALL_KINDS}
STATIC_KINDS = {"number": TYPE_KINDS["number"], "string": TYPE_KINDS["string"], "iri": TYPE_KINDS["iri"]}
AGGREGATE_KINDS = {"count": TYPE_KINDS["int"], "avg": TYPE_KINDS["float"], "sum": TYPE_KINDS["number"]}


def check_declarations(program: Program, arities: dict[str, int]) -> dict[str, Declaration]:
    """The declarations by predicate; raise on a duplicate, an unknown type, a repeated attribute name or
    an arity that differs from a use. Predicates only declared join ``arities``."""
    declared: dict[str, Declaration] = {}
    for decl in program.declarations:
        if decl.predicate in declared:
            first = declared[decl.predicate]
            raise DeclarationError(f"predicate '{decl.predicate}' is declared twice", decl.span,
                                   notes=(f"first declared at {first.span}",))
        _check_attributes(decl)
        known = arities.setdefault(decl.predicate, decl.arity)
        if known != decl.arity:
            raise ArityError(f"'{decl.predicate}' is declared with {decl.arity} attributes but used with arity "
                             f"{known}", decl.span, notes=(str(decl),))
        declared[decl.predicate] = decl
    return declared


def _check_attributes(decl: Declaration) -> None:
    seen: set[str] = set()
    for attribute in decl.attributes:
        if attribute.type not in TYPE_NAMES:
            raise DeclarationError(f"unknown type '{attribute.type}' for {decl.predicate}.{attribute.name}",
                                   attribute.span, notes=(f"types: {', '.join(TYPE_NAMES)}",))
        if attribute.name in seen:
            raise DeclarationError(f"attribute '{attribute.name}' appears twice in the declaration of "
                                   f"'{decl.predicate}'", attribute.span)
        seen.add(attribute.name)


def kind_fits(kind: str, type_name: str) -> bool:
    return kind in TYPE_KINDS[type_name]


def _constant_error(atom: Atom, position: int, decl: Declaration, constant: Constant, what: str) -> TypeCheckError:
    attribute = decl.attributes[position]
    return TypeCheckError(f"{what} {atom.predicate} gives {attribute.name} ({attribute.type}, column "
                          f"{position + 1}) the {constant.kind} {constant}",
                          constant.span if constant.span.line else atom.span,
                          notes=(f"declared as {decl} at {decl.span}",))


def check_facts(program: Program, declared: Mapping[str, Declaration]) -> None:
    """Every constant of a fact (and of a rule head) fits its declared column."""
    atoms = [(f.atom, "the fact") for f in program.facts] + [(r.head, "the rule head") for r in program.rules]
    for atom, what in atoms:
        decl = declared.get(atom.predicate)
        if decl is None:
            continue
        for position, term in enumerate(atom.terms):
            if isinstance(term, Constant) and not kind_fits(term.kind, decl.types[position]):
                raise _constant_error(atom, position, decl, term, what)


def variable_kinds(info, declared: Mapping[str, Declaration]) -> dict[str, frozenset[str]]:
    """The kinds each variable of a rule can have, as far as the text tells (absent: any kind)."""
    kinds: dict[str, frozenset[str]] = {}

    def narrow(name: str, allowed: frozenset[str]) -> None:
        kinds[name] = kinds.get(name, ALL_KINDS) & allowed

    for atom in info.positive:
        decl = declared.get(atom.predicate)
        for position, term in enumerate(atom.terms):
            if decl is not None and isinstance(term, Variable):
                narrow(term.name, TYPE_KINDS[decl.types[position]])
    for assignment in info.assignments:
        static = static_kind(assignment.expr)
        if isinstance(assignment.expr, Constant):
            narrow(assignment.variable.name, frozenset({assignment.expr.kind}))
        elif isinstance(assignment.expr, Variable) and assignment.expr.name in kinds:
            narrow(assignment.variable.name, kinds[assignment.expr.name])
        elif static in STATIC_KINDS:
            narrow(assignment.variable.name, STATIC_KINDS[static])
    for aggregate in info.aggregates:
        if aggregate.function in AGGREGATE_KINDS:
            narrow(aggregate.result.name, AGGREGATE_KINDS[aggregate.function])
    return kinds


def check_heads(rules: Iterable, declared: Mapping[str, Declaration]) -> dict[str, tuple[int, ...]]:
    """Raise when a rule surely derives a value its head's declared column refuses; return the head
    columns (by predicate) that may receive such a value, which are checked at run time."""
    unproven: dict[str, set[int]] = {}
    for info in rules:
        decl = declared.get(info.head.predicate)
        if decl is None:
            continue
        kinds = variable_kinds(info, declared)
        for position, term in enumerate(info.head.terms):
            allowed = TYPE_KINDS[decl.types[position]]
            if not isinstance(term, Variable) or allowed == ALL_KINDS:
                continue
            possible = kinds.get(term.name, ALL_KINDS)
            if not possible & allowed:
                attribute = decl.attributes[position]
                raise TypeCheckError(
                    f"{term} is {' or '.join(sorted(possible))} here, but {info.head.predicate}.{attribute.name} "
                    f"(column {position + 1}) is declared {attribute.type}",
                    term.span if term.span.line else info.head.span,
                    notes=(f"declared as {decl} at {decl.span}",))
            if not possible <= allowed:
                unproven.setdefault(info.head.predicate, set()).add(position)
    return {predicate: tuple(sorted(columns)) for predicate, columns in unproven.items()}
