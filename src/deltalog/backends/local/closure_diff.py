"""Local kernels that compare transitive closures without emitting them (plan/ir.py): ``ClosureDifference``,
the pairs one graph's closure has and another's has not, and ``Reaches``, which given pairs a closure has.

003 section 4 maintains a transitive closure under deletion by recomputing the reachable sets of the
affected sources (the ancestors of the deleted edges' tails) and comparing them with the old ones. On
DAG-R those sources reach ~20M pairs, so emitting both sets and diffing them costs seconds; here both
closures stay bitsets and only ``old & ~new`` is unpacked (docs/design.md, "Closure modules").

Both graphs live on one node numbering. Their strongly connected components differ (an update merges
and splits them), so the bits stand for the *classes* of the common refinement (nodes in the same
component of both graphs), whose members reach the same nodes in each graph. Per graph, a component's
row R*(c) holds its own classes and the OR of its successors' rows, one topological level at a time
(``components.sink_levels``); R+(c), its closure, is R*(c) without its own class unless c has a cycle.
``reaches`` uses the same rows with a bit per target component of the pairs only (DAG-R: a thousand
deleted edges checked against the new closure with 16 words a row instead of 5M pairs emitted).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from deltalog.backends.local.closure import (BITSET_BYTES, CHUNK_PAIRS, GATHER_WORDS, UNPACK_BITS, Condensed,
                                             Pairs, _positions)
from deltalog.backends.local import few_sources
from deltalog.backends.local.components import sink_levels
from deltalog.backends.local.reach import reachable
from deltalog.backends.local.ranges import expand_ranges, group_offsets, slices_by_weight
from deltalog.storage.uniques import positions_of, sorted_unique


def closure_difference(src: np.ndarray, dst: np.ndarray, other_src: np.ndarray, other_dst: np.ndarray,
                       tails: np.ndarray | None = None, *, chunk: int = CHUNK_PAIRS) -> Iterator[Pairs]:
    """Chunks of the pairs (x, z), each once, with a path from x to z over the edges ``src -> dst`` but
    none over ``other_src -> other_dst``; with ``tails``, only x that reach one of them (or are one)."""
    arrays = [np.asarray(a, np.int64) for a in (src, dst, other_src, other_dst)]
    if arrays[0].size == 0 or (tails is not None and len(tails) == 0):
        return
    ids = sorted_unique(np.concatenate(arrays))
    s, d, os_, od = positions_of(ids, arrays)
    n = ids.size
    starts = np.arange(n) if tails is None else _ancestors(s, d, n, _positions(ids, tails))
    if starts.size == 0:
        return
    if few_sources.fits(starts.size, n) and (found := few_sources.difference(s, d, os_, od, n, starts)):
        for lo in range(0, found[0].size, chunk):
            yield ids[found[0][lo:lo + chunk]], ids[found[1][lo:lo + chunk]]
        return
    if starts.size < n:
        ids, (starts,), ((s, d), (os_, od)) = _reached_part(ids, starts, [(s, d), (os_, od)])
        n = ids.size
    mine, other = Condensed.of(s, d, n), Condensed.of(os_, od, n)
    cls, q = _classes(mine.label, other.label)
    member_order = np.argsort(cls, kind="stable")
    member_off = group_offsets(cls[member_order], q)
    source_classes = sorted_unique(cls[starts])
    sides = [_Side(g, cls, q, g.reachable(g.label[starts])) for g in (mine, other)]
    words = (q + 63) // 64
    block = max(1, min(words, BITSET_BYTES // max(8 * sum(side.m for side in sides), 1)))
    for lo in range(0, words, block):
        hi = min(words, lo + block)
        have, lack = (side.rows_of(source_classes, lo, hi) for side in sides)
        yield from _emit(source_classes, have & ~lack, lo, ids, member_order, member_off, chunk)


def reaches(src: np.ndarray, dst: np.ndarray, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """For each pair (x[i], z[i]): is there a path of one or more edges ``src -> dst`` from x[i] to
    z[i]? Bits only for the components of the z's, rows only for what the x's reach."""
    found = np.zeros(len(x), bool)
    src, dst, x, z = (np.asarray(a, np.int64) for a in (src, dst, x, z))
    if src.size == 0 or x.size == 0:
        return found
    ids = sorted_unique(np.concatenate([src, dst]))
    s, d = positions_of(ids, [src, dst])
    at_x, at_z = (np.minimum(np.searchsorted(ids, a), ids.size - 1) for a in (x, z))
    known = (ids[at_x] == x) & (ids[at_z] == z)
    if not known.any():
        return found
    ids, (px, pz), ((s, d),) = _reached_part(ids, at_x[known], [(s, d)], also=at_z[known])
    known[known] = pz >= 0   # a target no x reaches: no path
    px, pz = px[pz >= 0], pz[pz >= 0]
    if px.size == 0:
        return found
    g = Condensed.of(s, d, ids.size)
    cx, cz = g.label[px], g.label[pz]
    inner = (cx == cz) & g.cyclic[cx]   # both ends in one cyclic component: a path, no bits needed
    known[known] = inner | _reach_bits(g, cx, cz, ~inner)
    return known


def _reach_bits(g: Condensed, cx: np.ndarray, cz: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """``reaches`` for the ``asked`` component pairs (cx[i], cz[i]): closure rows of what the cx reach,
    over a bit per target component (False where not asked)."""
    hits = np.zeros(cx.size, bool)
    if not asked.any():   # RS2: deleted edges inside p11's giant component, all answered by labels
        return hits
    at = np.flatnonzero(asked)
    cx, cz = cx[at], cz[at]
    targets = sorted_unique(cz)   # a column per target component
    column_of = np.full(g.ncomp, -1, np.int64)
    column_of[targets] = np.arange(targets.size)
    side = _Side(g, column_of[g.label], targets.size, g.reachable(cx))
    rows, col = side.renumber[cx], column_of[cz]
    words = (targets.size + 63) // 64
    block = max(1, min(words, BITSET_BYTES // max(8 * side.m, 1)))
    found = np.zeros(cx.size, bool)
    for lo in range(0, words, block):
        hi = min(words, lo + block)
        closure = side.closure(lo, hi)
        inside = (col >> 6 >= lo) & (col >> 6 < hi)
        word = closure[rows[inside], (col[inside] >> 6) - lo]
        found[inside] = (word >> (col[inside] & 63).astype(np.uint64)) & np.uint64(1) == 1
    hits[at] = found
    return hits


REACHED_PART_MAX = 0.5
"""Restrict a kernel to the nodes its roots reach when they are at most this share of the graph: one
breadth-first search over the edges instead of condensing all of them: a clique split in Claros-like
data touches a few hundred of 350k places (deleting 10 explicit facts at 50,000 clusters: 0.42 -> 0.19 s
CPU, docs/benchmarks.md "Claros-like at scale")."""

REACHED_PART_MIN_NODES = 50_000
"""Graphs with fewer nodes are condensed whole: there the search costs about what it could save, and on
deep graphs it reaches everything anyway (DAG-R, 10k nodes: every search reached all of them, +12-70 ms
on a 0.12 s deletion of 10 edges)."""


def _reached_part(ids: np.ndarray, roots: np.ndarray, graphs: list[tuple[np.ndarray, np.ndarray]],
                  also: np.ndarray | None = None):
    """The part of ``graphs`` (edges on node positions 0..len(ids)-1) reachable from ``roots`` over
    any of them: (its node ids, ``roots`` and ``also`` renumbered, each graph's edges inside it,
    renumbered). Reachability from the roots, strongly connected components among the reached nodes
    and paths between them are those of the whole graphs (an edge out of a reached node ends at one).
    The graphs as they are when they are small or the roots reach more than ``REACHED_PART_MAX`` of the
    nodes. Nodes in ``also`` (targets asked about) that are not reached are kept, without edges out of
    them."""
    n = ids.size
    whole = ids, [roots] + ([also] if also is not None else []), graphs
    if n < REACHED_PART_MIN_NODES:
        return whole
    reached = reachable(np.concatenate([s for s, _ in graphs]), np.concatenate([d for _, d in graphs]), n, roots)
    if reached.size > REACHED_PART_MAX * n:
        return whole
    inside = np.zeros(n, bool)
    inside[reached] = True
    renumber = np.cumsum(inside) - 1
    kept = [(renumber[s[inside[s]]], renumber[d[inside[s]]]) for s, d in graphs]
    asked = [renumber[roots]]
    if also is not None:
        asked.append(np.where(inside[also], renumber[also], -1))
    return ids[inside], asked, kept


def _ancestors(s: np.ndarray, d: np.ndarray, n: int, tails: np.ndarray) -> np.ndarray:
    """The nodes that reach one of ``tails`` (the tails included), sorted: a search over the reversed edges."""
    return reachable(d, s, n, tails)


def _classes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    """Each node's class in the common refinement of two labellings (0..q-1), and q."""
    for labels in (a, b):
        if int(labels.max()) + 1 == labels.size:   # all singletons (labels are 0..ncomp-1): so is the refinement
            return labels, int(labels.size)
    key = a * (int(b.max()) + 1) + b
    distinct = sorted_unique(key)
    return np.searchsorted(distinct, key), int(distinct.size)


class _Side:
    """One graph's closure rows for the components ``keep`` (sorted), over q bit columns: ``columns`` gives
    each node's column, or -1 for a node no bit stands for (nodes of one component never get different
    columns, and a column's nodes lie inside one component)."""

    def __init__(self, g: Condensed, columns: np.ndarray, q: int, keep: np.ndarray) -> None:
        self.m, self.label = keep.size, g.label
        self.renumber, self.es, self.ed = g.restricted(keep)
        self.levels = sink_levels(self.es, self.ed, self.m)
        comp_of = np.full(q, -1, np.int64)
        has = columns >= 0
        comp_of[columns[has]] = self.renumber[g.label[has]]
        self.comp_of = comp_of
        self.own_class = np.flatnonzero(comp_of >= 0)
        self.own_comp = comp_of[self.own_class]
        self.acyclic = ~g.cyclic[keep]

    def rows_of(self, classes: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """R+ rows (words lo..hi) of the components of some classes; zero rows where not kept."""
        rows = self.closure(lo, hi)
        comp = self.comp_of[classes]
        out = np.zeros((classes.size, hi - lo), "<u8")
        kept = comp >= 0
        out[kept] = rows[comp[kept]]
        return out

    def closure(self, lo: int, hi: int) -> np.ndarray:
        """R+ of every kept component, words lo..hi."""
        reach = np.zeros((self.m, hi - lo), "<u8")
        _set_bits(reach, self.own_comp, self.own_class, lo, hi)
        off = group_offsets(self.es, self.m)
        for level in self.levels[1:]:
            degree = off[level + 1] - off[level]
            for a, b in slices_by_weight(degree * (hi - lo), GATHER_WORDS):
                nodes, deg = level[a:b], degree[a:b]
                rows = reach[self.ed[expand_ranges(off[nodes], deg)]]
                starts = np.concatenate([[0], np.cumsum(deg)[:-1]])
                reach[nodes] |= np.bitwise_or.reduceat(rows, starts, axis=0)
        acyclic = self.acyclic[self.own_comp]   # an acyclic component is one node: one class
        _clear_bits(reach, self.own_comp[acyclic], self.own_class[acyclic], lo, hi)
        return reach


def _in_block(bits: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    word = bits >> 6
    inside = (word >= lo) & (word < hi)
    return inside, word[inside] - lo, np.left_shift(np.uint64(1), (bits[inside] & 63).astype(np.uint64))


def _set_bits(rows: np.ndarray, at: np.ndarray, bits: np.ndarray, lo: int, hi: int) -> None:
    inside, word, mask = _in_block(bits, lo, hi)
    np.bitwise_or.at(rows, (at[inside], word), mask)


def _clear_bits(rows: np.ndarray, at: np.ndarray, bits: np.ndarray, lo: int, hi: int) -> None:
    inside, word, mask = _in_block(bits, lo, hi)
    np.bitwise_and.at(rows, (at[inside], word), ~mask)


def _emit(classes: np.ndarray, diff: np.ndarray, word_lo: int, ids: np.ndarray, member_order: np.ndarray,
          member_off: np.ndarray, chunk: int) -> Iterator[Pairs]:
    """The pairs (member of ``classes[i]``, member of a class whose bit is set in ``diff[i]``)."""
    nonzero = np.flatnonzero(diff.any(axis=1))
    bits = 64 * diff.shape[1]
    per = max(1, UNPACK_BITS // max(bits, 1))
    count = member_off[1:] - member_off[:-1]
    for start in range(0, nonzero.size, per):
        at = nonzero[start:start + per]
        flags = np.unpackbits(diff[at].view(np.uint8), axis=1, bitorder="little").view(bool)
        row, bit = np.nonzero(flags)
        a, b = classes[at[row]], bit + 64 * word_lo
        for i, j in slices_by_weight(count[a] * count[b], chunk):
            yield _members(a[i:j], b[i:j], ids, member_order, member_off, count)


def _members(a: np.ndarray, b: np.ndarray, ids: np.ndarray, member_order: np.ndarray, member_off: np.ndarray,
             count: np.ndarray) -> Pairs:
    """Every (x, z) with x a member of class a[i] and z of class b[i]."""
    z = member_order[expand_ranges(member_off[b], count[b])]
    a = np.repeat(a, count[b])
    x = member_order[expand_ranges(member_off[a], count[a])]
    return ids[x], ids[np.repeat(z, count[a])]
