"""Safety: each variable is bound (positive atom, assignment, aggregate) or local to one negated atom."""

from __future__ import annotations

from typing import Iterable, Iterator

from deltalog.analysis.normalise import atom_variables, scope_bound
from deltalog.errors import UnsafeVariableError
from deltalog.syntax.ast import Aggregate, Assignment, Atom, Comparison, Literal, Negation, Variable, expr_variables
from deltalog.syntax.statements import Fact, Program, Rule

Occurrences = dict[str, list[bool]]
"""For each variable of a rule, one entry per literal it occurs in: whether that literal is a negated atom."""


def literal_variables(literal: Literal | Atom) -> tuple[Variable, ...]:
    """Variables of a literal, left to right with repeats (an aggregate's result, argument and body included)."""
    if isinstance(literal, Atom):
        return atom_variables(literal)
    if isinstance(literal, Negation):
        return atom_variables(literal.atom)
    if isinstance(literal, Comparison):
        return expr_variables(literal.left) + expr_variables(literal.right)
    if isinstance(literal, Assignment):
        return (literal.variable,) + expr_variables(literal.expr)
    return aggregate_head_variables(literal) + body_variables(literal.body)


def aggregate_head_variables(aggregate: Aggregate) -> tuple[Variable, ...]:
    arg = (aggregate.arg,) if isinstance(aggregate.arg, Variable) else ()
    return (aggregate.result,) + arg


def body_variables(body: Iterable[Literal]) -> tuple[Variable, ...]:
    return tuple(v for literal in body for v in literal_variables(literal))


def literal_units(literal: Literal) -> Iterator[tuple[bool, frozenset[str]]]:
    """The literals a variable can occur in, flattened through aggregates, each with its variable names."""
    if isinstance(literal, Aggregate):
        yield False, frozenset(v.name for v in aggregate_head_variables(literal))
        for inner in literal.body:
            yield from literal_units(inner)
    else:
        yield isinstance(literal, Negation), frozenset(v.name for v in literal_variables(literal))


def occurrences(rule: Rule) -> Occurrences:
    """Where each variable of the rule occurs: the head and every (flattened) body literal count once each."""
    result: Occurrences = {v.name: [False] for v in atom_variables(rule.head)}
    for literal in rule.body:
        for negated, unit in literal_units(literal):
            for name in unit:
                result.setdefault(name, []).append(negated)
    return result


def negation_locals(rule: Rule) -> frozenset[str]:
    """Variables occurring in a single negated atom and nowhere else: they mean "for no value"."""
    return frozenset(name for name, where in occurrences(rule).items() if where == [True])


def require_bound(variable: Variable, bound: set[str], where: str) -> None:
    if variable.anonymous:
        raise UnsafeVariableError(f"anonymous variable '_' is not allowed in {where}", variable.span)
    if variable.name not in bound:
        raise UnsafeVariableError(
            f"variable '{variable.name}' in {where} is not bound by a positive atom, an assignment or an aggregate",
            variable.span,
        )


def check_negation(negation: Negation, bound: set[str], occ: Occurrences) -> None:
    for variable in atom_variables(negation.atom):
        where = occ[variable.name]
        if variable.name in bound or len(where) == 1:
            continue
        if all(where):
            raise UnsafeVariableError(
                f"variable '{variable.name}' occurs only in negated atoms: it must also occur in a positive atom",
                variable.span,
            )
        require_bound(variable, bound, f"'{negation}'")


def check_aggregate(aggregate: Aggregate, occ: Occurrences) -> None:
    """The aggregate's body must be safe on its own; its argument occurs in it, its result does not."""
    inner = body_variables(aggregate.body)
    for variable in inner:
        if variable.name == aggregate.result.name:
            raise UnsafeVariableError(
                f"aggregate result '{variable.name}' must not occur in the aggregate body", variable.span
            )
    arg = aggregate.arg
    if isinstance(arg, Variable) and arg.name not in scope_bound(aggregate.body):
        raise UnsafeVariableError(f"aggregate argument '{arg.name}' does not occur in the aggregate body", arg.span)
    check_body(aggregate.body, occ)


def comparison_inputs_first(comparison: Comparison) -> tuple[Variable, ...]:
    """The variables of a comparison; for ``V = expr`` those of ``expr`` first (the root cause when V is unbound)."""
    left, right = expr_variables(comparison.left), expr_variables(comparison.right)
    return right + left if comparison.op == "=" and isinstance(comparison.left, Variable) else left + right


def check_literal(literal: Literal, bound: set[str], occ: Occurrences) -> None:
    if isinstance(literal, Comparison):
        where = f"'{literal}'" if literal.op == "=" else f"comparison '{literal}'"
        for variable in comparison_inputs_first(literal):
            require_bound(variable, bound, where)
    elif isinstance(literal, Assignment):
        require_bound(literal.variable, bound | {literal.variable.name}, f"assignment '{literal}'")
        for variable in expr_variables(literal.expr):
            require_bound(variable, bound - {literal.variable.name}, f"assignment '{literal}'")
    elif isinstance(literal, Negation):
        check_negation(literal, bound, occ)
    elif isinstance(literal, Aggregate):
        check_aggregate(literal, occ)


def check_body(body: tuple[Literal, ...], occ: Occurrences) -> None:
    bound = scope_bound(body)
    for literal in body:
        check_literal(literal, bound, occ)


def check_rule(rule: Rule) -> None:
    """Check one (normalised) rule: the body literals in source order (root causes first), then the head."""
    check_body(rule.body, occurrences(rule))
    bound = scope_bound(rule.body)
    for variable in atom_variables(rule.head):
        require_bound(variable, bound, f"the head '{rule.head}'")


def check_fact(fact: Fact) -> None:
    for variable in atom_variables(fact.atom):
        raise UnsafeVariableError(f"fact '{fact}' is not ground: it has the variable '{variable}'", variable.span)


def check_safety(program: Program) -> None:
    """Raise :class:`UnsafeVariableError` on the first unsafe variable of a (normalised) program."""
    for fact in program.facts:
        check_fact(fact)
    for rule in program.rules:
        check_rule(rule)
