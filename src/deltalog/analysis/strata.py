"""Stratification: one stratum per SCC of IDB predicates, in topological order, split into Π_r^s and Π_nr^s."""

from __future__ import annotations

from typing import Sequence

from deltalog.analysis.graph import NEGATIVE, POSITIVE, DependencyGraph, Edge
from deltalog.analysis.modules import choose_modules
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.errors import StratificationError


def describe_cycle(graph: DependencyGraph, edge: Edge) -> str:
    """``p -> not q -> ... -> p``: the head, the negated (or aggregated) predicate, then back to the head."""
    back = graph.path(edge.target, edge.source)  # target ~> source along body -> head edges
    word = "not" if edge.kind == NEGATIVE else "agg"
    return " -> ".join([edge.target, f"{word} {edge.source}", *reversed(back[:-1])])


def check_stratifiable(graph: DependencyGraph, rules: Sequence[RuleInfo] = ()) -> None:
    """Raise :class:`StratificationError` at the first negated or aggregated literal recursive with its head."""
    for edge in graph.edges:
        if edge.kind != POSITIVE and graph.component_of[edge.source] == graph.component_of[edge.target]:
            what = "negation" if edge.kind == NEGATIVE else "aggregation"
            notes = (f"in rule {rules[edge.rule].rule}",) if edge.rule < len(rules) else ()
            message = f"{what} through recursion: {describe_cycle(graph, edge)}"
            raise StratificationError(message, edge.span, notes=notes)


def is_recursive(info: RuleInfo, predicates: frozenset[str]) -> bool:
    """Whether a positive body atom of the rule belongs to the stratum (so the rule is in Π_r^s)."""
    return any(atom.predicate in predicates for atom in info.positive)


def make_stratum(index: int, predicates: frozenset[str], infos: list[RuleInfo], closures: bool = True) -> Stratum:
    recursive = tuple(info for info in infos if is_recursive(info, predicates))
    nonrecursive = tuple(info for info in infos if not is_recursive(info, predicates))
    return Stratum(index, predicates, recursive, nonrecursive, choose_modules(recursive, nonrecursive, closures))


def stratify(graph: DependencyGraph, rules: Sequence[RuleInfo], closures: bool = True) -> tuple[Stratum, ...]:
    """The most granular stratification: strata are the IDB SCCs of ``graph`` in topological order
    (``closures``: let closure modules claim the rules they match, analysis/modules.py)."""
    check_stratifiable(graph, rules)
    buckets: list[list[RuleInfo]] = [[] for _ in graph.stratum_components]
    for info in rules:
        buckets[graph.stratum_map[info.head.predicate]].append(info)
    return tuple(
        make_stratum(index, frozenset(predicates), bucket, closures)
        for index, (predicates, bucket) in enumerate(zip(graph.stratum_components, buckets))
    )
