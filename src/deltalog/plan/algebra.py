"""The relational algebra of plans: the nodes every backend executes (the IR's core, over the
expressions of plan/expressions.py; ``deltalog.plan.ir`` is the one name to import them by, closure
nodes included)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

from deltalog.plan.expressions import Col, Compare, Expr, Term
from deltalog.syntax.ast import Constant


T = TypeVar("T")


class cached_property(Generic[T]):
    """``functools.cached_property`` without its lock: Python 3.11's takes an ``RLock`` at every first
    read (~20 profile events), and plan nodes are made by the hundred per small update (a plan-cache hit
    copies them), each read once or twice. The value goes into the instance's ``__dict__``, which then
    shadows this (non-data) descriptor, as functools' does; a node is immutable, so a race computes the
    same value twice at worst."""

    def __init__(self, function: Callable[[Any], T]) -> None:
        self.function, self.name = function, function.__name__
        self.__doc__ = function.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        if instance is None:
            return self   # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.function(instance)
        return value


@dataclass(frozen=True)
class Node:
    """Base of plan nodes; a node's ``label``, where it has one, names it in metrics (rows produced).

    A plain class, not an ``ABC``: ABCMeta routes every ``isinstance`` against a node type through a
    Python-level ``__instancecheck__``, and the executor and the plan cache ask ~2,000 of those per
    small update (a 1,000-fact LUBM-like deletion: ~6% of its profile events)."""

    if TYPE_CHECKING:   # declared for the type checker only: every node type defines its own
        @property
        def columns(self) -> tuple[str, ...]:
            """Names of the output columns, in order."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        """A node type without its columns is refused when it is made (as ``ABC`` refused it when
        instantiated, without ABCMeta's ``isinstance`` cost)."""
        super().__init_subclass__(**kwargs)
        if not hasattr(cls, "columns"):
            raise TypeError(f"plan node {cls.__name__} does not define its columns")

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

    @cached_property   # asked per frame and per call by the executors; the fields never change
    def columns(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.name for t in self.terms if isinstance(t, Col)))

    @cached_property
    def names(self) -> tuple[str | None, ...]:
        """Per term, the name of its Col (None for a Lit). Asked by the local executor's membership
        checks each time it compiles a semi/anti-join; kept with the node, and a plan-cache hit copies
        it with the node's other fields (the terms do not change with the generations)."""
        return tuple(t.name if isinstance(t, Col) else None for t in self.terms)

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

    @cached_property   # asked per frame and per call by the executors; the fields never change
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
class Unary(Node):
    """A node over one input: its rows, and unless it computes its own, its columns come from ``input``."""

    input: Node

    @property
    def columns(self) -> tuple[str, ...]:
        return self.input.columns

    def children(self) -> tuple[Node, ...]:
        return (self.input,)


@dataclass(frozen=True)
class Filter(Unary):
    """Rows satisfying a comparison."""

    condition: Compare

    def describe(self) -> str:
        return f"Filter[{self.condition}]"


@dataclass(frozen=True)
class Bind(Unary):
    """Adds ``column`` holding ``expr``; rows where the expression has no value are dropped."""

    column: str
    expr: Expr

    @cached_property   # asked per frame and per call by the executors; the fields never change
    def columns(self) -> tuple[str, ...]:
        return self.input.columns + (self.column,)

    def describe(self) -> str:
        return f"Bind[{self.column} = {self.expr}]"


@dataclass(frozen=True)
class Project(Unary):
    """Output columns computed from input columns or constants (no deduplication)."""

    outputs: tuple[tuple[str, Term], ...]
    label: str | None = field(default=None, compare=False)

    @cached_property   # asked per frame and per call by the executors; the fields never change
    def columns(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.outputs)

    def describe(self) -> str:
        return f"Project[{', '.join(f'{n}={t}' for n, t in self.outputs)}]"


@dataclass(frozen=True)
class Distinct(Unary):
    """Removes duplicate rows."""


@dataclass(frozen=True)
class Aggregate(Unary):
    """Groups the (distinct) input rows by ``group_by`` and aggregates ``argument`` into ``output``."""

    group_by: tuple[str, ...]
    function: str
    argument: str | None
    output: str

    @property
    def columns(self) -> tuple[str, ...]:
        return self.group_by + (self.output,)

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
