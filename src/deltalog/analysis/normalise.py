"""Turn ``V = expr`` comparisons into assignments (BIND) and order assignments so each uses only bound variables."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, TypeGuard

from deltalog.errors import UnsafeVariableError
from deltalog.syntax.ast import Aggregate, Assignment, Atom, Comparison, Expr, Literal, Variable, expr_variables
from deltalog.syntax.statements import Program, Rule


def names(variables: Iterable[Variable]) -> set[str]:
    """The names of some variables."""
    return {v.name for v in variables}


def atom_variables(atom: Atom) -> tuple[Variable, ...]:
    """The variables of an atom, left to right, with repeats."""
    return tuple(t for t in atom.terms if isinstance(t, Variable))


def aggregate_binds(aggregate: Aggregate) -> set[str]:
    """Variables an aggregate binds: its result and what its body binds (group-by variables are among them)."""
    return {aggregate.result.name} | scope_bound(aggregate.body)


def scope_bound(body: Iterable[Literal]) -> set[str]:
    """Variables a body binds through positive atoms, aggregates and assignments."""
    bound: set[str] = set()
    for literal in body:
        if isinstance(literal, Atom):
            bound |= names(atom_variables(literal))
        elif isinstance(literal, Aggregate):
            bound |= aggregate_binds(literal)
        elif isinstance(literal, Assignment):
            bound.add(literal.variable.name)
    return bound


def is_free(expr: Expr, bound: set[str]) -> TypeGuard[Variable]:
    """Whether ``expr`` is a named variable not yet bound (so it can be the target of an assignment)."""
    return isinstance(expr, Variable) and not expr.anonymous and expr.name not in bound


def comparison_names(comparison: Comparison) -> set[str]:
    return names(expr_variables(comparison.left) + expr_variables(comparison.right))


def unassign(literal: Literal) -> Literal:
    """An assignment back as the ``=`` comparison it came from, so that normalising is idempotent."""
    if isinstance(literal, Assignment):
        return Comparison("=", literal.variable, literal.expr, literal.span)
    return literal


def try_assign(comparison: Comparison, bound: set[str]) -> Literal | None:
    """What a pending ``=`` becomes given the bound variables: a filter, an assignment, or None (wait)."""
    if comparison_names(comparison) <= bound:
        return comparison
    for target, expr in ((comparison.left, comparison.right), (comparison.right, comparison.left)):
        if is_free(target, bound) and names(expr_variables(expr)) <= bound:
            return Assignment(target, expr, comparison.span)
    return None


def resolve_equalities(body: Iterable[Literal]) -> tuple[tuple[Literal, ...], tuple[Assignment, ...]]:
    """The body with ``V = expr`` as an assignment where ``V`` is unbound, and the assignments in binding order."""
    literals = [unassign(literal) for literal in body]
    bound = scope_bound(literals)
    pending = [(i, lit) for i, lit in enumerate(literals) if isinstance(lit, Comparison) and lit.op == "="]
    order: list[Assignment] = []
    while pending:
        waiting = _resolve_pass(literals, pending, bound, order)
        if len(waiting) == len(pending):
            break
        pending = waiting
    check_cycles([comparison for _, comparison in pending], bound)
    return tuple(literals), tuple(order)


def _resolve_pass(literals: list[Literal], pending: list[tuple[int, Comparison]], bound: set[str],
                  order: list[Assignment]) -> list[tuple[int, Comparison]]:
    """One left-to-right pass over the pending ``=`` literals (with their positions in ``literals``);
    returns those that must still wait."""
    waiting = []
    for i, comparison in pending:
        new = try_assign(comparison, bound)
        if new is None:
            waiting.append((i, comparison))
            continue
        literals[i] = new
        if isinstance(new, Assignment):
            order.append(new)
            bound.add(new.variable.name)
    return waiting


def check_cycles(leftovers: list[Comparison], bound: set[str]) -> None:
    """Raise when unresolved ``=`` comparisons only wait on each other's variables (``X = Y + 1, Y = X - 1``)."""
    targets = {s.name for c in leftovers for s in (c.left, c.right) if is_free(s, bound)}
    for comparison in leftovers:
        waiting = comparison_names(comparison) - bound
        if waiting <= targets:
            involved = [str(c) for c in leftovers if comparison_names(c) & waiting]
            what = f"{', '.join(sorted(waiting))} are" if len(waiting) > 1 else f"{min(waiting)} is"
            raise UnsafeVariableError(
                f"cyclic assignment: {what} only defined in terms of each other ({', '.join(involved)})",
                comparison.span,
            )


def normalise_body(body: Iterable[Literal]) -> tuple[Literal, ...]:
    """Normalise a body: aggregate bodies first (each on its own), then the body itself."""
    inner = [replace(lit, body=normalise_body(lit.body)) if isinstance(lit, Aggregate) else lit for lit in body]
    return resolve_equalities(inner)[0]


def normalise_rule(rule: Rule) -> Rule:
    return replace(rule, body=normalise_body(rule.body))


def normalise_assignments(program: Program) -> Program:
    """The program with every ``V = expr`` that binds ``V`` turned into an :class:`Assignment`."""
    return replace(program, rules=tuple(normalise_rule(rule) for rule in program.rules))
