"""Closure nodes (003 section 5): what a closure module asks a backend to compute, as plan nodes;
each has an ``expanded`` form (or is one) in the relational core, which is what Spark runs."""

from __future__ import annotations

from dataclasses import dataclass

from deltalog.plan.algebra import AntiJoin, Distinct, Node, Project, SemiJoin, Union_
from deltalog.plan.expressions import Col


# ---- closure nodes (003 section 5): what a closure module asks a backend to compute -----------

@dataclass(frozen=True)
class TransitiveClosure(Node):
    """Pairs (x, z) such that z is reachable from x by a path of one or more ``edges`` rows.

    ``edges`` has two columns (source, target); the result has the same two column names. With
    ``sources`` (a one-column plan), only pairs whose x is one of its values are produced: a
    closure module recomputes the reachable sets of the affected sources only during maintenance
    (003 section 5.1). A pair (x, x) appears only when x lies on a cycle. Backends evaluate it
    without rule instances (condensation and reachability, or repeated joins on Spark).

    >>> from deltalog.plan.ir import Col, Scan, Values
    >>> tc = TransitiveClosure(Scan("e", (Col("X"), Col("Y"))))
    >>> tc.columns
    ('X', 'Y')
    >>> print(TransitiveClosure(Scan("e", (Col("X"), Col("Y"))), sources=Values(("S",), ())))
    TransitiveClosure
      Scan e(X, Y) gen[0:)
      Values[S] x0
    """

    edges: Node
    sources: Node | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return self.edges.columns

    def children(self) -> tuple[Node, ...]:
        return (self.edges,) if self.sources is None else (self.edges, self.sources)


@dataclass(frozen=True)
class GraphDifference(Node):
    """Pairs the closure of ``edges`` has and that of ``other`` lacks (both two-column plans; the result
    has ``edges``' column names), each subclass with its closure; with ``changed`` (a two-column plan),
    only the pairs the subclass says those rows can affect. A backend computes the difference without
    enumerating either closure where it can; ``expanded`` gives it in the relational core."""

    edges: Node
    other: Node
    changed: Node | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return self.edges.columns

    def children(self) -> tuple[Node, ...]:
        return (self.edges, self.other) + (() if self.changed is None else (self.changed,))


@dataclass(frozen=True)
class ClosureDifference(GraphDifference):
    """Pairs (x, z) joined by a path of ``edges`` rows but by no path of ``other`` rows (both
    two-column plans; the result has ``edges``' column names).

    With ``changed`` (a two-column plan, e.g. the edges an update deleted), only x that reach the
    first column of some ``changed`` row over ``edges`` (in zero or more steps) are considered: 003
    section 4's Del for a transitive closure (the affected sources are the ancestors of the deleted
    edges' tails; a pair lost has, on an old path, a first deleted edge, whose tail the source
    reaches). With ``changed`` empty the result is empty without reading the graphs. The local
    backend computes it in bitset space (both closures, one difference, only its pairs emitted);
    ``expanded`` is the same set by the other nodes (Spark runs that).

    >>> from deltalog.plan.ir import Col, Scan, Values
    >>> e = Scan("e", (Col("X"), Col("Y")))
    >>> ClosureDifference(e, Scan("f", (Col("A"), Col("B")))).columns
    ('X', 'Y')
    """


    def expanded(self) -> Node:
        """The same rows as an anti-join of two ``TransitiveClosure`` nodes over the affected sources."""
        a, b = self.edges.columns
        other = Project(self.other, ((a, Col(self.other.columns[0])), (b, Col(self.other.columns[1]))))
        sources = None
        if self.changed is not None:
            tails = Distinct(Project(self.changed, ((a, Col(self.changed.columns[0])),)))
            back = Project(self.edges, ((a, Col(b)), (b, Col(a))))
            ancestors = Project(TransitiveClosure(back, tails), ((a, Col(b)),))
            sources = Distinct(Union_((tails, ancestors)))
        return AntiJoin(TransitiveClosure(self.edges, sources), TransitiveClosure(other, sources), (a, b))


@dataclass(frozen=True)
class Reaches(Node):
    """The rows (x, z) of ``pairs`` (two columns) such that a path of ``edges`` rows leads from x to z:
    a membership test against a transitive closure that never enumerates it (003 section 4's Red
    checks a few deleted facts against the new closure). The local backend computes reachability bits
    for the pairs' targets only; ``expanded`` is the same by a ``TransitiveClosure`` (Spark runs that).

    >>> from deltalog.plan.ir import Col, Scan, Values
    >>> Reaches(Scan("e", (Col("X"), Col("Y"))), Scan("q", (Col("A"), Col("B")))).columns
    ('A', 'B')
    """

    edges: Node
    pairs: Node

    @property
    def columns(self) -> tuple[str, ...]:
        return self.pairs.columns

    def children(self) -> tuple[Node, ...]:
        return (self.edges, self.pairs)

    def expanded(self) -> Node:
        """The same rows as a semi-join with the closure from the pairs' sources."""
        a, b = self.pairs.columns
        edges = Project(self.edges, ((a, Col(self.edges.columns[0])), (b, Col(self.edges.columns[1]))))
        sources = Distinct(Project(self.pairs, ((a, Col(a)),)))
        return SemiJoin(self.pairs, TransitiveClosure(edges, sources), (a, b))


@dataclass(frozen=True)
class Connects(Reaches):
    """``Reaches`` over ``edges`` read both ways: the rows (x, z) of ``pairs`` with x and z in one
    connected component of the undirected graph of ``edges`` (x = z: x in some edge, the path there
    and back). A symmetric-transitive closure's Red (003 Algorithm 9) asks this of the deleted pairs:
    one labelling of the components, where ``Reaches`` over the edges and their reverses searched
    and condensed a graph of deep chains (Claros-like) and asked scipy to (docs/benchmarks.md, stop 23).

    >>> from deltalog.plan.ir import Col, Scan
    >>> Connects(Scan("e", (Col("X"), Col("Y"))), Scan("q", (Col("A"), Col("B")))).columns
    ('A', 'B')
    """

    def expanded(self) -> Node:
        """``Reaches`` over the edges and their reverses."""
        a, b = self.edges.columns
        back = Project(self.edges, ((a, Col(b)), (b, Col(a))))
        return Reaches(Union_((self.edges, back)), self.pairs).expanded()


@dataclass(frozen=True)
class ComponentPairs(Node):
    """Pairs (x, y) of nodes in the same connected component of ``edges`` read as undirected.

    This is the closure of a symmetric and transitive relation over the external facts
    ``edges`` (003 section 5.2): each component becomes a clique, (x, x) included for every node
    that occurs in an edge. With ``nodes`` (a one-column plan), only the components containing one
    of its values are produced (maintenance recomputes the components that lost an edge).

    >>> from deltalog.plan.ir import Col, Scan, Values
    >>> print(ComponentPairs(Scan("e", (Col("X"), Col("Y")))))
    ComponentPairs
      Scan e(X, Y) gen[0:)
    """

    edges: Node
    nodes: Node | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return self.edges.columns

    def children(self) -> tuple[Node, ...]:
        return (self.edges,) if self.nodes is None else (self.edges, self.nodes)


@dataclass(frozen=True)
class ComponentDifference(GraphDifference):
    """Pairs (x, y) of nodes in one connected component of ``edges`` (read as undirected, as
    ``ComponentPairs``: (x, x) for every node of an edge) but not in one component of ``other``; the
    result has ``edges``' column names. With ``changed`` (a two-column plan), only the components of
    ``edges`` holding the first column of a ``changed`` row.

    003 section 6's maintenance of a symmetric-transitive closure as one comparison of two labellings:
    Del, the old cliques' pairs the new components split apart (``changed``: the deleted facts), and Add,
    the new cliques' pairs the old components kept apart (the added facts), without emitting either
    clique. ``expanded`` is the same set as an anti-join of two ``ComponentPairs`` (Spark runs that).

    >>> from deltalog.plan.ir import Col, Scan
    >>> ComponentDifference(Scan("e", (Col("X"), Col("Y"))), Scan("f", (Col("A"), Col("B")))).columns
    ('X', 'Y')
    """


    def expanded(self) -> Node:
        """The same rows as ``ComponentPairs`` of ``edges`` (of the changed facts' components) anti-joined
        with those of ``other`` (of the components holding their members)."""
        a, b = self.edges.columns
        other = Project(self.other, ((a, Col(self.other.columns[0])), (b, Col(self.other.columns[1]))))
        if self.changed is None:
            return AntiJoin(ComponentPairs(self.edges), ComponentPairs(other), (a, b))
        tails = Distinct(Project(self.changed, ((a, Col(self.changed.columns[0])),)))
        cliques = ComponentPairs(self.edges, tails)
        members = Distinct(Project(cliques, ((a, Col(b)),)))
        return AntiJoin(cliques, ComponentPairs(other, members), (a, b))
