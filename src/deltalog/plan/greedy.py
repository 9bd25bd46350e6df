"""The default planner: greedy left-deep joins from cardinality estimates (the ordering is plan.joins).

It estimates each source's size and fan-out from the statistics (rows in the view, distinct keys
from the indexes), starts at ``query.first`` (else the smallest source), and lets
``joins.order_joins`` grow the pipeline, placing filters, BINDs and negations as soon as bound.
"""

from __future__ import annotations

from deltalog.plan import ir
from deltalog.plan.joins import Pending, Source, Statistics, order_joins
from deltalog.plan.query import (
    FULL,
    AggregateQuery,
    BodyQuery,
    InView,
    Planner,
    View,
    Window,
    as_view,
)
from deltalog.plan.translate import expression, variables_of
from deltalog.syntax.ast import Atom, Constant

WITNESS_EXPANSION = 4.0
"""Matches a witness search expands per row and join, as the planner estimates it (a few windows)."""
UNIT = Source(ir.Values((), ((),)), frozenset(), 1)   # a body without sources: one empty binding


class GreedyPlanner(Planner):
    """Today's planner: one greedy left-deep pipeline with early semi-joins (see plan.joins)."""

    def plan(self, query: BodyQuery, stats: Statistics) -> ir.Node:
        if len(query.sources) == 1 and isinstance(query.sources[0], InView):
            sources = [lone_source(query.sources[0])]
        else:
            sources = [self.source(s, stats) for s in query.sources] or [UNIT]
        needed = set(query.needed)
        if query.instances:   # keep every variable: one row per rule instance
            needed |= set().union(*(s.names for s in sources))
        pending = pending_literals([n.atom for n in query.negations], query.filters, query.binds,
                                   {id(n.atom): n.view for n in query.negations})
        return order_joins(sources, pending, needed, query.first, semijoin_groups=not query.instances,
                           expansion_cap=WITNESS_EXPANSION if query.witness else None)

    def source(self, source: InView | AggregateQuery, stats: Statistics) -> Source:
        if isinstance(source, AggregateQuery):   # one row per group: estimated as one
            plan = self.aggregate(source, stats)
            return Source(plan, frozenset(plan.columns), 1)
        return atom_source(source.atom, source.view, stats)

    def __repr__(self) -> str:
        return "GreedyPlanner()"


def atom_source(atom: Atom, view: View | Window, stats: Statistics) -> Source:
    """A source reading ``atom`` in ``view``; its fan-out comes from distinct-key counts."""
    view = as_view(view)
    rows = stats.rows(view.relation or atom.predicate, view.since, view.until, view.visible, view.deleted)
    cache: dict[frozenset[str], float] = {}

    def fanout(bound: frozenset[str]) -> float:
        if bound not in cache:
            positions = tuple(i for i, t in enumerate(atom.terms)
                              if isinstance(t, Constant) or t.name in bound)
            distinct = stats.distinct(atom.predicate, positions) if positions else 1
            cache[bound] = rows / max(distinct or 1, 1) if positions else float(rows)
        return cache[bound]

    return Source(view.scan(atom), frozenset(variables_of(atom)), rows, fanout)


def lone_source(source: InView) -> Source:
    """A body's only atom, its size not asked: ``order_joins`` compares the sizes of two sources or more, so
    a lone one's reaches no choice, and a plan built without a statistic is one the plan cache
    (plan/cache.py) reuses without asking one again (one atom, with or without filters and negations)."""
    view = as_view(source.view)
    return Source(view.scan(source.atom), frozenset(variables_of(source.atom)), 1)


def pending_literals(negative, filters, assignments, views: dict[int, View] | None = None) -> Pending:
    """Literals placed as soon as bound; negated atoms are anti-joined against their views
    (``views`` maps id(atom) to a view; default: the facts now)."""
    views = views or {}
    return Pending(
        list(filters), list(assignments), list(negative),
        place_filter=lambda plan, f: ir.Filter(plan, ir.Compare(f.op, expression(f.left), expression(f.right))),
        place_assignment=lambda plan, a: ir.Bind(plan, a.variable.name, expression(a.expr)),
        check_assignment=lambda plan, a: ir.Filter(plan, ir.Compare("same", ir.Col(a.variable.name),
                                                                    expression(a.expr))),
        place_negation=lambda plan, atom, on: ir.AntiJoin(plan, views.get(id(atom), FULL).scan(atom), on),
        variables=variables_of,
    )
