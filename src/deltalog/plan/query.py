"""A rule body to evaluate (``BodyQuery``), and the interface of planners that turn one into a plan.

Algorithms say *what* to evaluate: which view of the stored facts each atom reads, which atom
starts (the delta), which negations, filters and BINDs are pending, which variables the result
needs. A ``Planner`` decides *how*: join order, semi-joins, where each literal goes. The greedy
left-deep planner (plan/greedy.py) is the default; see docs/design.md, "Planner seam".

Queries are plain frozen data, rewritten by small pure functions (``start_at``, ``starting_with``,
``produce``, ``keep_instances``), so a new algorithm composes them instead of adding a flag:

>>> from deltalog.syntax.ast import Atom, Variable
>>> edge = Atom("edge", (Variable("X"), Variable("Y")))
>>> q = BodyQuery((InView(edge, View(5, 6)),), needed=frozenset({"X"}))
>>> print(start_at(q, 0))
body edge(X, Y) gen[5:6) (first)
needed X
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Union

from deltalog.plan import ir
from deltalog.plan.translate import term, variables_of
from deltalog.syntax.ast import Assignment, Atom, Comparison

if TYPE_CHECKING:
    from deltalog.plan.joins import Statistics

Window = tuple[int, int | None]


@dataclass(frozen=True)
class View:
    """Which stored rows an atom reads: born in [since, until), alive at ``visible`` (None: now), or
    deleted in the window ``deleted``; ``relation`` reads another stored relation (a scratch set)."""

    since: int = 0
    until: int | None = None
    visible: int | None = None
    deleted: tuple[int, int | None] | None = None
    relation: str | None = None

    def scan(self, atom: Atom, label: str | None = None) -> ir.Scan:
        return ir.Scan(self.relation or atom.predicate, tuple(term(t) for t in atom.terms), self.since,
                       self.until, label, self.visible, self.deleted)


FULL = View()


def as_view(view: View | Window) -> View:
    """Views are also accepted as plain (since, until) generation windows."""
    return view if isinstance(view, View) else View(view[0], view[1])


@dataclass(frozen=True)
class InView:
    """An atom read in a view of the stored facts."""

    atom: Atom
    view: View = FULL

    @property
    def names(self) -> set[str]:
        return variables_of(self.atom)

    def __str__(self) -> str:
        return self.view.scan(self.atom).describe().removeprefix("Scan ")


@dataclass(frozen=True)
class AggregateQuery:
    """``result = function(argument)`` over the distinct bindings (``body.needed``) of a body,
    grouped by ``group_by``: a source of the enclosing body with columns group_by + (result,)."""

    body: BodyQuery
    group_by: tuple[str, ...]
    function: str
    argument: str | None
    result: str

    @property
    def names(self) -> set[str]:
        return set(self.group_by) | {self.result}

    def __str__(self) -> str:
        return f"{self.result} = {self.function}({self.argument or ''}) by [{', '.join(self.group_by)}]"


Source = Union[InView, AggregateQuery]


@dataclass(frozen=True)
class BodyQuery:
    """A rule body to evaluate.

    - ``sources``: positive atoms in their views and aggregate subqueries, joined;
    - ``negations``: atoms whose match in their view removes a binding (anti-joins);
    - ``filters``, ``binds``: comparisons and assignments, applied once their inputs are bound;
    - ``needed``: the variables the result must have as columns;
    - ``first``: the source the evaluation must start from (the delta), None: the planner's choice;
    - ``instances``: one row per rule instance (a distinct binding of every source variable), and
      all of them as columns, for algorithms that count derivations: no part of the body may be
      reduced to an existence check that drops variables;
    - ``witness``: one result row per row of the first source is enough (the plan runs as
      ``ir.Witnessed``, whose joins stop at a row's first match): a join is then cheaper than
      evaluating a group of sources apart and semi-joining it.
    """

    sources: tuple[Source, ...]
    negations: tuple[InView, ...] = ()
    filters: tuple[Comparison, ...] = ()
    binds: tuple[Assignment, ...] = ()
    needed: frozenset[str] = frozenset()
    first: int | None = None
    instances: bool = False
    witness: bool = False

    def variables(self) -> set[str]:
        """Every variable the sources bind."""
        return set().union(*(s.names for s in self.sources))

    def __str__(self) -> str:
        lines = [f"body {s}" + (" (first)" if i == self.first else "") for i, s in enumerate(self.sources)]
        lines += [f"not {n}" for n in self.negations]
        lines += [f"filter {f}" for f in self.filters] + [f"bind {b}" for b in self.binds]
        lines.append(f"needed {', '.join(sorted(self.needed))}" + (" (every instance)" if self.instances else "")
                     + (" (a witness each)" if self.witness else ""))
        return "\n".join(lines)


# ---- rewrites: small pure functions from query to query ----------------------------------------

def start_at(query: BodyQuery, index: int) -> BodyQuery:
    """Start the evaluation at source ``index`` (the atom read in the delta)."""
    return replace(query, first=index)


def starting_with(query: BodyQuery, source: Source) -> BodyQuery:
    """Add a source and start there (a head bound by a view, a negated atom matched positively)."""
    return replace(query, sources=query.sources + (source,), first=len(query.sources))


def produce(query: BodyQuery, atom: Atom) -> BodyQuery:
    """Need exactly the variables of ``atom`` (the head, or another atom to output)."""
    return replace(query, needed=frozenset(variables_of(atom)))


def keep_instances(query: BodyQuery) -> BodyQuery:
    """Keep one row per rule instance (see ``BodyQuery.instances``)."""
    return replace(query, instances=True)


def witness_only(query: BodyQuery) -> BodyQuery:
    """One result per row of the first source is enough (see ``BodyQuery.witness``)."""
    return replace(query, witness=True)


# ---- the interface -----------------------------------------------------------------------------

class Planner(ABC):
    """Turns a ``BodyQuery`` into a plan whose columns include ``query.needed`` (with
    ``query.instances``: every source variable, one row per distinct binding of them).
    ``stats`` answers size questions about stored relations (plan.joins.Statistics)."""

    @abstractmethod
    def plan(self, query: BodyQuery, stats: Statistics) -> ir.Node:
        """The plan of a body."""

    def aggregate(self, query: AggregateQuery, stats: Statistics) -> ir.Node:
        """An aggregate source: its body planned like any other, then grouped."""
        names = tuple(sorted(query.body.needed))
        distinct = ir.Distinct(ir.Project(self.plan(query.body, stats), tuple((n, ir.Col(n)) for n in names)))
        return ir.Aggregate(distinct, query.group_by, query.function, query.argument, query.result)


# ---- metrics labels a planner may put on its plans ---------------------------------------------

NODE_LABEL = "hd-node:"


def node_label(node: int) -> str:
    """The metrics label of a decomposition node's in-node join (plan/hypertree.py): the rows it
    produced are counted per rule as ``RuleStats.nodes`` (``--stats``: node sizes)."""
    return f"{NODE_LABEL}{node}"


def labelled_node(label: str) -> int | None:
    """The node a ``node_label`` names (None for any other label)."""
    return int(label[len(NODE_LABEL):]) if label.startswith(NODE_LABEL) else None
