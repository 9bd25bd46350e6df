"""Planning one rule body as a left-deep pipeline: start at the delta atom, join by cardinality estimates.

Like 001 section 9.2, matching starts at the atom read from the (small) delta and
continues through atoms that share bound variables, cheapest first; filters,
assignments and negations are applied as soon as their variables are bound, and
columns no later step needs are projected away early.

The caller decides which generation window each positive atom reads (``windows``):
that is how the seminaive variants of 000 equation (7) are expressed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from deltalog.analysis.program import RuleInfo, split_body
from deltalog.plan import ir
from deltalog.syntax.ast import Aggregate, Assignment, Atom, BinaryOp, Call, Comparison, Constant, Variable, Expr

Window = tuple[int, int | None]
Estimate = Callable[[str, int, int | None], int]
FULL: Window = (0, None)


def term(t) -> ir.Term:
    return ir.Lit(t) if isinstance(t, Constant) else ir.Col(t.name)


def expression(e: Expr) -> ir.Expr:
    """The IR form of an AST expression."""
    if isinstance(e, Variable):
        return ir.Col(e.name)
    if isinstance(e, Constant):
        return ir.Lit(e)
    if isinstance(e, BinaryOp):
        return ir.Arith(e.op, expression(e.left), expression(e.right))
    if isinstance(e, Call):
        return ir.Func(e.function, tuple(expression(a) for a in e.args))
    raise TypeError(f"not an expression: {e!r}")


def variables_of(e) -> set[str]:
    if isinstance(e, Variable):
        return {e.name}
    if isinstance(e, Atom):
        return {t.name for t in e.terms if isinstance(t, Variable)}
    if isinstance(e, BinaryOp):
        return variables_of(e.left) | variables_of(e.right)
    if isinstance(e, Call):
        return set().union(*(variables_of(a) for a in e.args)) if e.args else set()
    if isinstance(e, Comparison):
        return variables_of(e.left) | variables_of(e.right)
    if isinstance(e, Assignment):
        return variables_of(e.expr) | {e.variable.name}
    return set()


def scan(atom: Atom, window: Window = FULL, label: str | None = None) -> ir.Scan:
    return ir.Scan(atom.predicate, tuple(term(t) for t in atom.terms), window[0], window[1], label)


@dataclass
class Body:
    """The literals of a body still to be placed in the pipeline."""

    sources: list[tuple[ir.Node, set[str], int]]   # (plan, variables it binds, estimated rows)
    negative: list[Atom]
    filters: list[Comparison]
    assignments: list[Assignment]


def plan_body(body: Body, needed: set[str], first: int | None) -> ir.Node:
    """Join the sources (starting with ``first`` if given), placing the other literals as early as possible."""
    remaining = list(range(len(body.sources)))
    start = first if first is not None else min(remaining, key=lambda i: body.sources[i][2])
    remaining.remove(start)
    plan, bound = body.sources[start][0], set(body.sources[start][1])
    plan, bound = _apply_ready(plan, bound, body)
    while remaining:
        nxt = min(remaining, key=lambda i: _join_cost(body.sources[i], bound))
        remaining.remove(nxt)
        source, names, _ = body.sources[nxt]
        plan = ir.Join(_keep(plan, _live(body, remaining, needed) | names), source, tuple(sorted(bound & names)))
        bound |= names
        plan, bound = _apply_ready(plan, bound, body)
    if body.negative or body.filters or body.assignments:
        raise ValueError("a literal could not be placed: its variables are never bound")
    return plan


def _join_cost(source: tuple[ir.Node, set[str], int], bound: set[str]) -> tuple:
    """Prefer sources that share variables with what is bound, then the smallest."""
    _, names, rows = source
    shared = len(names & bound)
    return (shared == 0, -shared / max(len(names), 1), rows)


def _live(body: Body, remaining: list[int], needed: set[str]) -> set[str]:
    live = set(needed)
    for i in remaining:
        live |= body.sources[i][1]
    for lit in list(body.negative) + list(body.filters) + list(body.assignments):
        live |= variables_of(lit)
    return live


def _keep(plan: ir.Node, live: set[str]) -> ir.Node:
    """Project away columns nothing later needs."""
    kept = tuple(c for c in plan.columns if c in live)
    if len(kept) == len(plan.columns):
        return plan
    return ir.Project(plan, tuple((c, ir.Col(c)) for c in kept))


def _apply_ready(plan: ir.Node, bound: set[str], body: Body) -> tuple[ir.Node, set[str]]:
    """Add every filter, assignment and negation whose inputs are now bound."""
    progress = True
    while progress:
        progress = False
        for f in [f for f in body.filters if variables_of(f) <= bound]:
            body.filters.remove(f)
            plan, progress = ir.Filter(plan, ir.Compare(f.op, expression(f.left), expression(f.right))), True
        for a in [a for a in body.assignments if variables_of(a.expr) <= bound]:
            body.assignments.remove(a)
            plan, progress = ir.Bind(plan, a.variable.name, expression(a.expr)), True
            bound.add(a.variable.name)
    for atom in list(body.negative):
        on = tuple(sorted(variables_of(atom) & bound))
        if set(on) >= variables_of(atom) - _locals(atom, body, bound):
            body.negative.remove(atom)
            plan = ir.AntiJoin(plan, scan(atom), on)
    return plan, bound


def _locals(atom: Atom, body: Body, bound: set[str]) -> set[str]:
    """Variables of a negated atom that nothing else binds: they mean "for no value"."""
    others = set(bound)
    for source in body.sources:
        others |= source[1]
    for lit in body.filters + body.assignments:
        others |= variables_of(lit)
    for other in body.negative:
        if other is not atom:
            others |= variables_of(other)
    return variables_of(atom) - others


def aggregate_plan(rule: RuleInfo, aggregate: Aggregate, estimate: Estimate) -> ir.Node:
    """Aggregate[group; R = f(Arg)] over the distinct bindings of the aggregate's body."""
    positive, negative, filters, assignments, inner = split_body(aggregate.body)
    sources = [(scan(a), variables_of(a), estimate(a.predicate, 0, None)) for a in positive]
    body = Body(sources, list(negative), list(filters), list(assignments))
    variables = set().union(*(variables_of(a) for a in positive)) | {a.variable.name for a in assignments}
    inner_plan = plan_body(body, variables, None)
    names = tuple(sorted(variables))
    distinct = ir.Distinct(ir.Project(inner_plan, tuple((n, ir.Col(n)) for n in names)))
    argument = aggregate.arg.name if isinstance(aggregate.arg, Variable) else None
    return ir.Aggregate(distinct, rule.group_by(aggregate), aggregate.function, argument, aggregate.result.name)


def rule_plan(rule: RuleInfo, windows: Sequence[Window], estimate: Estimate, *,
              first: int | None = None, label: str | None = None) -> ir.Node:
    """The plan deriving head tuples (columns c0..ck) of ``rule``, positive atom i read in windows[i]."""
    sources = [(scan(a, w), variables_of(a), estimate(a.predicate, *w)) for a, w in zip(rule.positive, windows)]
    for aggregate in rule.aggregates:
        agg = aggregate_plan(rule, aggregate, estimate)
        sources.append((agg, set(agg.columns), 1))
    if not sources:
        sources.append((ir.Values((), ((),)), set(), 1))
    body = Body(sources, list(rule.negative), list(rule.filters), list(rule.assignments))
    head_vars = variables_of(rule.head)
    plan = plan_body(body, head_vars, first)
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(rule.head.terms))
    return ir.Project(plan, outputs, label=label)
