"""Static checks: one arity per predicate, known functions, and kind errors visible in the program text."""

from __future__ import annotations

from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from deltalog.errors import ArityError, TypeCheckError, UnknownFunctionError
from deltalog.syntax.ast import (
    AGGREGATE_FUNCTIONS,
    FUNCTIONS,
    Aggregate,
    Assignment,
    Atom,
    BinaryOp,
    Call,
    Comparison,
    Constant,
    Expr,
    Literal,
    Span,
    literal_atoms,
)
from deltalog.syntax.statements import Program

NUMERIC_FUNCTIONS = frozenset({"abs", "int", "float"})
TEXT_FUNCTIONS = frozenset({"str", "concat"})
KIND_NAMES = {"iri": "an IRI", "string": "a string", "number": "a number", "literal": "an RDF literal"}


def program_atoms(program: Program) -> list[Atom]:
    """Every atom of the program (heads, bodies, inside negations and aggregates, facts), in source order."""
    atoms = [atom for rule in program.rules for atom in (rule.head,) + rule_body_atoms(rule.body)]
    atoms += [fact.atom for fact in program.facts]
    return sorted(atoms, key=lambda a: (a.span.file, a.span.line, a.span.column))


def rule_body_atoms(body: Iterable[Literal]) -> tuple[Atom, ...]:
    return tuple(atom for literal in body for atom in literal_atoms(literal))


def check_arities(program: Program, extra_arities: Mapping[str, int] = MappingProxyType({})) -> dict[str, int]:
    """The arity of every predicate; raise :class:`ArityError` at the first use that disagrees with an earlier one."""
    first: dict[str, Atom] = {}
    for atom in program_atoms(program):
        seen = first.setdefault(atom.predicate, atom)
        if seen.arity != atom.arity:
            raise ArityError(
                f"predicate '{atom.predicate}' is used with arity {atom.arity} here but with arity {seen.arity} "
                f"at {seen.span}",
                atom.span,
                notes=(f"first used as {seen} at {seen.span}",),
            )
    return check_data_arities(first, extra_arities)


def check_data_arities(first: dict[str, Atom], extra_arities: Mapping[str, int]) -> dict[str, int]:
    """Merge the arities known from data files, which must agree with the program's."""
    arities = {predicate: atom.arity for predicate, atom in first.items()}
    for predicate, arity in extra_arities.items():
        if arities.setdefault(predicate, arity) != arity:
            raise ArityError(
                f"predicate '{predicate}' has arity {arity} in the data but arity {arities[predicate]} in the program",
                first[predicate].span,
            )
    return arities


def literal_expressions(literal: Literal) -> Iterator[Expr]:
    """The expressions of a literal (comparison sides, assigned expressions, inside aggregates too)."""
    if isinstance(literal, Comparison):
        yield from (literal.left, literal.right)
    elif isinstance(literal, Assignment):
        yield literal.expr
    elif isinstance(literal, Aggregate):
        for inner in literal.body:
            yield from literal_expressions(inner)


def subexpressions(expr: Expr) -> Iterator[Expr]:
    """An expression and all its parts, outermost first."""
    yield expr
    parts = (expr.left, expr.right) if isinstance(expr, BinaryOp) else expr.args if isinstance(expr, Call) else ()
    for part in parts:
        yield from subexpressions(part)


def program_nodes(program: Program) -> Iterator[Expr]:
    for rule in program.rules:
        for literal in rule.body:
            for expr in literal_expressions(literal):
                yield from subexpressions(expr)


def body_aggregates(body: Iterable[Literal]) -> Iterator[Aggregate]:
    for literal in body:
        if isinstance(literal, Aggregate):
            yield literal
            yield from body_aggregates(literal.body)


def check_call(call: Call) -> None:
    if call.function not in FUNCTIONS:
        known = ", ".join(sorted(FUNCTIONS))
        raise UnknownFunctionError(f"unknown function '{call.function}' (known functions: {known})", call.span)
    arity = FUNCTIONS[call.function]
    if arity is None and not call.args:
        raise UnknownFunctionError(f"function '{call.function}' takes one or more arguments, got none", call.span)
    if arity is not None and len(call.args) != arity:
        plural = "argument" if arity == 1 else "arguments"
        raise UnknownFunctionError(
            f"function '{call.function}' takes {arity} {plural}, got {len(call.args)}", call.span
        )


def check_aggregate_function(aggregate: Aggregate) -> None:
    if aggregate.function not in AGGREGATE_FUNCTIONS:
        known = ", ".join(AGGREGATE_FUNCTIONS)
        raise UnknownFunctionError(
            f"unknown aggregate function '{aggregate.function}' (known: {known})", aggregate.span
        )
    if aggregate.arg is None and aggregate.function != "count":
        raise UnknownFunctionError(f"aggregate '{aggregate.function}' needs an argument", aggregate.span)
    if isinstance(aggregate.arg, Constant) and aggregate.function != "count":
        # the planner aggregates a column of the body's bindings; a constant has none
        raise TypeCheckError(f"the argument of '{aggregate.function}' must be a variable of its body, "
                             f"not the constant {aggregate.arg}", aggregate.arg.span,
                             notes=("a constant's min, max, avg and median is itself; its sum is the count "
                                    "times the constant",))


def check_functions(program: Program) -> None:
    """Raise :class:`UnknownFunctionError` on an unknown function, a wrong argument count or an unknown aggregate."""
    for node in program_nodes(program):
        if isinstance(node, Call):
            check_call(node)
    for rule in program.rules:
        for aggregate in body_aggregates(rule.body):
            check_aggregate_function(aggregate)


def static_kind(expr: Expr) -> str | None:
    """The kind an expression surely has ("number", "string", "iri", "literal"), or None when it depends on the data."""
    if isinstance(expr, Constant):
        return "number" if expr.kind in ("int", "float") else expr.kind
    if isinstance(expr, BinaryOp):
        if expr.op != "+":
            return "number"
        kinds = {static_kind(expr.left), static_kind(expr.right)}
        return kinds.pop() if len(kinds) == 1 and kinds <= {"number", "string"} else None
    if isinstance(expr, Call):
        if expr.function in NUMERIC_FUNCTIONS:
            return "number"
        return "string" if expr.function in TEXT_FUNCTIONS else None
    return None


def span_of(node: Expr, fallback: Span) -> Span:
    return node.span if node.span.line else fallback


def check_operation(expr: BinaryOp) -> None:
    kinds = (static_kind(expr.left), static_kind(expr.right))
    for operand, kind in zip((expr.left, expr.right), kinds):
        if kind in ("iri", "literal") or (kind == "string" and expr.op != "+"):
            raise TypeCheckError(
                f"cannot apply '{expr.op}' to {KIND_NAMES[kind]} ({operand}) in {expr}", span_of(operand, expr.span)
            )
    if expr.op == "+" and set(kinds) == {"string", "number"}:
        raise TypeCheckError(f"cannot add a string and a number: {expr}", expr.span)


def check_abs(call: Call) -> None:
    kind = static_kind(call.args[0])
    if kind in ("string", "iri", "literal"):
        raise TypeCheckError(f"abs needs a number, not {KIND_NAMES[kind]}: {call}", span_of(call.args[0], call.span))


def check_types(program: Program) -> None:
    """Raise :class:`TypeCheckError` on arithmetic whose operands are visibly of the wrong kind."""
    for node in program_nodes(program):
        if isinstance(node, BinaryOp):
            check_operation(node)
        elif isinstance(node, Call) and node.function == "abs":
            check_abs(node)
