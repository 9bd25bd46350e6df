"""Closure kernels of the local backend: ``TransitiveClosure`` and ``ComponentPairs`` (plan/ir.py).

Both take int64 id columns (any ids: they are compressed to ``0..n-1`` first) and yield the result
as chunks of ``(x, y)`` int64 arrays, so huge closures stream into the executor's bounded frames.

*Transitive closure*: strongly connected components (``scipy.sparse.csgraph``) condense the graph;
the components reachable from the wanted sources are cut out (one breadth-first search from a
virtual root); their reachability is computed as bitset rows (uint64 words), one topological level
at a time from the sinks up, each row the OR of its successors' rows and bits (vectorised per level
with ``np.bitwise_or.reduceat``); bits are then expanded back to the members of the components.
When the bitsets would exceed ``BITSET_BYTES`` the target bits are processed in column blocks.
Docs/design.md ("Measurements behind the choices") has the comparison with batched BFS by sparse
products (``method="sparse"``, kept for measurement).

*Component pairs*: weakly connected components, then the clique of each component, nodes sorted by
component so every node pairs with one contiguous slice of members.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from deltalog.backends.local import dense_closure as dense
from deltalog.backends.local.components import dag_labels, sink_levels, weak_components
from deltalog.backends.local.reach import reachable, scipy_graph
from deltalog.backends.local.ranges import expand_ranges, group_offsets, slices_by_weight
from deltalog.storage.uniques import positions_of, sorted_unique

Pairs = tuple[np.ndarray, np.ndarray]
Rows = tuple[int, int, np.ndarray]   # first target word, first component, bitset rows from there

CHUNK_PAIRS = 1 << 18
BITSET_BYTES = 1 << 28     # the bitset matrix of one pass: above it, target bits go in column blocks
UNPACK_BITS = 1 << 19      # bits unpacked at once while emitting pairs (~a chunk of pairs: arrays glibc reuses)
GATHER_WORDS = 1 << 22     # successor rows gathered at once while OR-ing a level


def _compress(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct ids of the edges (sorted), and the edges as positions among them."""
    ids = sorted_unique(np.concatenate([src, dst]))
    s, d = positions_of(ids, [src, dst])
    return ids, s, d


def _positions(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Positions in ``ids`` of the distinct ``values`` that occur there (the others are dropped)."""
    values = sorted_unique(np.asarray(values, np.int64))
    at = np.minimum(np.searchsorted(ids, values), max(ids.size - 1, 0))
    return at[ids[at] == values] if ids.size else np.empty(0, np.int64)


def _chunks(x: np.ndarray, y: np.ndarray, chunk: int) -> Iterator[Pairs]:
    for start in range(0, x.size, chunk):
        yield x[start:start + chunk], y[start:start + chunk]


# ---- transitive closure ------------------------------------------------------------------------

def transitive_closure(src: np.ndarray, dst: np.ndarray, sources: np.ndarray | None = None, *,
                       chunk: int = CHUNK_PAIRS, method: str = "bitset") -> Iterator[Pairs]:
    """Chunks of the pairs (x, z) with a path of one or more edges ``src[i] -> dst[i]`` from x to z,
    each pair once; (x, x) only when x is on a cycle; with ``sources``, only x among them."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    if src.size == 0 or (sources is not None and len(sources) == 0):
        return
    ids, s, d = _compress(src, dst)
    n = ids.size
    start_nodes = np.arange(n) if sources is None else _positions(ids, sources)
    if start_nodes.size == 0:
        return
    if n <= dense.DENSE_NODES:   # small: no scipy (dense_closure.py)
        reach = dense.reachability(s, d, n)
        starts = np.zeros(n, bool)
        starts[start_nodes] = True
        x, z = np.nonzero(reach & starts[:, None])
        yield from _chunks(ids[x], ids[z], chunk)
        return
    g = Condensed.of(s, d, n)
    # the components reachable from the sources (all of them without sources), renumbered 0..m-1
    keep = np.arange(g.ncomp) if sources is None else g.reachable(g.label[start_nodes])
    renumber, es, ed = g.restricted(keep)
    m = keep.size
    rows_of = _reach_bitset if method == "bitset" else _reach_sparse
    # emission: nodes grouped by component, the members of each (renumbered) component contiguous
    label = g.label
    member_order = np.argsort(renumber[label], kind="stable")
    member_order = member_order[renumber[label[member_order]] >= 0]
    member_off = group_offsets(renumber[label[member_order]], m)
    singletons = bool((g.size[keep] == 1).all())
    xs = start_nodes
    xc = renumber[label[xs]]
    for word_lo, row_lo, closure in rows_of(es, ed, m, g.cyclic[keep]):
        here = (xc >= row_lo) & (xc < row_lo + closure.shape[0])
        yield from _emit(closure, word_lo, xs[here], xc[here] - row_lo, ids, member_order, member_off,
                         singletons, chunk)


@dataclass
class Condensed:
    """A graph on nodes 0..n-1 condensed by its strongly connected components: each node's component
    (``label``), component sizes, which components hold a cycle, the condensed edges sorted by source."""

    label: np.ndarray
    ncomp: int
    size: np.ndarray
    cyclic: np.ndarray
    es: np.ndarray
    ed: np.ndarray

    @classmethod
    def of(cls, s: np.ndarray, d: np.ndarray, n: int) -> "Condensed":
        label = dag_labels(s, d, n)   # most closures are over DAGs: no scipy import (components.py)
        if label is None:
            from scipy.sparse.csgraph import connected_components
            ncomp, label = connected_components(scipy_graph(s, d, n), directed=True, connection="strong")
            label = label.astype(np.int64)
        else:
            ncomp = n
        size = np.bincount(label, minlength=ncomp)
        cyclic = size > 1
        cyclic[label[s[s == d]]] = True
        cs, cd = label[s], label[d]
        between = cs != cd
        key = sorted_unique(cs[between] * ncomp + cd[between])
        return cls(label, ncomp, size, cyclic, key // ncomp, key % ncomp)

    def reachable(self, roots: np.ndarray) -> np.ndarray:
        """The components reachable from ``roots`` (components, themselves included), sorted (reach.py)."""
        return reachable(self.es, self.ed, self.ncomp, roots)

    def restricted(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The components ``keep`` (sorted) renumbered 0..m-1 (-1 elsewhere) and the condensed edges
        between them, renumbered (still sorted by source)."""
        renumber = np.full(self.ncomp, -1, np.int64)
        renumber[keep] = np.arange(keep.size)
        inside = renumber[self.es] >= 0
        return renumber, renumber[self.es[inside]], renumber[self.ed[inside]]


def _reach_bitset(es: np.ndarray, ed: np.ndarray, m: int, cyclic: np.ndarray) -> Iterator[Rows]:
    """Per block of target words: (first word, 0, the closure bitset rows of every component, own bit
    included for cyclic components)."""
    words = (m + 63) // 64
    block = max(1, min(words, BITSET_BYTES // max(8 * m, 1)))
    off = group_offsets(es, m)
    levels = sink_levels(es, ed, m)
    for lo in range(0, words, block):
        hi = min(words, lo + block)
        reach = np.zeros((m, hi - lo), "<u8")
        for level in levels[1:]:
            if level.size == 1:   # long paths: one node per level
                v = int(level[0])
                targets = ed[off[v]:off[v + 1]]
                if targets.size == 1:   # a link of a chain: the target's row and the target's own bit
                    _follow(reach, v, int(targets[0]), lo, hi)
                    continue
                rows = reach[targets]
                _set_bits(rows, np.arange(targets.size), targets, lo, hi)
                reach[v] = np.bitwise_or.reduce(rows, axis=0)
                continue
            degree = off[level + 1] - off[level]
            for a, b in slices_by_weight(degree * (hi - lo), GATHER_WORDS):
                nodes, deg = level[a:b], degree[a:b]
                targets = ed[expand_ranges(off[nodes], deg)]
                rows = reach[targets]
                _set_bits(rows, np.arange(targets.size), targets, lo, hi)
                starts = np.concatenate([[0], np.cumsum(deg)[:-1]])
                reach[nodes] = np.bitwise_or.reduceat(rows, starts, axis=0)
        own = np.flatnonzero(cyclic)
        _set_bits(reach, own, own, lo, hi)
        yield lo, 0, reach


def _follow(reach: np.ndarray, v: int, t: int, lo: int, hi: int) -> None:
    """reach[v] = reach[t] | bit t, for a node v whose one edge goes to t (scalar work, no index arrays:
    a chain has one such level a node)."""
    reach[v] = reach[t]
    if lo <= t >> 6 < hi:
        reach[v, (t >> 6) - lo] |= np.uint64(1 << (t & 63))


def _set_bits(rows: np.ndarray, at: np.ndarray, bits: np.ndarray, lo: int, hi: int) -> None:
    """rows[at[i]] |= bit bits[i], for the bits that fall in words [lo, hi)."""
    word = bits >> 6
    inside = (word >= lo) & (word < hi)
    at, word, bits = at[inside], word[inside] - lo, bits[inside]
    np.bitwise_or.at(rows, (at, word), np.left_shift(np.uint64(1), (bits & 63).astype(np.uint64)))


def _reach_sparse(es: np.ndarray, ed: np.ndarray, m: int, cyclic: np.ndarray) -> Iterator[Rows]:
    """Batched BFS by sparse products R <- R + F A over blocks of source components, packed to the
    same bitset rows (kept to measure against the bitset levels)."""
    from scipy.sparse import csr_matrix
    a = csr_matrix((np.ones(es.size, bool), (es, ed)), shape=(m, m))
    words = (m + 63) // 64
    block = max(1, min(m, BITSET_BYTES // max(8 * words, 1)))
    for lo in range(0, m, block):
        frontier = a[lo:lo + block]
        reach = frontier.copy()
        while frontier.nnz:
            frontier = (frontier @ a).astype(bool) > reach
            reach = (reach + frontier).astype(bool)
        reach = reach.tocoo()
        rows = np.zeros((frontier.shape[0], words), "<u8")
        _set_bits(rows, reach.row.astype(np.int64), reach.col.astype(np.int64), 0, words)
        own = np.flatnonzero(cyclic[lo:lo + block])
        _set_bits(rows, own, own + lo, 0, words)
        yield 0, lo, rows


def _emit(closure: np.ndarray, word_lo: int, xs: np.ndarray, xc: np.ndarray, ids: np.ndarray,
          member_order: np.ndarray, member_off: np.ndarray, singletons: bool, chunk: int) -> Iterator[Pairs]:
    """The pairs of the source nodes ``xs`` (components ``xc``) with the members of the components
    whose bits are set in their closure rows (``closure`` holds the words from ``word_lo`` on)."""
    bits = 64 * closure.shape[1]
    if bits == 0 or xs.size == 0:
        return
    per = max(1, UNPACK_BITS // bits)
    x_ids = ids[xs]
    only_member = ids[member_order[member_off[:-1]]] if singletons else None
    for start in range(0, xs.size, per):
        rows = closure[xc[start:start + per]]
        flags = np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little").view(bool)
        found = np.count_nonzero(flags, axis=1)
        # set bits as flat positions (flatnonzero on bool: ~8x nonzero on uint8), then per row
        first = np.arange(0, found.size * bits, bits, dtype=np.int64) - 64 * word_lo
        comp = np.flatnonzero(flags) - np.repeat(first, found)
        x = np.repeat(x_ids[start:start + per], found)
        if only_member is not None:
            yield from _chunks(x, only_member[comp], chunk)
            continue
        counts = member_off[comp + 1] - member_off[comp]
        for a, b in slices_by_weight(counts, chunk):
            y = member_order[expand_ranges(member_off[comp[a:b]], counts[a:b])]
            yield np.repeat(x[a:b], counts[a:b]), ids[y]


# ---- component pairs -----------------------------------------------------------------------------

def component_pairs(src: np.ndarray, dst: np.ndarray, nodes: np.ndarray | None = None, *,
                    chunk: int = CHUNK_PAIRS) -> Iterator[Pairs]:
    """Chunks of the pairs (x, y), each once, of nodes of the same component of the undirected graph
    of the edges, (x, x) included for every node of an edge; with ``nodes``, only the components
    holding one of them."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    if src.size == 0 or (nodes is not None and len(nodes) == 0):
        return
    ids, s, d = _compress(src, dst)
    if ids.size <= dense.DENSE_NODES:   # small: no scipy (dense_closure.py); every node has an edge,
        # so the undirected closure holds (x, x) for each, and is its component's clique
        reach = dense.reachability(np.concatenate([s, d]), np.concatenate([d, s]), ids.size)
        if nodes is not None:
            reach &= dense.rows_reaching(reach, _positions(ids, nodes))[:, None]
        x, y = np.nonzero(reach)
        yield from _chunks(ids[x], ids[y], chunk)
        return
    ncomp, label = weak_components(s, d, ids.size)
    members = np.argsort(label, kind="stable")
    if nodes is not None:
        wanted = np.zeros(ncomp, bool)
        wanted[label[_positions(ids, nodes)]] = True
        members = members[wanted[label[members]]]
    off = group_offsets(label[members], ncomp)
    comp = label[members]
    counts = off[comp + 1] - off[comp]
    for a, b in slices_by_weight(counts, chunk):
        y = members[expand_ranges(off[comp[a:b]], counts[a:b])]
        yield ids[np.repeat(members[a:b], counts[a:b])], ids[y]


def collect(chunks: Iterator[Pairs]) -> Pairs:
    """All pairs of a kernel's chunks as two arrays."""
    parts = list(chunks)
    if not parts:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
