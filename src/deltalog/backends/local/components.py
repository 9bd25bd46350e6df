"""Graph components without scipy, for the common cases (backends/local/closure.py).

``scipy.sparse.csgraph`` costs ~0.2 s to import (scipy 1.17's array-API layer imports numpy.f2py),
more than closing most graphs takes, so the closure kernels ask here first:

- ``dag_labels``: a graph without cycles (self-loops aside) has one component per node; peeling its
  sinks level by level proves it, within a budget of levels (a long chain is a few milliseconds;
  a deeper or cyclic graph answers None and the caller asks scipy for strong components);
- ``weak_components``: the components of the undirected graph by hooking and pointer jumping
  (Shiloach-Vishkin style): each round every edge between two trees hooks the larger root under the
  smallest root it meets, then pointers are jumped to their roots. Every tree with a neighbour tree
  hooks or is hooked, so the number of trees of a component at least halves per round: O(log n)
  rounds of vectorised work over the edges still between two trees.

>>> dag_labels(np.array([0, 1]), np.array([1, 2]), 3).tolist()
[0, 1, 2]
>>> dag_labels(np.array([0, 1]), np.array([1, 0]), 2) is None
True
>>> ncomp, label = weak_components(np.array([3, 1]), np.array([1, 4]), 5)
>>> ncomp, label.tolist()
(3, [0, 1, 2, 1, 1])
"""

from __future__ import annotations

import numpy as np

from deltalog.backends.local.ranges import expand_ranges, group_offsets
from deltalog.backends.local.reach import scipy_graph, scipy_loaded

DAG_CHECK_LEVELS = 4096   # levels peeled before a graph counts as "ask scipy" (one Python step each)
WEAK_ROUNDS = 64          # hooking rounds before falling back to scipy (log2 of any graph that fits)


def dag_labels(s: np.ndarray, d: np.ndarray, n: int) -> np.ndarray | None:
    """``arange(n)`` (each node its own strong component) if the edges ``s -> d`` over nodes 0..n-1
    have no cycle but self-loops, proven by peeling sinks in at most ``DAG_CHECK_LEVELS`` levels;
    else None (a cycle, or too deep to tell cheaply)."""
    proper = s != d
    levels = sink_levels(s[proper], d[proper], n, limit=DAG_CHECK_LEVELS)
    return np.arange(n, dtype=np.int64) if sum(level.size for level in levels) == n else None


def sink_levels(s: np.ndarray, d: np.ndarray, n: int, limit: int | None = None) -> list[np.ndarray]:
    """The nodes 0..n-1 of the edges ``s -> d`` by height: sinks first, then the nodes all of whose
    successors are in earlier levels (at most ``limit`` levels). Nodes on or leading into a cycle are
    in no level, so the levels hold every node exactly when the graph is a DAG."""
    pred_order = np.argsort(d, kind="stable")
    pred_off = group_offsets(d[pred_order], n)
    preds_of = s[pred_order]   # the predecessors of node v: preds_of[pred_off[v]:pred_off[v + 1]]
    out_degree = np.bincount(s, minlength=n)
    frontier = np.flatnonzero(out_degree == 0)
    levels: list[np.ndarray] = []
    while frontier.size and (limit is None or len(levels) < limit):
        if frontier.size == 1:   # long paths: one node per level, without the vectorised machinery
            frontier = _walk(int(frontier[0]), preds_of, pred_off, out_degree, levels, limit)
            continue
        levels.append(frontier)
        frontier = _released(preds_of[expand_ranges(pred_off[frontier], pred_off[frontier + 1] - pred_off[frontier])],
                             out_degree)
    return levels


def _walk(v: int, preds_of: np.ndarray, pred_off: np.ndarray, out_degree: np.ndarray, levels: list[np.ndarray],
          limit: int | None) -> np.ndarray:
    """Levels of one node each, from ``v`` up a path in Python ints (a chain has a level a node: ~0.8 µs
    each instead of ~2.5 µs of NumPy calls on one-element arrays): while the level's node has one
    predecessor whose last successor it is, that predecessor is the next level. Returns the frontier
    after the last level added."""
    while True:
        levels.append(np.array([v], dtype=np.int64))
        a, b = int(pred_off[v]), int(pred_off[v + 1])
        if b - a != 1 or (limit is not None and len(levels) >= limit):
            return _released(preds_of[a:b], out_degree)
        v = int(preds_of[a])
        out_degree[v] -= 1
        if out_degree[v]:
            return np.empty(0, np.int64)


def _released(preds: np.ndarray, out_degree: np.ndarray) -> np.ndarray:
    """The predecessors of a level whose every successor is now in a level (their out-degree counts down)."""
    if preds.size <= 1:
        out_degree[preds] -= 1
        return preds[out_degree[preds] == 0]
    uniq, counts = np.unique(preds, return_counts=True)
    out_degree[uniq] -= counts
    return uniq[out_degree[uniq] == 0]


def weak_components(s: np.ndarray, d: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    """(number of components, label of each node) of the undirected graph of the edges over nodes
    0..n-1; labels 0.. in the order of each component's smallest node (as scipy numbers them). Once
    scipy's graph routines are imported anyway (``reach.scipy_loaded``), theirs: Claros-like's 89k
    chain edges, ~4.5 vs ~5.5 ms (an STC update labels two or three graphs, ``component_diff.py``;
    docs/benchmarks.md, stop 23)."""
    if scipy_loaded():
        return _scipy_weak(s, d, n)
    parent = np.arange(n, dtype=np.int64)
    es, ed = s, d
    for _ in range(WEAK_ROUNDS):
        ps, pd = parent[es], parent[ed]   # (roots: every node points at its root between rounds)
        apart = ps != pd
        if not apart.any():
            # each component is one tree rooted at its smallest node (roots hook only under smaller
            # ones): its label is the rank of that root, no sort
            root = parent == np.arange(n)
            return int(np.count_nonzero(root)), (np.cumsum(root) - 1)[parent]
        if not apart.all():   # an edge inside one tree stays inside it: later rounds skip it
            es, ed, ps, pd = es[apart], ed[apart], ps[apart], pd[apart]
        hooked = np.maximum(ps, pd)
        np.minimum.at(parent, hooked, np.minimum(ps, pd))
        # the hooked roots' chains are followed among them only, then every node is one step from
        # its root (it pointed at a root before the round): not a jump of all n nodes per level
        top = parent[hooked]
        while not np.array_equal(up := parent[top], top):
            top = up
        parent[hooked] = top
        parent = parent[parent]
    return _scipy_weak(s, d, n)   # not reached on graphs that fit in memory; kept exact anyway


def _scipy_weak(s: np.ndarray, d: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    from scipy.sparse.csgraph import connected_components
    ncomp, label = connected_components(scipy_graph(s, d, n), directed=True, connection="weak")
    return int(ncomp), label.astype(np.int64)
