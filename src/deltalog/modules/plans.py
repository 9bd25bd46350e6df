"""Small plan builders the closure modules share (modules/closure.py, transitive.py): binary relations as
(c0, c1) columns in a view, possibly flipped, unions of such plans, and the closure comparisons of 003
section 4's maintenance (``difference``, ``reached``)."""

from __future__ import annotations

from typing import Callable, Sequence

from deltalog.plan import ir
from deltalog.plan.rules import View

PAIR = ("c0", "c1")
NOW = View()


def pairs(relation: str, view: View, flip: bool = False) -> ir.Node:
    """A binary relation's rows in a view as columns (c0, c1); ``flip`` swaps them."""
    scan = keyed(relation, view, flip)
    return ir.Project(scan, tuple((c, ir.Col(c)) for c in PAIR)) if flip else scan


def keyed(relation: str, view: View, flip: bool = False) -> ir.Scan:
    """The same rows as a bare scan (its columns (c1, c0) when flipped): the right side of a join by
    column names, which the executor probes through the relation's own index instead of indexing a
    projection's copy of the rows."""
    return ir.Scan(view.relation or relation, (ir.Col("c1"), ir.Col("c0")) if flip else (ir.Col("c0"), ir.Col("c1")),
                   view.since, view.until, None, view.visible, view.deleted)


def column(plan: ir.Node, name: str, to: str = "c0") -> ir.Node:
    return ir.Project(plan, ((to, ir.Col(name)),))


def union(plans: Sequence[ir.Node], columns: tuple[str, ...] = PAIR) -> ir.Node:
    plans = [p for p in plans if p is not None]
    if not plans:
        return ir.Values(columns, ())
    return plans[0] if len(plans) == 1 else ir.Union_(tuple(plans))


def swap(plan: ir.Node) -> ir.Node:
    """(c0, c1) -> (c1, c0), named c0, c1."""
    return ir.Project(plan, (("c0", ir.Col("c1")), ("c1", ir.Col("c0"))))


def apart(plan: ir.Node) -> ir.Node:
    return ir.Filter(plan, ir.Compare("!=", ir.Col("c0"), ir.Col("c1")))


def diagonal(plan: ir.Node) -> ir.Node:
    return ir.Filter(plan, ir.Compare("same", ir.Col("c0"), ir.Col("c1")))


Comparison = Callable[[ir.Node, ir.Node, ir.Node], ir.Node]
"""A closure node comparing two graphs from changed facts: ``ir.ClosureDifference`` or ``ir.ComponentDifference``."""


def difference(compare: Comparison, before: ir.Node, after: ir.Node, changed: ir.Node, irreflexive: bool) -> ir.Node:
    """The closure pairs the graph ``before`` gives and ``after`` does not, from the ``changed`` facts (``compare``:
    for the sources that reach a tail of one over ``before``, 003 section 4, or the components holding one);
    irreflexive: the pairs x != y, and the diagonal facts of ``changed`` that ``before`` has and ``after`` has
    not."""
    gone = compare(before, after, changed)
    if not irreflexive:
        return gone
    lost = ir.AntiJoin(ir.SemiJoin(ir.Distinct(diagonal(changed)), before, PAIR), after, PAIR)
    return ir.Union_((apart(gone), lost))


Check = Callable[[ir.Node, ir.Node], ir.Node]
"""A closure node keeping the pairs a graph's closure holds: ``ir.Reaches`` or ``ir.Connects``."""


def reached(check: Check, graph: ir.Node, now: ir.Node, candidates: ir.Node, irreflexive: bool) -> ir.Node:
    """The ``candidates`` (pairs) the closure of the inputs ``now`` holds, asked of their ``graph`` (``check``:
    reachability bits for the targets only, not the sources' whole rows; or one component labelling);
    irreflexive: pairs x != y, and the diagonal candidates that are inputs."""
    found = check(graph, candidates)
    if not irreflexive:
        return found
    return ir.Union_((apart(found), ir.SemiJoin(diagonal(candidates), now, PAIR)))
