"""Two-atom chains inserted as sets: π_{a,b}(L(a, k) ⋈ R(k, b)) as ORs of bitsets over b.

DRed's overdeletion of a dense composition such as RS2's ``p25(X, Z) :- p11(X, Y), p12(Y, Z),
not p5(Y, Z)`` enumerates every instance through a deleted fact (0.3M-1.4M instances for ~139k
distinct candidates per update of 100 facts), and the insert then sorts them away again. A
scratch or head relation is a set, so only the distinct pairs matter: reading R once per distinct
join value into a bit row over b's distinct values, each left row ORs one bit row into its a's
group (``bitwise_or.reduceat``) and the groups unpack to the distinct pairs, at |L| * |b| / 64
word operations instead of one gather per instance (the composition of boolean matrices of
Ullman and Yannakakis's transitive-closure work; 003 section 5 uses the same bitsets for closures).

``compose_plan`` recognises the shape, a Project onto (a, b) over semi/anti-joins over a Join on
one column whose right side is a binary scan, when the backend inserts the plan's rows into a set
(backend.insert marks those Projects: ``set_projects``; a Project under an aggregate keeps its
multiplicities). Checks on L's columns filter L, checks on R's columns filter R's rows, so the
result is the plan's rows without duplicates; the metrics count the instances the join would
have produced (per join value, R's matching rows times L's rows). When the bitsets would not pay
(b's values too many for the rows, ``DENSE_RATIO``) the filtered L goes through the plain join.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from deltalog.plan import ir
from deltalog.plan.walk import walk
from deltalog.backends.local.execute import (Context, Lookup, lookup_for, materialise,
                                             matched_rows, probe_join, project_frame, slices_by_output)
from deltalog.backends.local.exists import exists_check
from deltalog.backends.local.frame import Frame
from deltalog.storage.uniques import sorted_unique, unique_inverse
from deltalog.storage.probe import Probe

DENSE_RATIO = 8
"""The bitsets run when their work (words ORed, bits unpacked) is below this many times fewer than the instances."""
BLOCK = 1 << 24
"""Bits (or bytes) per block of bit rows: groups are unpacked a block at a time to keep memory flat."""
MIN_LEFT = 16
"""Fewer rows of L go straight through the plain join (a seminaive round of one new fact pays nothing)."""
WITNESS_READS = 4
"""R's and S's rows (whole views) at most this many times the candidates: else the search probes them."""
WITNESS_WORDS = 32
"""Words of k per candidate at most (the search costs about one probe of each index per candidate)."""
SET_PARENTS = (ir.SemiJoin, ir.AntiJoin, ir.Union_, ir.Filter, ir.Distinct)


@dataclass
class Chain:
    """The parts of π_{a,b}(checks(L(a, k, ...) ⋈ R(k, b)))."""

    project: ir.Project
    join: ir.Join
    a: str
    b: str
    left_checks: list[ir.SemiJoin | ir.AntiJoin]
    right_checks: list[ir.SemiJoin | ir.AntiJoin]


def set_projects(plan: ir.Node) -> frozenset[int]:
    """Ids of the Projects whose rows reach the plan's output as a set (through filters, semi/anti-joins'
    left sides, unions and Distinct): their duplicates may go."""
    found: set[int] = set()
    stack = [plan]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Project):
            found.add(id(node))
        elif isinstance(node, (ir.SemiJoin, ir.AntiJoin)):
            stack.append(node.left)
        elif isinstance(node, SET_PARENTS):
            stack.extend(node.children())
    return frozenset(found)


def chain_of(node: ir.Project, ctx: Context) -> Chain | None:
    """The chain's parts if ``node`` has the shape (module docstring) and L is not a scan of fewer than
    ``MIN_LEFT`` rows (a seminaive round of one new fact keeps the plain pipeline), else None."""
    names = [t.name for _, t in node.outputs if isinstance(t, ir.Col)]
    if len(names) != 2 or len(node.outputs) != 2 or names[0] == names[1]:
        return None
    checks: list[ir.SemiJoin | ir.AntiJoin] = []
    below = node.input
    while isinstance(below, (ir.SemiJoin, ir.AntiJoin)):
        checks.append(below)
        below = below.left
    if not isinstance(below, ir.Join) or len(below.on) != 1 or not _binary_scan(below.right, below.on[0]):
        return None
    if ctx.writing is not None and _reads(node, ctx.writing) or \
            isinstance(below.left, ir.Scan) and _rows(below.left, ctx) < MIN_LEFT:
        return None
    key, b = below.on[0], next(c for c in below.right.columns if c != below.on[0])
    a = next((n for n in names if n != b), None)
    if b not in names or a is None or a not in below.left.columns or a == key:
        return None
    left, right = set(below.left.columns), {key, b}
    if not all(set(c.on) <= left or set(c.on) <= right for c in checks):
        return None
    return Chain(node, below, a, b, [c for c in checks if set(c.on) <= left],
                 [c for c in checks if not set(c.on) <= left])


def _binary_scan(node: ir.Node, key: str) -> bool:
    return isinstance(node, ir.Scan) and len(node.terms) == 2 and all(isinstance(t, ir.Col) for t in node.terms) \
        and len(node.columns) == 2 and key in node.columns


def _reads(node: ir.Node, relation: str) -> bool:
    return any(isinstance(n, ir.Scan) and n.relation == relation for n in walk(node))


def _checked(frame: Frame, checks: list[ir.SemiJoin | ir.AntiJoin], ctx: Context) -> Frame:
    for check in checks:
        if frame.length:
            found = exists_check(check, ctx)(frame)
            frame = frame.take(found if isinstance(check, ir.SemiJoin) else ~found)
    return frame


def compose(chain: Chain, ctx: Context) -> Iterator[Frame]:
    """The chain's rows: distinct, by bitsets, when they pay; else the plain join over the filtered L."""
    join = chain.join
    left = _checked(materialise(join.left, ctx), chain.left_checks, ctx)
    if not left.length:
        return
    lookup = lookup_for(join.right, join.on, ctx)
    if left.length >= MIN_LEFT:
        keys, at = unique_inverse(left.columns[join.on[0]])
        probe = lookup.probe(Frame({join.on[0]: keys}, keys.size), ctx)
        if _bitsets_may_pay(chain, left, keys.size, at, probe, ctx):
            yield from _composed(chain, left, lookup, keys, at, probe, ctx)
            return
    for frame in probe_join(join, lookup, (left,), ctx, join.columns):
        if (checked := _checked(frame, chain.right_checks, ctx)).length:
            yield project_frame(chain.project, checked, ctx)


def _composed(chain: Chain, left: Frame, lookup: Lookup, keys: np.ndarray, at: np.ndarray, probe: Probe,
              ctx: Context) -> Iterator[Frame]:
    """The distinct (a, b) rows by bitsets: R's live rows for the distinct join values, R's checks, then
    ``_by_bitsets``; the metrics count the instances the join would have made."""
    key = chain.join.on[0]
    probe_idx, rows = probe.expand(0, keys.size)
    named, keep = matched_rows(lookup, Frame({key: keys}, keys.size), rows, probe_idx, ctx, {chain.b})
    ctx.count(chain.join.label, int(np.bincount(probe_idx[keep], minlength=keys.size)[at].sum()))
    right = _checked(Frame({key: keys[probe_idx[keep]], "#at": probe_idx[keep], chain.b: named[chain.b][keep]},
                           int(keep.sum())), chain.right_checks, ctx)
    ctx.count(chain.project.label, int(np.bincount(right.columns["#at"], minlength=keys.size)[at].sum()))
    if not right.length:   # R's checks left nothing (the estimate counted rows that are dead or filtered)
        return
    values, b_at = unique_inverse(right.columns[chain.b])
    for x, y in _by_bitsets(left.columns[chain.a], at, right.columns["#at"], values, b_at, keys.size):
        yield Frame({name: x if t.name == chain.a else y for name, t in chain.project.outputs
                     if isinstance(t, ir.Col)}, x.size)


def _bitsets_may_pay(chain: Chain, left: Frame, keys: int, at: np.ndarray, probe: Probe, ctx: Context) -> bool:
    """Whether the bit rows' work (L's rows ORed, a word per 64 values of b; flags set and unpacked) is below
    1/``DENSE_RATIO`` of the join's instances, with b's values bounded by R's matching rows and its
    distinct values (an estimate), before any row of R is read."""
    instances = int(probe.counts[at].sum())
    scan = chain.join.right
    assert isinstance(scan, ir.Scan)
    position = next(i for i, t in enumerate(scan.terms) if isinstance(t, ir.Col) and t.name == chain.b)
    values = min(probe.total, ctx.relations[scan.relation].distinct_estimate((position,)) or probe.total)
    groups = sorted_unique(left.columns[chain.a]).size
    work = left.length * -(-values // 64) + (groups + keys) * values // 8
    return work * DENSE_RATIO < instances


def _by_bitsets(a: np.ndarray, at: np.ndarray, r_at: np.ndarray, values: np.ndarray, b_at: np.ndarray,
                keys: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Bit rows of R per join value over b's distinct ``values``, ORed per distinct a, unpacked."""
    width = -(-values.size // 64) * 64
    flags = np.zeros((keys, width), bool)
    flags[r_at, b_at] = True
    bits = np.packbits(flags, axis=1, bitorder="little").view(np.uint64)   # keys x width/64
    order = np.argsort(a, kind="stable")
    a, at = a[order], at[order]
    starts = np.flatnonzero(np.concatenate([[True], a[1:] != a[:-1]]))
    sizes = np.diff(np.append(starts, a.size))
    for lo, hi in slices_by_output(sizes + 8, max(8, BLOCK // width)):   # a group: its rows, then `width` bytes
        first, last = starts[lo], starts[hi - 1] + sizes[hi - 1]
        ored = np.bitwise_or.reduceat(bits[at[first:last]], starts[lo:hi] - first, axis=0)
        group, column = np.nonzero(np.unpackbits(ored.view(np.uint8), axis=1, bitorder="little"))
        yield a[starts[lo:hi]][group], values[column]


# ---- the same chain's witness check ------------------------------------------------------------

@dataclass
class WitnessChain:
    """Witnessed(π(SemiJoin[c, k](checks(C(j, c, ...) ⋈ R(j, k)), S(c, k)))): does a k join both?"""

    project: ir.Project
    join: ir.Join
    semi: ir.SemiJoin
    c: str
    k: str
    left_checks: list[ir.SemiJoin | ir.AntiJoin]
    right_checks: list[ir.SemiJoin | ir.AntiJoin]


def witness_chain(node: ir.Witnessed, ctx: Context) -> WitnessChain | None:
    """The parts when the candidates (a scan) join R on one column and S on the other, and R and S, both
    binary scans, hold at most ``WITNESS_READS`` rows per candidate (they are read whole, not probed)."""
    project = node.input
    if not isinstance(project, ir.Project) or not isinstance(semi := project.input, ir.SemiJoin):
        return None
    checks: list[ir.SemiJoin | ir.AntiJoin] = []
    below = semi.left
    while isinstance(below, (ir.SemiJoin, ir.AntiJoin)):
        checks.append(below)
        below = below.left
    if not isinstance(below, ir.Join) or len(below.on) != 1 or not isinstance(below.left, ir.Scan):
        return None
    (j,), candidates = below.on, below.left
    if not _binary_scan(below.right, j) or len(semi.on) != 2 or not isinstance(semi.right, ir.Scan):
        return None
    k = next(x for x in below.right.columns if x != j)
    c = next((x for x in semi.on if x != k), None)
    if c is None or k not in semi.on or c == j or c not in candidates.columns or not _binary_scan(semi.right, c):
        return None
    outputs = {t.name for _, t in project.outputs if isinstance(t, ir.Col)}
    left, right = set(candidates.columns), {j, k}
    if len(outputs) != len(project.outputs) or not outputs <= left or \
            not all(set(x.on) <= left or set(x.on) <= right for x in checks) or _reads(node, ctx.writing or ""):
        return None
    if _rows(below.right, ctx) + _rows(semi.right, ctx) > WITNESS_READS * _rows(candidates, ctx):
        return None
    return WitnessChain(project, below, semi, c, k, [x for x in checks if set(x.on) <= left],
                        [x for x in checks if not set(x.on) <= left])


def _rows(scan: ir.Node, ctx: Context) -> int:
    assert isinstance(scan, ir.Scan)
    return ctx.relations[scan.relation].count_view(scan)


def witnessed(chain: WitnessChain, ctx: Context, search: Callable[[], Iterator[Frame]]) -> Iterator[Frame]:
    """The candidates with some k in R(j, k) (after R's checks) and in S(c, k), one row each: the bit rows
    of R per j and of S per c over the k values, ANDed per candidate. ``search`` (the general witness
    search) runs instead when the k values are too many for the candidates (``WITNESS_WORDS``)."""
    j = chain.join.on[0]
    candidates = _checked(materialise(chain.join.left, ctx), chain.left_checks, ctx)
    if not candidates.length:
        return
    j_keys, j_at = unique_inverse(candidates.columns[j])
    r_at, r_k = _rows_for(chain.join.right, j, chain.k, j_keys, ctx)
    kept = _checked(Frame({j: j_keys[r_at], chain.k: r_k, "#at": r_at}, r_at.size), chain.right_checks, ctx)
    values, r_k_at = unique_inverse(kept.columns[chain.k])
    c_keys, c_at = unique_inverse(candidates.columns[chain.c])
    words = -(-values.size // 64)
    if words > WITNESS_WORDS or (j_keys.size + c_keys.size) * words > WITNESS_WORDS * candidates.length:
        yield from search()
        return
    s_at, s_k = _rows_for(chain.semi.right, chain.c, chain.k, c_keys, ctx)
    position = np.minimum(np.searchsorted(values, s_k), max(values.size - 1, 0))
    inside = values[position] == s_k if values.size else np.zeros(s_k.size, bool)
    r_bits = _bit_rows(j_keys.size, kept.columns["#at"], r_k_at, values.size)
    s_bits = _bit_rows(c_keys.size, s_at[inside], position[inside], values.size)
    for lo in range(0, candidates.length, ctx.chunk_rows):
        found = _any_common(r_bits, s_bits, j_at[lo:lo + ctx.chunk_rows], c_at[lo:lo + ctx.chunk_rows])
        rows = candidates.take(np.flatnonzero(found) + lo)
        ctx.count(chain.project.label, rows.length)
        yield Frame({name: rows.columns[t.name] for name, t in chain.project.outputs if isinstance(t, ir.Col)},
                    rows.length)


def _rows_for(scan: ir.Node, key: str, other: str, keys: np.ndarray, ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """A binary scan's live rows whose ``key`` is in ``keys``: (position in ``keys``, value of ``other``)."""
    lookup = lookup_for(scan, (key,), ctx)
    frame = Frame({key: keys}, keys.size)
    probe_idx, rows = lookup.probe(frame, ctx).expand(0, keys.size)
    named, keep = matched_rows(lookup, frame, rows, probe_idx, ctx, {other})
    return probe_idx[keep], named[other][keep]


def _bit_rows(rows: int, row: np.ndarray, column: np.ndarray, columns: int) -> np.ndarray:
    """Words x rows (word-major: each word's gather reads one contiguous array)."""
    width = max(1, -(-columns // 64)) * 64
    flags = np.zeros((rows, width), bool)
    flags[row, column] = True
    return np.ascontiguousarray(np.packbits(flags, axis=1, bitorder="little").view(np.uint64).T)


def _any_common(first: np.ndarray, second: np.ndarray, at: np.ndarray, other_at: np.ndarray) -> np.ndarray:
    """Per pair (at[i], other_at[i]): do their bit rows share a bit? A pass per word, not per row."""
    common = first[0][at] & second[0][other_at]
    for word in range(1, first.shape[0]):
        common |= first[word][at] & second[word][other_at]
    return common != 0
