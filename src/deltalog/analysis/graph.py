"""The predicate dependency graph (body predicate -> head predicate), its SCCs in topological order, as text and DOT."""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Iterator

from deltalog.syntax.ast import NO_SPAN, Aggregate, Atom, Literal, Negation, Span
from deltalog.syntax.statements import Program

POSITIVE, NEGATIVE, AGGREGATE = "positive", "negative", "aggregate"
TEXT_PREFIX = {POSITIVE: "", NEGATIVE: "not ", AGGREGATE: "agg "}
Successors = dict[str, tuple[str, ...]]
DOT_STYLE = {
    POSITIVE: "",
    NEGATIVE: ' [style=dashed, color=red, label="not"]',
    AGGREGATE: ' [style=dotted, color=blue, label="agg"]',
}


@dataclass(frozen=True)
class Edge:
    """``source`` occurs in the body of rule number ``rule`` whose head predicate is ``target``."""

    source: str
    target: str
    kind: str  # "positive", "negative" or "aggregate" (any atom inside an aggregate body)
    rule: int
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class DependencyGraph:
    """Predicates (in order of first appearance), the IDB ones (``heads``), and one edge per body occurrence."""

    nodes: tuple[str, ...]
    heads: frozenset[str]
    edges: tuple[Edge, ...]

    @cached_property
    def successors(self) -> dict[str, tuple[str, ...]]:
        """Each node's distinct targets; nodes known only from edges come after ``nodes``."""
        result: dict[str, dict[str, None]] = {node: {} for node in self.nodes}
        for edge in self.edges:
            result.setdefault(edge.source, {})[edge.target] = None
            result.setdefault(edge.target, {})
        return {node: tuple(targets) for node, targets in result.items()}

    @cached_property
    def _sccs(self) -> tuple[tuple[str, ...], ...]:
        """Strongly connected components, dependencies first; ties broken by first appearance in the program."""
        rank = {node: i for i, node in enumerate(self.successors)}
        components = [tuple(sorted(c, key=rank.__getitem__)) for c in tarjan(self.successors, self.successors)]
        return topological_order(components, self.successors, rank)

    @cached_property
    def component_of(self) -> dict[str, int]:
        return {node: i for i, component in enumerate(self._sccs) for node in component}

    @cached_property
    def stratum_components(self) -> tuple[tuple[str, ...], ...]:
        """The SCCs holding IDB predicates, in evaluation order: one stratum each."""
        return tuple(c for c in self._sccs if any(node in self.heads for node in c))

    @cached_property
    def stratum_map(self) -> dict[str, int]:
        return {node: i for i, component in enumerate(self.stratum_components) for node in component}

    def is_recursive(self, component: Iterable[str]) -> bool:
        """Whether some edge (a self-loop included) stays inside the component."""
        members = set(component)
        return any(target in members for node in members for target in self.successors[node])

    def path(self, start: str, goal: str) -> list[str]:
        """A shortest path ``start -> ... -> goal`` along edges inside the SCC of ``start`` ([start] if equal)."""
        inside = self.component_of[start]
        parents: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue and goal not in parents:
            node = queue.popleft()
            for target in self.successors[node]:
                if target not in parents and self.component_of[target] == inside:
                    parents[target] = node
                    queue.append(target)
        return _unwind(parents, goal)

    def unique_edges(self) -> list[tuple[str, str, str]]:
        return list(dict.fromkeys((e.source, e.target, e.kind) for e in self.edges))

    def to_text(self) -> str:
        """One line per edge (``edge -> path``, ``not n -> p``, ``agg t -> avg``), then one line per stratum."""
        lines = [f"{TEXT_PREFIX[kind]}{source} -> {target}" for source, target, kind in self.unique_edges()]
        edb = [node for node in self.nodes if node not in self.heads]
        lines += [f"edb: {', '.join(edb)}"] if edb else []
        for index, component in enumerate(self.stratum_components):
            suffix = " (recursive)" if self.is_recursive(component) else ""
            lines.append(f"stratum {index}: {', '.join(component)}{suffix}")
        return "\n".join(lines) + "\n"

    def to_dot(self) -> str:
        """Graphviz: nodes clustered by stratum (EDB apart); negative edges dashed red, aggregates dotted blue."""
        lines = ["digraph deltalog {", "  rankdir=LR;", "  node [shape=box];"]
        edb = [node for node in self.nodes if node not in self.heads]
        lines += _cluster("edb", "EDB", edb) if edb else []
        for index, component in enumerate(self.stratum_components):
            lines += _cluster(str(index), f"stratum {index}", component)
        lines += [f"  {quote(s)} -> {quote(t)}{DOT_STYLE[k]};" for s, t, k in self.unique_edges()]
        return "\n".join(lines + ["}"]) + "\n"


def _unwind(parents: dict[str, str | None], goal: str) -> list[str]:
    path: list[str] = []
    node: str | None = goal if goal in parents else None
    while node is not None:
        path.append(node)
        node = parents[node]
    return path[::-1]


def quote(name: str) -> str:
    """A DOT identifier for a predicate name."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cluster(name: str, label: str, nodes: Iterable[str]) -> list[str]:
    body = " ".join(f"{quote(node)};" for node in nodes)
    return [f"  subgraph cluster_{name} {{", f"    label={quote(label)};", f"    {body}", "  }"]


def tarjan(nodes: Iterable[str], successors: Successors) -> list[list[str]]:
    """Tarjan's SCC algorithm without recursion; components come out in reverse topological order."""
    return _Tarjan(successors).run(nodes)


class _Tarjan:
    """Tarjan's algorithm with an explicit work stack of (node, its successors not yet visited)."""

    def __init__(self, successors: Successors):
        self.successors = successors
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.stack: list[str] = []
        self.on_stack: set[str] = set()
        self.work: list[tuple[str, Iterator[str]]] = []
        self.components: list[list[str]] = []

    def run(self, nodes: Iterable[str]) -> list[list[str]]:
        for root in nodes:
            if root not in self.index:
                self.enter(root)
                while self.work:
                    self.step()
        return self.components

    def enter(self, node: str) -> None:
        self.index[node] = self.low[node] = len(self.index)
        self.stack.append(node)
        self.on_stack.add(node)
        self.work.append((node, iter(self.successors[node])))

    def step(self) -> None:
        """Descend into the next unvisited successor of the top node, or finish that node."""
        node, children = self.work[-1]
        for child in children:
            if child not in self.index:
                self.enter(child)
                return
            if child in self.on_stack:
                self.low[node] = min(self.low[node], self.index[child])
        self.leave(node)

    def leave(self, node: str) -> None:
        self.work.pop()
        if self.work:
            parent = self.work[-1][0]
            self.low[parent] = min(self.low[parent], self.low[node])
        if self.low[node] == self.index[node]:
            self.components.append(self.pop_component(node))

    def pop_component(self, node: str) -> list[str]:
        component = []
        while True:
            member = self.stack.pop()
            self.on_stack.discard(member)
            component.append(member)
            if member == node:
                return component


def topological_order(
    components: list[tuple[str, ...]], successors: Successors, rank: dict[str, int]
) -> tuple[tuple[str, ...], ...]:
    """Kahn's algorithm on the condensation; among ready components the one appearing first in the program wins."""
    component_of = {node: i for i, component in enumerate(components) for node in component}
    after: list[set[int]] = [set() for _ in components]
    for node, nodes in successors.items():
        after[component_of[node]].update(component_of[t] for t in nodes)
    for i, targets in enumerate(after):
        targets.discard(i)
    indegree = [0] * len(components)
    for targets in after:
        for j in targets:
            indegree[j] += 1
    return _kahn(components, after, indegree, [rank[c[0]] for c in components])


def _kahn(
    components: list[tuple[str, ...]], after: list[set[int]], indegree: list[int], keys: list[int]
) -> tuple[tuple[str, ...], ...]:
    ready = [(keys[i], i) for i, degree in enumerate(indegree) if degree == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(components[i])
        for j in after[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(ready, (keys[j], j))
    return tuple(order)


def body_dependencies(body: Iterable[Literal], inside_aggregate: bool = False) -> Iterator[tuple[str, str, Span]]:
    """``(predicate, kind, span)`` for each atom of a body; every atom inside an aggregate has kind aggregate."""
    for literal in body:
        if isinstance(literal, Atom):
            yield literal.predicate, AGGREGATE if inside_aggregate else POSITIVE, literal.span
        elif isinstance(literal, Negation):
            span = literal.span if literal.span.line else literal.atom.span
            yield literal.atom.predicate, AGGREGATE if inside_aggregate else NEGATIVE, span
        elif isinstance(literal, Aggregate):
            yield from body_dependencies(literal.body, True)


def build_graph(program: Program) -> DependencyGraph:
    """The dependency graph of a program; nodes are every predicate of its rules, facts and inputs."""
    edges = tuple(
        Edge(source, rule.head.predicate, kind, index, span)
        for index, rule in enumerate(program.rules)
        for source, kind, span in body_dependencies(rule.body)
    )
    nodes = [p for rule in program.rules for p in (rule.head.predicate, *(e[0] for e in body_dependencies(rule.body)))]
    nodes += [f.atom.predicate for f in program.facts] + [d.predicate for d in program.inputs]
    heads = frozenset(rule.head.predicate for rule in program.rules)
    return DependencyGraph(tuple(dict.fromkeys(nodes)), heads, edges)
