"""Elimination orderings of a body's primal graph, and the bags they give (analysis/decompose.py).

Eliminating a variable v makes {v} ∪ (its not yet eliminated neighbours) a bag and joins those
neighbours into a clique; the least width over all orderings is the generalized hypertree width
(a bag's cost is its edge-cover number). Bodies with at most :data:`EXACT_VARIABLES` variables get
the exact minimum by dynamic programming over the sets of eliminated variables; larger ones, or a
search over :data:`EXACT_SECONDS`, a greedy ordering (least bag cover, then min-fill).
"""

from __future__ import annotations

import time
from functools import lru_cache
from itertools import combinations

EXACT_VARIABLES = 14   # 2^14 subsets: well under a second in Python
EXACT_SECONDS = 1.0


# ---- the primal graph and bag costs ------------------------------------------------------------

def primal_graph(variables: list[str], sets: list[frozenset[str]]) -> dict[str, frozenset[str]]:
    adjacent: dict[str, set[str]] = {v: set() for v in variables}
    for members in sets:
        for v in members:
            adjacent[v] |= members - {v}
    return {v: frozenset(n) for v, n in adjacent.items()}


def cover_function(hyperedges: tuple[frozenset[str], ...]):
    """ρ(bag): the least number of atoms whose variables include the bag (exact set cover; bodies
    are small), with one least cover, preferring atoms that lie inside the bag."""

    @lru_cache(maxsize=None)
    def cover(bag: frozenset[str]) -> tuple[int, tuple[int, ...]]:
        if not bag:
            return 0, ()
        useful = [i for i, e in enumerate(hyperedges) if e & bag]
        useful.sort(key=lambda i: (not hyperedges[i] <= bag, -len(hyperedges[i] & bag), i))
        for k in range(1, len(useful) + 1):
            for chosen in combinations(useful, k):
                if bag <= frozenset().union(*(hyperedges[i] for i in chosen)):
                    return k, tuple(sorted(chosen))
        raise ValueError(f"variables {sorted(bag)} are covered by no atom")

    return cover


# ---- elimination orderings -------------------------------------------------------------------------

def best_order(variables: list[str], adjacency: dict[str, frozenset[str]], cover) -> tuple[list[str], bool]:
    if len(variables) <= EXACT_VARIABLES:
        order = _exact_order(variables, adjacency, cover, time.monotonic() + EXACT_SECONDS)
        if order is not None:
            return order, True
    return min_fill_order(variables, adjacency, cover), False


def _exact_order(variables: list[str], adjacency: dict[str, frozenset[str]], cover, deadline: float
                 ) -> list[str] | None:
    """The ordering whose largest bag has the least cover number (then the fewest variables):
    best(S) = min over v in S of max(best(S - v), cost({v} ∪ Q(S - v, v))), Q(S, v) being the
    variables outside S ∪ {v} reachable from v through S (its neighbours once S is eliminated)."""
    index = {v: i for i, v in enumerate(variables)}
    neighbours = [sum(1 << index[n] for n in adjacency[v]) for v in variables]
    full = (1 << len(variables)) - 1
    best: dict[int, tuple[tuple[int, int], int]] = {0: ((0, 0), -1)}
    by_size: list[list[int]] = [[] for _ in range(len(variables) + 1)]
    for s in range(1, full + 1):
        by_size[bin(s).count("1")].append(s)
    for size in range(1, len(variables) + 1):
        if time.monotonic() > deadline:
            return None
        for s in by_size[size]:
            choice: tuple[tuple[int, int], int] | None = None
            rest = s
            while rest:
                bit = rest & -rest
                rest ^= bit
                v = bit.bit_length() - 1
                before = s ^ bit
                bag = _reach(v, before, neighbours) | bit
                names = frozenset(variables[i] for i in range(len(variables)) if bag >> i & 1)
                cost = max(best[before][0], (cover(names)[0], len(names)))
                if choice is None or cost < choice[0]:
                    choice = (cost, v)
            assert choice is not None
            best[s] = choice
    order: list[str] = []
    s = full
    while s:
        v = best[s][1]
        order.append(variables[v])
        s ^= 1 << v
    return order[::-1]


def _reach(v: int, eliminated: int, neighbours: list[int]) -> int:
    """Variables not in ``eliminated`` (nor v) reachable from v through eliminated ones."""
    seen = 1 << v
    frontier = neighbours[v]
    found = 0
    while frontier:
        bit = frontier & -frontier
        frontier ^= bit
        if seen & bit:
            continue
        seen |= bit
        if eliminated & bit:
            frontier |= neighbours[bit.bit_length() - 1] & ~seen
        else:
            found |= bit
    return found


def min_fill_order(variables: list[str], adjacency: dict[str, frozenset[str]], cover,
                    first: str | None = None) -> list[str]:
    """Greedy: eliminate the variable whose bag has the least cover, then the fewest fill edges
    (min-fill), then the fewest neighbours, then the first name (``first``, if given, goes first)."""
    graph = {v: set(n) for v, n in adjacency.items()}
    order: list[str] = []
    while graph:
        def rank(v: str) -> tuple[int, int, int, str]:
            ns = graph[v]
            fill = sum(1 for a, b in combinations(sorted(ns), 2) if b not in graph[a])
            return cover(frozenset(ns | {v}))[0], fill, len(ns), v
        v = first if first is not None and not order else min(graph, key=rank)
        ns = graph.pop(v)
        for a in ns:
            graph[a] |= ns - {a}
            graph[a].discard(v)
        order.append(v)
    return order


def bags_from_order(order: list[str], adjacency: dict[str, frozenset[str]]
                     ) -> tuple[list[frozenset[str]], list[int | None]]:
    """Bag of v = v with its later neighbours in the filled graph; its parent is the bag of the
    earliest of those neighbours to be eliminated (the tree of a chordal graph's cliques)."""
    position = {v: i for i, v in enumerate(order)}
    graph = {v: set(n) for v, n in adjacency.items()}
    bags: list[frozenset[str]] = []
    parents: list[int | None] = []
    for v in order:
        later = {u for u in graph[v] if position[u] > position[v]}
        for a in later:
            graph[a] |= later - {a}
        bags.append(frozenset(later | {v}))
        parents.append(position[min(later, key=position.__getitem__)] if later else None)
    return bags, parents
