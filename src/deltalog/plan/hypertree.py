"""Yannakakis evaluation of a body over its hypertree decomposition, emitted as an ordinary plan
(000 sections 2 and 4: in-node evaluation, the full reducer, the cross-node join).

Given a ``BodyQuery`` the planner decomposes its sources (analysis/decompose.py; cached per body
shape, so the seminaive variants of one rule share one decomposition) and emits, per tree node p:

1. *in-node evaluation*: the join of the λ(p) sources, each read in its own view from the query,
   projected on χ(p) and semi-joined with the node's filter atoms; the negations and comparisons
   attached to p (their variables lie in χ(p)) are applied there;
2. the *full reducer*: 000 section 4 starts the traversal at the node of the delta atom (Algorithm 4,
   line 6, ``TopDownLSJ(p_i)``). Here the tree is rooted at that node and the top-down pass is pushed
   into the in-node joins: a child's node relation starts from its separator with the (reduced)
   parent, so in a seminaive round only the nodes' rows that join with the delta are built. Then the
   bottom-up semi-join pass towards the delta node (line 7);
3. the *cross-node join* from that root down the tree, projecting after each join on the variables
   still needed (the query's, the pending literals', and those of the nodes not joined yet) with a
   Distinct, so no intermediate result exceeds its projection of the output.

Then the pending literals that need more than the atoms (BINDs, and negations and comparisons over
BIND results) are placed as the greedy planner places them. Queries that must keep one row per rule
instance (``instances``: Counting, DRed/C), or with fewer than two atoms, are planned greedily.
Because the result is a plan, it runs on every backend and inside every algorithm unchanged.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from deltalog.analysis.decompose import Decomposition, decompositions
from deltalog.plan import ir
from deltalog.plan.greedy import GreedyPlanner, pending_literals
from deltalog.plan.joins import Source, Statistics, order_joins, place_ready
from deltalog.plan.query import FULL, BodyQuery, InView, node_label
from deltalog.plan.translate import variables_of
from deltalog.syntax.ast import Comparison


@lru_cache(maxsize=4096)
def body_decompositions(edges: tuple[frozenset[str], ...], constraints: tuple[frozenset[str], ...],
                        prefer: frozenset[str]) -> tuple[Decomposition, ...]:
    """The candidate decompositions of a body shape (000 section 2), computed once per shape: the
    minimal-width one first, then others of that width (``analysis.decompose.decompositions``)."""
    return decompositions(edges, constraints, prefer)


def body_decomposition(edges: tuple[frozenset[str], ...], constraints: tuple[frozenset[str], ...],
                       prefer: frozenset[str]) -> Decomposition:
    """The data-blind decomposition of a body shape (``deltalog plan`` prints it)."""
    return body_decompositions(edges, constraints, prefer)[0]


class Shape:
    """A query split for decomposition: the atoms with variables (the hyperedges), the ground ones,
    the literals a node can enforce (negations and comparisons over atom variables) and the rest."""

    def __init__(self, query: BodyQuery, names: list[frozenset[str]]):
        self.atoms = [i for i, n in enumerate(names) if n]
        self.ground = [i for i, n in enumerate(names) if not n]
        variables = frozenset().union(*names)
        assigned = {a.variable.name for a in query.binds}
        self.local: list[InView | Comparison] = []       # constraint j: a literal enforced at a node
        self.constraint_names: list[frozenset[str]] = []
        self.later_negations: list[InView] = []
        self.later_filters: list[Comparison] = []
        for negation in query.negations:
            own = variables_of(negation.atom)
            if own & assigned:
                self.later_negations.append(negation)
            else:
                self.local.append(negation)
                self.constraint_names.append(frozenset(own & variables))
        for comparison in query.filters:
            own = variables_of(comparison)
            if own <= variables:
                self.local.append(comparison)
                self.constraint_names.append(frozenset(own))
            else:
                self.later_filters.append(comparison)
        self.decompositions = body_decompositions(tuple(names[i] for i in self.atoms),
                                                  tuple(self.constraint_names), frozenset(query.needed))


class YannakakisPlanner(GreedyPlanner):
    """Plans every body of two or more atoms by its decomposition (see the module docstring).

    ``guarded``: keep the greedy plan unless the decomposition's estimated cost (rows produced by the
    in-node joins, semi-joins and cross-node joins, from the same statistics) is below the greedy
    pipeline's by a factor :data:`MARGIN` (the cost-based part of 000 section 5's choice)."""

    def __init__(self, guarded: bool = False):
        self.guarded = guarded

    def plan(self, query: BodyQuery, stats: Statistics) -> ir.Node:
        if query.instances:   # one row per rule instance: no projection may drop a variable
            return super().plan(query, stats)
        sources = [self.source(s, stats) for s in query.sources]
        shape = Shape(query, [frozenset(s.names) for s in sources])
        if len(shape.atoms) < 2 or (query.first is not None and query.first in shape.ground):
            return super().plan(query, stats)
        # every candidate decomposition estimated on the current statistics; the cheapest is planned
        candidates = [Yannakakis(query, shape, sources, tree) for tree in shape.decompositions]
        yannakakis = min(candidates, key=Yannakakis.estimated_cost) if len(candidates) > 1 else candidates[0]
        plan = yannakakis.plan()
        if self.guarded and yannakakis.cost * MARGIN >= pipeline_estimate(sources, query.first)[0]:
            return super().plan(query, stats)
        return plan

    def __repr__(self) -> str:
        return f"YannakakisPlanner(guarded={self.guarded})"


MARGIN = 16.0


def pipeline_estimate(sources: list[Source], first: int | None) -> tuple[float, float]:
    """(rows produced in all, rows at the end) of a left-deep pipeline over ``sources`` in the greedy
    planner's order (plan/joins.py), an existence check where every variable is bound already."""
    rest = list(sources)
    start = sources[first] if first is not None else min(rest, key=lambda s: s.rows)
    rest.remove(start)
    names, size = set(start.names), float(max(start.rows, 1))
    cost = size
    while rest:
        nxt = min(rest, key=lambda s: (not (s.names & names), s.fanout(names), s.rows))
        rest.remove(nxt)
        if nxt.names <= names:
            size *= min(1.0, nxt.fanout(names))
        else:
            size *= max(nxt.fanout(names), 1e-9) if nxt.names & names else max(nxt.rows, 1)
        names |= nxt.names
        cost += size
    return cost, max(size, 1.0)


def node_estimate(members: list[Source], first: int | None) -> tuple[float, int]:
    """(rows a node adds to a Yannakakis plan's estimated cost: its in-node join, then its semi-join
    and cross-node join; the node relation's estimated size)."""
    produced, size = pipeline_estimate(members, first)
    return 2 * produced + size, int(min(size, min(s.rows for s in members)))


class Yannakakis:
    """One body's plan over its decomposition (000 Algorithm 4 for one delta node)."""

    def __init__(self, query: BodyQuery, shape: Shape, sources: list[Source], tree: Decomposition):
        self.query, self.shape, self.sources = query, shape, sources
        self.tree = tree
        self.views = {id(n.atom): n.view for n in query.negations}
        self.root = self.delta_node()
        self.order, self.parent = self.traversal(self.root)
        self.cost = 0.0   # estimated rows produced, filled in by plan()
        used = set(query.needed) | self.later().names()
        nodes = self.tree.nodes
        self.out = [node.chi & (used | set().union(*(q.chi for q in nodes if q is not node), set()))
                    for node in nodes]   # χ(p) less the variables only p has and nothing needs

    def delta_node(self) -> int:
        """The node holding the delta atom (in λ if possible), else the decomposition's root."""
        if self.query.first is None:
            return self.tree.root
        k = self.shape.atoms.index(self.query.first)
        holding = [p for p, n in enumerate(self.tree.nodes) if k in n.cover] or \
                  [p for p, n in enumerate(self.tree.nodes) if k in n.filters]
        return min(holding, key=lambda p: (len(self.tree.nodes[p].cover), p))

    def traversal(self, root: int) -> tuple[list[int], dict[int, int | None]]:
        """Breadth-first order of the tree re-rooted at ``root``, with each node's parent."""
        adjacent: dict[int, set[int]] = {p: set() for p in range(len(self.tree.nodes))}
        for p, node in enumerate(self.tree.nodes):
            for c in node.children:
                adjacent[p].add(c)
                adjacent[c].add(p)
        order: list[int] = [root]
        parent: dict[int, int | None] = {root: None}
        queue = deque([root])
        while queue:
            p = queue.popleft()
            for q in sorted(adjacent[p]):
                if q not in parent:
                    parent[q] = p
                    order.append(q)
                    queue.append(q)
        return order, parent

    def chi(self, p: int) -> frozenset[str]:
        """The columns of node p's relation (χ(p) less its own unneeded variables)."""
        return self.out[p]

    def separator(self, p: int) -> tuple[str, ...]:
        parent = self.parent[p]
        return () if parent is None else tuple(sorted(self.chi(p) & self.chi(parent)))

    def plan(self) -> ir.Node:
        down: dict[int, ir.Node] = {}
        estimate: dict[int, int] = {}
        for p in self.order:   # in-node evaluation, seeded top-down from the delta node
            down[p], estimate[p] = self.node_relation(p, down, estimate)
        up: dict[int, ir.Node] = {}
        for p in reversed(self.order[1:]):   # bottom-up semi-joins towards the delta node (whose own
            plan = down[p]                   # reduction is the first joins of the cross-node join)
            children = [c for c in self.order if self.parent[c] == p]
            for c in children:
                plan = ir.SemiJoin(plan, distinct_on(up[c], self.separator(c)), self.separator(c))
            up[p] = ir.Distinct(plan) if children else plan
        up[self.root] = down[self.root]
        return self.finish(self.cross_node_join(up))

    def estimated_cost(self) -> float:
        """The rows ``plan()`` estimates its plan produces, without building the plan."""
        estimate: dict[int, int] = {}
        cost = 0.0
        for p in self.order:
            added, estimate[p] = node_estimate(*self.members(p, None, estimate))
            cost += added
        return cost

    def members(self, p: int, down: dict[int, ir.Node] | None, estimate: dict[int, int]
                ) -> tuple[list[Source], int | None]:
        """What node p's in-node join joins (the parent's separator rows first, when seeded top-down;
        without ``down`` only their estimate) and which of them starts."""
        node = self.tree.nodes[p]
        positions = [self.shape.atoms[k] for k in node.cover + node.filters]
        members = [self.sources[i] for i in positions]
        first = positions.index(self.query.first) if self.query.first in positions else None
        sep, parent = self.separator(p), self.parent[p]
        if sep and parent is not None:
            seed = distinct_on(down[parent], sep) if down is not None else ir.Values(sep, ())
            members = [Source(seed, frozenset(sep), estimate[parent])] + members
            first = 0 if self.query.first is not None else None
        return members, first

    def node_relation(self, p: int, down: dict[int, ir.Node], estimate: dict[int, int]) -> tuple[ir.Node, int]:
        """Π_p: the λ(p) and filter atoms joined, the node's literals applied, projected on χ(p)."""
        node, chi = self.tree.nodes[p], self.chi(p)   # χ(p) ⊆ var(λ(p)): the join binds every column
        members, first = self.members(p, down, estimate)
        local = [self.shape.local[j] for j in node.constraints]
        pending = pending_literals([n.atom for n in local if isinstance(n, InView)],
                                   [f for f in local if isinstance(f, Comparison)], (), self.views)
        plan = order_joins(members, pending, set(chi), first)
        added, rows = node_estimate(members, first)
        self.cost += added
        if set(plan.columns) == chi and (isinstance(plan, ir.Scan) or len(self.order) == 1 and
                                         chi == frozenset().union(*(s.names for s in members))):
            return plan, rows   # a set already (a join of sets keeping every variable), used once
        # the labelled projection counts the in-node join's rows (``--stats``: node sizes)
        labelled = ir.Project(plan, tuple((c, ir.Col(c)) for c in sorted(chi)), label=node_label(p))
        return ir.Distinct(labelled), rows

    def later(self):
        negations = [n.atom for n in self.shape.later_negations]
        views = {id(n.atom): n.view for n in self.shape.later_negations}
        return pending_literals(negations, list(self.shape.later_filters), list(self.query.binds), views)

    def cross_node_join(self, up: dict[int, ir.Node]) -> ir.Node:
        """Join the reduced node relations from the root down, projecting on what is still needed."""
        needed = set(self.query.needed) | self.later().names()
        result = up[self.root]
        for step, p in enumerate(self.order[1:], start=2):
            rest = set().union(*(self.chi(q) for q in self.order[step:]), set())
            on = tuple(sorted(self.chi(p) & set(result.columns)))
            result = ir.Join(result, up[p], on)
            kept = tuple(c for c in result.columns if c in needed | rest)
            if len(kept) < len(result.columns):
                result = ir.Distinct(project(result, kept))
        if len(self.order) == 1:
            kept = tuple(c for c in result.columns if c in needed)
            if len(kept) < len(result.columns):
                result = ir.Distinct(project(result, kept))
        return result

    def finish(self, plan: ir.Node) -> ir.Node:
        """Ground atoms as existence checks; then BINDs and the literals over their results."""
        for i in self.shape.ground:
            source = self.query.sources[i]
            scan = source.view.scan(source.atom) if isinstance(source, InView) else self.sources[i].plan
            plan = ir.SemiJoin(plan, scan, ())
        pending = self.later()
        plan = place_ready(plan, set(plan.columns), pending, [])
        if pending.filters or pending.assignments or pending.negative:
            raise ValueError("a literal could not be placed: its variables are never bound")
        return plan


def distinct_on(plan: ir.Node, columns: tuple[str, ...]) -> ir.Node:
    """The distinct rows of the plan on ``columns`` (the plan itself when it is that already)."""
    if isinstance(plan, ir.Distinct) and set(plan.columns) == set(columns):
        return plan
    if isinstance(plan, ir.Scan) and set(plan.columns) == set(columns):
        return plan
    return ir.Distinct(project(plan, columns))


def project(plan: ir.Node, columns: tuple[str, ...]) -> ir.Node:
    """The plan's rows on ``columns`` (no deduplication)."""
    if plan.columns == columns:
        return plan
    return ir.Project(plan, tuple((c, ir.Col(c)) for c in columns))


__all__ = ["FULL", "Shape", "YannakakisPlanner", "body_decomposition"]
