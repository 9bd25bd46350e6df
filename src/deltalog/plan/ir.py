"""The relational-algebra IR that algorithms emit and backends execute.

Plans name their columns (rule variables, or ``c0..ck`` for head tuples) and never
mention rules, strata or deltas: a stored relation is read through a generation window
(rows inserted at generations ``since <= g < until``), which is all the algorithm layer
needs to express "old", "delta" and "full" versions of a relation.

>>> scan = Scan("edge", (Col("X"), Col("Y")))
>>> plan = Project(Filter(scan, Compare("!=", Col("X"), Col("Y"))), (("c0", Col("Y")), ("c1", Col("X"))))
>>> plan.columns
('c0', 'c1')
>>> print(plan)
Project[c0=Y, c1=X]
  Filter[X != Y]
    Scan edge(X, Y) gen[0:)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Union

from deltalog.syntax.ast import Constant


# ---- expressions ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Col:
    """A reference to a named column."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Lit:
    """A constant, carried as its typed value; backends encode it with their dictionary."""

    constant: Constant

    def __str__(self) -> str:
        return str(self.constant)


@dataclass(frozen=True)
class Arith:
    """``left op right`` with op in + - * / %."""

    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Func:
    """A built-in function call (abs, min, max, concat, str, int, float)."""

    name: str
    args: tuple["Expr", ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class Compare:
    """``left op right`` with op in = != < <= > >= (docs/semantics.md: numbers compare numerically),
    or ``same``: the two sides are the same constant (same kind and value), as a join would require."""

    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


Expr = Union[Col, Lit, Arith, Func, Compare]
Term = Union[Col, Lit]


# ---- plan nodes ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Node(ABC):
    """Base of plan nodes; a node's ``label``, where it has one, names it in metrics (rows produced)."""

    @property
    @abstractmethod
    def columns(self) -> tuple[str, ...]:
        """Names of the output columns, in order."""

    def children(self) -> tuple["Node", ...]:
        return ()

    def describe(self) -> str:
        return type(self).__name__

    def __str__(self) -> str:
        lines = [self.describe()]
        for child in self.children():
            lines += ["  " + line for line in str(child).splitlines()]
        return "\n".join(lines)


@dataclass(frozen=True)
class Scan(Node):
    """Rows of a stored relation, chosen by when they were inserted and deleted, matched against terms.

    Every stored row carries the generation that inserted it and, once deleted, the
    generation that deleted it. A Scan reads the rows inserted at generations
    ``since <= g < until`` that are
    - not deleted (``visible=None``, the default), or
    - not deleted by the end of generation ``visible`` (deleted later, or never), or
    - deleted at generations ``deleted[0] <= d < deleted[1]`` (``deleted`` given; ``visible`` is then ignored).

    ``terms`` has one entry per relation column: a Col names the output column (a name
    repeated means the values must be equal), a Lit selects rows holding that constant.
    """

    relation: str
    terms: tuple[Term, ...]
    since: int = 0
    until: int | None = None
    label: str | None = field(default=None, compare=False)
    visible: int | None = None
    deleted: tuple[int, int | None] | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.name for t in self.terms if isinstance(t, Col)))

    def describe(self) -> str:
        until = "" if self.until is None else self.until
        alive = "" if self.visible is None else f" visible@{self.visible}"
        if self.deleted is not None:
            alive = f" deleted[{self.deleted[0]}:{'' if self.deleted[1] is None else self.deleted[1]})"
        return f"Scan {self.relation}({', '.join(map(str, self.terms))}) gen[{self.since}:{until}){alive}"


@dataclass(frozen=True)
class Values(Node):
    """Literal rows."""

    names: tuple[str, ...]
    rows: tuple[tuple[Constant, ...], ...]

    @property
    def columns(self) -> tuple[str, ...]:
        return self.names

    def describe(self) -> str:
        return f"Values[{', '.join(self.names)}] x{len(self.rows)}"


@dataclass(frozen=True)
class Join(Node):
    """Natural join on ``on`` (columns of both sides); other column names must not clash."""

    left: Node
    right: Node
    on: tuple[str, ...]
    label: str | None = field(default=None, compare=False)

    @property
    def columns(self) -> tuple[str, ...]:
        return self.left.columns + tuple(c for c in self.right.columns if c not in self.on)

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)

    def describe(self) -> str:
        return f"Join[{', '.join(self.on)}]"


@dataclass(frozen=True)
class SemiJoin(Node):
    """Rows of ``left`` with a match in ``right`` on ``on``."""

    left: Node
    right: Node
    on: tuple[str, ...]

    @property
    def columns(self) -> tuple[str, ...]:
        return self.left.columns

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)

    def describe(self) -> str:
        return f"SemiJoin[{', '.join(self.on)}]"


@dataclass(frozen=True)
class AntiJoin(Node):
    """Rows of ``left`` with no match in ``right`` on ``on`` (``on`` may be empty)."""

    left: Node
    right: Node
    on: tuple[str, ...]

    @property
    def columns(self) -> tuple[str, ...]:
        return self.left.columns

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)

    def describe(self) -> str:
        return f"AntiJoin[{', '.join(self.on)}]"


@dataclass(frozen=True)
class Filter(Node):
    """Rows satisfying a comparison."""

    input: Node
    condition: Compare

    @property
    def columns(self) -> tuple[str, ...]:
        return self.input.columns

    def children(self) -> tuple[Node, ...]:
        return (self.input,)

    def describe(self) -> str:
        return f"Filter[{self.condition}]"


@dataclass(frozen=True)
class Bind(Node):
    """Adds ``column`` holding ``expr``; rows where the expression has no value are dropped."""

    input: Node
    column: str
    expr: Expr

    @property
    def columns(self) -> tuple[str, ...]:
        return self.input.columns + (self.column,)

    def children(self) -> tuple[Node, ...]:
        return (self.input,)

    def describe(self) -> str:
        return f"Bind[{self.column} = {self.expr}]"


@dataclass(frozen=True)
class Project(Node):
    """Output columns computed from input columns or constants (no deduplication)."""

    input: Node
    outputs: tuple[tuple[str, Term], ...]
    label: str | None = field(default=None, compare=False)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.outputs)

    def children(self) -> tuple[Node, ...]:
        return (self.input,)

    def describe(self) -> str:
        return f"Project[{', '.join(f'{n}={t}' for n, t in self.outputs)}]"


@dataclass(frozen=True)
class Distinct(Node):
    """Removes duplicate rows."""

    input: Node

    @property
    def columns(self) -> tuple[str, ...]:
        return self.input.columns

    def children(self) -> tuple[Node, ...]:
        return (self.input,)


@dataclass(frozen=True)
class Aggregate(Node):
    """Groups the (distinct) input rows by ``group_by`` and aggregates ``argument`` into ``output``."""

    input: Node
    group_by: tuple[str, ...]
    function: str
    argument: str | None
    output: str

    @property
    def columns(self) -> tuple[str, ...]:
        return self.group_by + (self.output,)

    def children(self) -> tuple[Node, ...]:
        return (self.input,)

    def describe(self) -> str:
        return f"Aggregate[{', '.join(self.group_by)}; {self.output} = {self.function}({self.argument or ''})]"


@dataclass(frozen=True)
class Union_(Node):
    """Union of inputs with the same columns (set semantics after a Distinct)."""

    inputs: tuple[Node, ...]

    @property
    def columns(self) -> tuple[str, ...]:
        return self.inputs[0].columns

    def children(self) -> tuple[Node, ...]:
        return self.inputs

    def describe(self) -> str:
        return "Union"


@dataclass(frozen=True)
class Difference(Node):
    """Rows of ``left`` not in ``right`` (same columns)."""

    left: Node
    right: Node

    @property
    def columns(self) -> tuple[str, ...]:
        return self.left.columns

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class Witnessed(Node):
    """Some rows of ``input``: for every row of the leaf at the bottom of its left spine (the left
    input of each Join, SemiJoin, AntiJoin, Filter, Bind and Project) that ``input`` extends to an
    output row, at least one such output row. A backend may stop at a leaf row's first witness
    instead of enumerating every extension; evaluating all of ``input`` is also correct.

    This is the existence check of rederivation (001 Algorithm 4, REDERIVE): with the candidate
    head facts as the leaf, one output row per candidate that still has a rule instance.

    >>> print(Witnessed(Project(Scan("h", (Col("X"),)), (("c0", Col("X")),))))
    Witnessed
      Project[c0=X]
        Scan h(X) gen[0:)
    """

    input: Node

    @property
    def columns(self) -> tuple[str, ...]:
        return self.input.columns

    def children(self) -> tuple[Node, ...]:
        return (self.input,)


# ---- closure nodes (003 section 5): what a closure module asks a backend to compute -----------

@dataclass(frozen=True)
class TransitiveClosure(Node):
    """Pairs (x, z) such that z is reachable from x by a path of one or more ``edges`` rows.

    ``edges`` has two columns (source, target); the result has the same two column names. With
    ``sources`` (a one-column plan), only pairs whose x is one of its values are produced: a
    closure module recomputes the reachable sets of the affected sources only during maintenance
    (003 section 5.1). A pair (x, x) appears only when x lies on a cycle. Backends evaluate it
    without rule instances (condensation and reachability, or repeated joins on Spark).

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
class ClosureDifference(Node):
    """Pairs (x, z) joined by a path of ``edges`` rows but by no path of ``other`` rows (both
    two-column plans; the result has ``edges``' column names).

    With ``changed`` (a two-column plan, e.g. the edges an update deleted), only x that reach the
    first column of some ``changed`` row over ``edges`` (in zero or more steps) are considered: 003
    section 4's Del for a transitive closure (the affected sources are the ancestors of the deleted
    edges' tails; a pair lost has, on an old path, a first deleted edge, whose tail the source
    reaches). With ``changed`` empty the result is empty without reading the graphs. The local
    backend computes it in bitset space (both closures, one difference, only its pairs emitted);
    ``expanded`` is the same set by the other nodes (Spark runs that).

    >>> e = Scan("e", (Col("X"), Col("Y")))
    >>> ClosureDifference(e, Scan("f", (Col("A"), Col("B")))).columns
    ('X', 'Y')
    """

    edges: Node
    other: Node
    changed: Node | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return self.edges.columns

    def children(self) -> tuple[Node, ...]:
        return (self.edges, self.other) + (() if self.changed is None else (self.changed,))

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
class ComponentPairs(Node):
    """Pairs (x, y) of nodes in the same connected component of ``edges`` read as undirected.

    This is the closure of a symmetric and transitive relation over the external facts
    ``edges`` (003 section 5.2): each component becomes a clique, (x, x) included for every node
    that occurs in an edge. With ``nodes`` (a one-column plan), only the components containing one
    of its values are produced (maintenance recomputes the components that lost an edge).

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
