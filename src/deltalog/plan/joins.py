"""Ordering a rule body's joins by cardinality estimates, left-deep with early semi-joins (GreedyPlanner).

Starting from one source (the delta atom in seminaive rounds), each step either
- semi-joins a source whose variables are all bound already (an existence check, no expansion),
- semi-joins a whole group of sources connected only through variables nothing else needs
  (e.g. ``ca(X, Z2), pc(Z2, Y)`` once X and Y are bound), computed on its own, when that is
  estimated cheaper than expanding the bindings through it, or
- joins the connected source with the smallest estimated fan-out.
Filters, assignments and negations are placed as soon as their variables are bound, and
columns no later step needs are projected away.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from deltalog.plan import ir
from deltalog.syntax.ast import Assignment, Atom, Comparison


class Statistics(Protocol):
    """What the planner may ask about stored relations (both answers may be estimates)."""

    def rows(self, relation: str, since: int, until: int | None, visible: int | None = None,
             deleted: tuple[int, int | None] | None = None) -> int: ...

    def distinct(self, relation: str, positions: tuple[int, ...]) -> int | None: ...


@dataclass
class Source:
    """Something to join: its plan, the variables it binds, its size, and how its fan-out is estimated."""

    plan: ir.Node
    names: frozenset[str]
    rows: int
    fanout_of: Callable[[frozenset[str]], float] = field(repr=False, default=lambda bound: 1.0)

    def fanout(self, bound: set[str] | frozenset[str]) -> float:
        """Expected matches per binding of the variables of ``bound`` it shares."""
        return self.fanout_of(frozenset(self.names & bound))


@dataclass
class Pending:
    """Literals waiting for their variables: filters, assignments, negations."""

    filters: list[Comparison]
    assignments: list[Assignment]
    negative: list[Atom]
    place_filter: Callable[[ir.Node, Comparison], ir.Node]
    place_assignment: Callable[[ir.Node, Assignment], ir.Node]
    check_assignment: Callable[[ir.Node, Assignment], ir.Node]
    place_negation: Callable[[ir.Node, Atom, tuple[str, ...]], ir.Node]
    variables: Callable[[object], set[str]]

    def names(self, excluding: object = None) -> set[str]:
        """Variables of the waiting literals (but ``excluding``)."""
        out: set[str] = set()
        for literal in self.filters + self.assignments + self.negative:
            if literal is not excluding:
                out |= self.variables(literal)
        return out


def order_joins(sources: list[Source], pending: Pending, needed: set[str], first: int | None,
                semijoin_groups: bool = True, expansion_cap: float | None = None) -> ir.Node:
    """The body plan: sources joined in estimated-cheapest order, other literals placed early
    (``expansion_cap``: at most this many matches a row are expanded per join, as a witness search does)."""
    remaining = list(sources)
    start = sources[first] if first is not None else min(remaining, key=lambda s: s.rows)
    remaining.remove(start)
    plan, bound, size = start.plan, set(start.names), float(max(start.rows, 1))
    dead = bound - (needed | pending.names() | set().union(*(s.names for s in remaining)))
    if dead:   # variables only the start binds and nothing uses: drop them, and the duplicates
        bound -= dead
        plan = ir.Distinct(keep_only(plan, bound))
    plan = place_ready(plan, bound, pending, remaining)
    while remaining:
        plan, size = semijoin_bound(plan, bound, size, remaining, needed | pending.names())
        if semijoin_groups:
            plan, size = semijoin_groups_cheaply(plan, bound, size, remaining, pending, needed, expansion_cap)
        if not remaining:
            break
        nxt = min(remaining, key=lambda s: (not (s.names & bound), s.fanout(bound), s.rows))
        remaining.remove(nxt)
        live = needed | pending.names() | set().union(*(s.names for s in remaining)) | nxt.names
        plan = ir.Join(keep_only(plan, live), nxt.plan, tuple(sorted(bound & nxt.names)))
        size *= max(nxt.fanout(bound), 1e-9) if nxt.names & bound else max(nxt.rows, 1)
        bound |= nxt.names
        plan = place_ready(plan, bound, pending, remaining)
    if pending.filters or pending.assignments or pending.negative:
        raise ValueError("a literal could not be placed: its variables are never bound")
    return plan


def semijoin_bound(plan: ir.Node, bound: set[str], size: float, remaining: list[Source], used: set[str]):
    """A scan whose unbound variables nothing else uses only filters: semi-join it (no expansion)."""
    for source in [s for s in remaining if isinstance(s.plan, ir.Scan)]:
        others = set().union(*(s.names for s in remaining if s is not source), set())
        if (source.names - bound) & (used | others):
            continue
        remaining.remove(source)
        plan = ir.SemiJoin(plan, source.plan, tuple(sorted(source.names & bound)))
        size *= min(1.0, source.fanout(bound))
    return plan, size


def groups(remaining: list[Source], bound: set[str]) -> list[list[Source]]:
    """Sources connected through variables that are not bound yet."""
    out: list[list[Source]] = []
    for source in remaining:
        free = source.names - bound
        touching = [g for g in out if any(free & (s.names - bound) for s in g)]
        merged = [source] + [s for g in touching for s in g]
        out = [g for g in out if g not in touching] + [merged]
    return out


def semijoin_groups_cheaply(plan, bound, size, remaining, pending, needed, cap: float | None = None):
    """Replace a group of sources by a semi-join when its own variables are needed nowhere else
    and evaluating it on its own is estimated cheaper than expanding every binding through it
    (``cap``: by at most that factor)."""
    for group in groups(remaining, bound):
        internal = set().union(*(s.names for s in group)) - bound
        others = set().union(*(s.names for s in remaining if s not in group), set())
        interface = set().union(*(s.names for s in group)) & bound
        if not internal or not interface or internal & (needed | pending.names() | others):
            continue
        alone, alone_size = plan_group(group)
        growth = expansion(group, bound)
        if alone_size >= size * (growth if cap is None else min(growth, cap)):
            continue
        for source in group:
            remaining.remove(source)
        on = tuple(sorted(interface))
        projected = ir.Project(alone, tuple((c, ir.Col(c)) for c in on))
        plan = ir.SemiJoin(plan, ir.Distinct(projected), on)
    return plan, size


def expansion(group: list[Source], bound: set[str]) -> float:
    """Estimated growth factor of joining the group into the current bindings, greedily."""
    factor, names, rest = 1.0, set(bound), list(group)
    while rest:
        nxt = min(rest, key=lambda s: (not (s.names & names), s.fanout(names)))
        rest.remove(nxt)
        factor *= nxt.fanout(names) if nxt.names & names else max(nxt.rows, 1)
        names |= nxt.names
    return factor


def plan_group(group: list[Source]) -> tuple[ir.Node, float]:
    """A standalone left-deep plan of a group, with its estimated size."""
    rest = list(group)
    start = min(rest, key=lambda s: s.rows)
    rest.remove(start)
    plan, names, size = start.plan, set(start.names), float(max(start.rows, 1))
    while rest:
        nxt = min(rest, key=lambda s: (not (s.names & names), s.fanout(names)))
        rest.remove(nxt)
        plan = ir.Join(plan, nxt.plan, tuple(sorted(names & nxt.names)))
        size *= nxt.fanout(names) if nxt.names & names else max(nxt.rows, 1)
        names |= nxt.names
    return plan, size


def keep_only(plan: ir.Node, live: set[str]) -> ir.Node:
    """Project away columns nothing later needs."""
    kept = tuple(c for c in plan.columns if c in live)
    if len(kept) == len(plan.columns):
        return plan
    return ir.Project(plan, tuple((c, ir.Col(c)) for c in kept))


def place_ready(plan: ir.Node, bound: set[str], pending: Pending, remaining: list[Source]) -> ir.Node:
    """Add every filter, assignment and negation whose inputs are now bound."""
    progress = True
    while progress:
        progress = False
        for f in [f for f in pending.filters if pending.variables(f) <= bound]:
            pending.filters.remove(f)
            plan, progress = pending.place_filter(plan, f), True
        for a in [a for a in pending.assignments if pending.variables(a.expr) <= bound]:
            pending.assignments.remove(a)
            if a.variable.name in bound:   # bound already (e.g. by a head fact): check, don't rebind
                plan, progress = pending.check_assignment(plan, a), True
                continue
            plan, progress = pending.place_assignment(plan, a), True
            bound.add(a.variable.name)
    for atom in list(pending.negative):
        own = pending.variables(atom)
        elsewhere = set(bound).union(*(s.names for s in remaining), pending.names(excluding=atom))
        if own & elsewhere <= bound:
            pending.negative.remove(atom)
            plan = pending.place_negation(plan, atom, tuple(sorted(own & bound)))
    return plan
