"""Reachability and connected components of an in-memory graph with numpy/scipy (the driver and executor paths
of backends/spark/closure.py).

A simple, vectorised stand-in for the embedded backend's closure kernels (backends/local/closure.py, written
elsewhere): the Spark translation calls only ``prepare``, ``Reachability.pairs``/``counts`` and
``component_labels``, so the kernel can be swapped. Nodes are ids ``0..n-1``.

Reachability: strongly connected components (scipy), the condensed DAG cut into topological levels from the
sinks (Kahn's algorithm, one vectorised step per level), and one bitset row per component holding the
components reachable by one or more edges, OR-ed level by level (``bitwise_or.reduceat``). The bitsets take
k^2/8 bytes for k components: ``prepare`` declines (None) past ``max_bytes``.

>>> r = prepare(np.array([0, 1, 2]), np.array([1, 2, 1]), 4)
>>> sorted(zip(*map(list, r.pairs_array())))
[(0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)]
>>> component_labels(np.array([0, 2]), np.array([1, 3]), 5).tolist()
[0, 0, 1, 1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

MAX_BITSET_BYTES = 512 << 20     # the reachability bitsets of k components take k*k/8 bytes
UNPACK_BYTES = 32 << 20          # bytes of unpacked bit rows per step when listing pairs


def ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of arange(s, e) for each (s, e)."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return offsets + np.arange(total, dtype=np.int64)


@dataclass
class Reachability:
    """The closure of a graph in condensed form: components, their members and reachable-component bitsets."""

    n: int
    comp: np.ndarray            # node -> component
    members: np.ndarray         # nodes ordered by component
    start: np.ndarray           # component -> offset in ``members`` (k + 1 entries)
    bits: np.ndarray            # k x ceil(k/8) uint8, little bit order: components reachable in >= 1 step

    @property
    def k(self) -> int:
        return len(self.start) - 1

    def unpacked(self, comps: np.ndarray) -> np.ndarray:
        return np.unpackbits(self.bits[comps], axis=1, count=self.k, bitorder="little").view(bool)

    def counts(self, nodes: np.ndarray) -> np.ndarray:
        """How many nodes each given node reaches."""
        size = np.diff(self.start)
        per_comp = np.zeros(self.k, dtype=np.int64)
        step = max(1, UNPACK_BYTES // max(self.k, 1))
        for lo in range(0, self.k, step):
            comps = np.arange(lo, min(lo + step, self.k))
            per_comp[comps] = self.unpacked(comps).astype(np.int64) @ size
        return per_comp[self.comp[nodes]]

    def pairs(self, nodes: np.ndarray | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(x, z) for every given node x (default: all) and every z reachable from it, in batches."""
        nodes = np.arange(self.n) if nodes is None else np.unique(np.asarray(nodes, dtype=np.int64))
        if nodes.size == 0:
            return
        nodes = nodes[np.argsort(self.comp[nodes], kind="stable")]
        node_comp = self.comp[nodes]
        comps = np.unique(node_comp)
        size = np.diff(self.start)
        step = max(1, UNPACK_BYTES // max(self.k, 1))
        for lo in range(0, comps.size, step):
            chunk = comps[lo:lo + step]
            ci, dj = np.nonzero(self.unpacked(chunk))
            # (component of x, z) rows, grouped by x's component in chunk order
            z = self.members[ranges(self.start[dj], self.start[dj + 1])]
            per_c = np.bincount(ci, weights=size[dj], minlength=chunk.size).astype(np.int64)
            block_end = np.cumsum(per_c)
            block_start = block_end - per_c
            first = np.searchsorted(node_comp, chunk[0], side="left")
            last = np.searchsorted(node_comp, chunk[-1], side="right")
            xs = nodes[first:last]
            where = np.searchsorted(chunk, node_comp[first:last])
            lengths = per_c[where]
            if lengths.sum():
                yield np.repeat(xs, lengths), z[ranges(block_start[where], block_end[where])]

    def pairs_array(self, nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        parts = list(self.pairs(nodes))
        if not parts:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def prepare(src: np.ndarray, dst: np.ndarray, n: int, max_bytes: int = MAX_BITSET_BYTES) -> Reachability | None:
    """The reachability of the graph with edges src -> dst over nodes 0..n-1 (None: the bitsets would exceed
    ``max_bytes``)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    graph = csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    k, comp = connected_components(graph, directed=True, connection="strong")
    comp = comp.astype(np.int64)
    if k * ((k + 7) // 8) > max_bytes:
        return None
    cs, cd = comp[src], comp[dst]
    size = np.bincount(comp, minlength=k)
    cyclic = size > 1
    cyclic[cs[cs == cd]] = True
    keep = cs != cd
    key = np.unique(cs[keep] * k + cd[keep])
    es, ed = key // k, key % k                                  # condensed edges, sorted by source
    forward = np.searchsorted(es, np.arange(k + 1))
    by_target = np.argsort(ed, kind="stable")
    backward = np.searchsorted(ed[by_target], np.arange(k + 1))
    preds_of = es[by_target]
    remaining = np.bincount(es, minlength=k)
    width = (k + 7) // 8
    bits = np.zeros((k, width), dtype=np.uint8)
    frontier = np.flatnonzero(remaining == 0)                  # sinks: nothing reachable but themselves
    while frontier.size:
        preds = preds_of[ranges(backward[frontier], backward[frontier + 1])]
        remaining -= np.bincount(preds, minlength=k)
        candidates = np.unique(preds)
        frontier = candidates[remaining[candidates] == 0]      # every successor done: this level
        if not frontier.size:
            break
        edges = ranges(forward[frontier], forward[frontier + 1])
        succ = ed[edges]
        rows = bits[succ]
        rows[np.arange(succ.size), succ >> 3] |= (1 << (succ & 7)).astype(np.uint8)
        lengths = forward[frontier + 1] - forward[frontier]
        bits[frontier] = np.bitwise_or.reduceat(rows, np.concatenate(([0], np.cumsum(lengths)[:-1])), axis=0)
    loops = np.flatnonzero(cyclic)
    bits[loops, loops >> 3] |= (1 << (loops & 7)).astype(np.uint8)
    members = np.argsort(comp, kind="stable")
    start = np.searchsorted(comp[members], np.arange(k + 1))
    return Reachability(n, comp, members, start, bits)


def component_labels(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """The connected component (undirected) of each node 0..n-1."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    graph = csr_matrix((np.ones(len(src), dtype=np.int8), (np.asarray(src), np.asarray(dst))), shape=(n, n))
    return connected_components(graph, directed=False)[1].astype(np.int64)


def clique_pairs(labels: np.ndarray, nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) for every two nodes (x = y included) of the same component; only components holding one of
    ``nodes`` if given."""
    order = np.argsort(labels, kind="stable")
    k = int(labels.max()) + 1 if labels.size else 0
    start = np.searchsorted(labels[order], np.arange(k + 1))
    chosen = order if nodes is None else order[np.isin(labels[order], np.unique(labels[np.asarray(nodes)]))]
    size = np.diff(start)[labels[chosen]]
    ys = order[ranges(start[labels[chosen]], start[labels[chosen] + 1])]
    return np.repeat(chosen, size), ys
