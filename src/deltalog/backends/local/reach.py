"""The nodes reachable from some roots: a frontier search in NumPy while the graph is shallow.

The closure kernels ask which nodes reach, or are reached from, the nodes an update touched (003 section
4: the ancestors of the deleted edges' tails). ``scipy.sparse.csgraph.breadth_first_order`` answers in
C, but importing ``scipy.sparse.csgraph`` costs ~0.22 s of CPU, paid by the first deletion of every
process (most closures are over DAGs, which materialisation condenses without scipy: components.py),
against ~0.3 s for the rest of a 10-edge deletion on DAG-R. A frontier search costs a few array
operations a level and O(edges) in all: a level at a time, the edges out of the frontier are expanded
and the nodes not seen yet become the next frontier. A deep graph (a long chain) would take a round
of array calls per level, so past ``FRONTIER_LEVELS`` levels the search goes to scipy after all; and once
scipy's graph routines are imported (by such a search, or a closure over cycles), every search is theirs:
in C it is faster, and the NumPy search only ever saved the import (Claros-like, 100k nodes of deep
chains: 10-17 ms a search that goes 64 levels and then to scipy).

>>> reachable(np.array([0, 1, 3]), np.array([1, 2, 4]), 5, np.array([0])).tolist()
[0, 1, 2]
"""

from __future__ import annotations

import sys

import numpy as np

from deltalog.backends.local.ranges import expand_ranges
from deltalog.storage.uniques import sorted_unique

FRONTIER_LEVELS = 64
"""Levels searched in NumPy before a search goes to scipy (each level: ~10 array calls, ~50 us)."""


def reachable(src: np.ndarray, dst: np.ndarray, n: int, roots: np.ndarray) -> np.ndarray:
    """The nodes (of 0..n-1) reachable from ``roots`` over the edges ``src -> dst``, roots included, sorted."""
    roots = sorted_unique(np.asarray(roots, np.int64))
    if roots.size == 0 or src.size == 0:
        return roots
    if scipy_loaded():
        return _by_scipy(src, dst, n, roots)
    order = np.argsort(src, kind="stable")
    targets = dst[order]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    seen = np.zeros(n, bool)
    seen[roots] = True
    frontier = roots
    for _ in range(FRONTIER_LEVELS):
        reached = targets[expand_ranges(offsets[frontier], offsets[frontier + 1] - offsets[frontier])]
        frontier = sorted_unique(reached[~seen[reached]])
        if frontier.size == 0:
            return np.flatnonzero(seen)
        seen[frontier] = True
    return _by_scipy(src, dst, n, roots)


def scipy_loaded() -> bool:
    """Whether scipy's graph routines are imported already (a search then costs no import)."""
    return "scipy.sparse.csgraph" in sys.modules


def _by_scipy(src: np.ndarray, dst: np.ndarray, n: int, roots: np.ndarray) -> np.ndarray:
    """``reachable`` by one breadth-first search in C from a virtual root n with an edge to every root."""
    from scipy.sparse.csgraph import breadth_first_order
    graph = scipy_graph(np.concatenate([src, np.full(roots.size, n)]), np.concatenate([dst, roots]), n + 1)
    return np.sort(breadth_first_order(graph, n, directed=True, return_predecessors=False))[:-1]


def scipy_graph(s: np.ndarray, d: np.ndarray, n: int):
    """The edges ``s -> d`` over nodes 0..n-1 as the sparse matrix scipy's graph routines take."""
    from scipy.sparse import csr_matrix   # imported where used: scipy.sparse.csgraph costs ~0.2 s at startup
    return csr_matrix((np.ones(s.size, np.int8), (s, d)), shape=(n, n))
