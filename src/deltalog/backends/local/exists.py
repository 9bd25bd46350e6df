"""Semi-joins, anti-joins and differences of the local executor: which rows of the left side have a
match on the right. The right side is a bitmap of a small relation probed by many rows
(backends/local/membership.py), a stored relation's tuple set when every column is matched, or an
index (the relation's persistent one, or one built over a materialised subplan), built at the first
left frame with rows and probed per frame.
"""

from __future__ import annotations

from itertools import chain
from typing import Callable, Iterator

import numpy as np

from deltalog.plan import ir
from deltalog.storage.stored import StoredRelation, View
from deltalog.storage.tupleset import pack
from deltalog.storage.uniques import sorted_unique
from deltalog.backends.local.frame import Frame
from deltalog.backends.local.membership import dense_check
from deltalog.backends.local.execute import (Context, Lookup, _repeated, lookup_for, matched_rows, materialise,
                                             nonempty, stream)


def _exists(node, ctx: Context) -> Iterator[tuple[Frame, np.ndarray]]:
    """For semi/anti joins: each left frame with rows, with a mask of rows that have a match on the
    right; the check (an index or bitmap of the right side) is built at the first such frame."""
    left = nonempty(stream(node.left, ctx))
    first = next(left, None)
    if first is None:
        return
    check = exists_check(node, ctx)
    for frame in chain((first,), left):
        yield frame, check(frame)


def exists_check(node: ir.SemiJoin | ir.AntiJoin, ctx: Context) -> Callable[[Frame], np.ndarray]:
    """Which rows of a left frame have a match on the node's right side: a bitmap of a small relation
    probed by many rows (backends/local/membership.py), else its index, built once and probed per frame."""
    return dense_check(node.right, node.on, ctx.relations, ctx.writing, lambda: indexed_check(node, ctx))


def indexed_check(node: ir.SemiJoin | ir.AntiJoin, ctx: Context) -> Callable[[Frame], np.ndarray]:
    right = node.right
    if (relation := whole_live_relation(right, node.on, ctx)) is not None and isinstance(right, ir.Scan):
        names = list(right.columns)   # all distinct Cols (whole_live_relation): the terms' names
        return lambda frame: relation.contains([frame.columns[n] for n in names])
    if (live := live_values_check(right, node.on, ctx)) is not None:
        return live
    if (then := visible_tuples_check(right, node.on, ctx)) is not None:
        return then
    if not isinstance(right, ir.Scan) or _has_repeats(right):
        keys = SortedKeys.of(materialise(right, ctx), node.on)
        if keys is not None:
            return lambda frame: keys.holds([frame.columns[c] for c in node.on])
        right = ir.Distinct(_project_on(right, node.on))
    lookup = lookup_for(right, node.on, ctx)

    def check(frame: Frame) -> np.ndarray:
        probe = lookup.probe(frame, ctx)
        if lookup.keyed.exact and lookup.keyed.alive(np.empty(0, np.int64)) is None:
            return probe.any_match()
        if lookup.keyed.exact and _only_keys_compared(lookup, frame):
            return probe.any_alive(lookup.keyed.alive)   # stops at a row's first live match
        probe_idx, rows = probe.expand(0, frame.length)
        _, keep = matched_rows(lookup, frame, rows, probe_idx, ctx)
        found = np.zeros(frame.length, bool)
        found[probe_idx[keep]] = True
        return found
    return check


PACKED_LIMIT = 1 << 62
"""``SortedKeys`` packs a row's key columns into one int64 below this (else the index answers)."""


class SortedKeys:
    """The rows of a materialised right side as sorted packed keys (``on`` its columns): membership is a
    binary search per probe row. A subplan's rows are few against a stored relation's (a witness check,
    a difference), so one sort costs less than the index ``lookup_for`` builds over them (a sorted run
    per key position and a probe structure: ~0.3 ms for a few rows)."""

    def __init__(self, keys: np.ndarray, radix: int) -> None:
        self.keys, self.radix = keys, radix

    @classmethod
    def of(cls, frame: Frame, on: tuple[str, ...]) -> "SortedKeys | None":
        """None when the rows' keys would not fit in an int64 (the caller then indexes them)."""
        columns = [frame.columns[c] for c in on]
        if not on or any(c.size and int(c.min()) < 0 for c in columns):
            return None
        radix = max((int(c.max()) for c in columns if c.size), default=0) + 1
        if radix ** len(on) >= PACKED_LIMIT:
            return None
        return cls(sorted_unique(pack(columns, radix)), radix)

    def holds(self, columns: list[np.ndarray]) -> np.ndarray:
        inside = np.logical_and.reduce([(c >= 0) & (c < self.radix) for c in columns])
        if not self.keys.size:
            return np.zeros(columns[0].size, bool)
        wanted = pack([np.where(inside, c, 0) for c in columns], self.radix)
        found = self.keys[np.minimum(self.keys.searchsorted(wanted), self.keys.size - 1)] == wanted
        return found & inside


def _only_keys_compared(lookup: Lookup, frame: Frame) -> bool:
    """Whether a match of an exact lookup needs no check beyond its keys and the view's death
    conditions (``matched_rows`` compares no other position for this frame)."""
    keyed = set(lookup.positions)
    return all(p in keyed or (isinstance(t, ir.Col) and t.name not in frame.columns
                              and not _repeated(lookup.terms, t.name))
               for p, t in enumerate(lookup.terms))


def whole_live_relation(right: ir.Node, on: tuple[str, ...], ctx: Context) -> StoredRelation | None:
    """The stored relation when the right side is all of its live tuples matched on every column:
    membership is then ``contains`` (for ``rows``, a probe of its tuple set), not a keyed probe."""
    if not isinstance(right, ir.Scan) or right.visible is not None or right.deleted is not None:
        return None
    if not right.terms or None in right.names or _has_repeats(right):
        return None
    if set(right.names) != set(on):   # all are Cols (checked above)
        return None
    relation = ctx.relations[right.relation]
    return relation if relation.arity and relation.covers_live(right) else None


def live_values_check(right: ir.Node, on: tuple[str, ...], ctx: Context) -> Callable[[Frame], np.ndarray] | None:
    """Membership in the values at one column of a stored relation's live tuples (or of those alive at the end
    of a generation, ``visible``: the old state an update's delta rules read), when the right side scans all
    of them matched on that column alone (its other terms distinct names: ``course(C) :- teacherOf(X, C)``
    checked for candidates C): the relation's live counts per value answer it with one gather
    (storage/livekeys.py), where the index answers with a binary search per run and the matches' death
    marks. None: ask the index (the relation keeps no counts there, or another shape, or the relation the
    running statement writes, left to the index as ``dense_check`` leaves it)."""
    if len(on) != 1 or not isinstance(right, ir.Scan) or right.relation == ctx.writing:
        return None
    if right.deleted is not None or None in right.names or _has_repeats(right):
        return None
    relation = ctx.relations[right.relation]
    if not relation.covers_live(View(right.since, right.until)):   # every row, whenever inserted
        return None
    position, name, visible = right.names.index(on[0]), on[0], right.visible
    if relation.holds_live(position, np.empty(0, np.int64), visible) is None:
        return None

    def check(frame: Frame) -> np.ndarray:
        found = relation.holds_live(position, frame.columns[name], visible)
        assert found is not None, "a relation keeps its counts once made"
        return found
    return check


def visible_tuples_check(right: ir.Node, on: tuple[str, ...], ctx: Context) -> Callable[[Frame], np.ndarray] | None:
    """Membership in a stored relation's tuples as the end of a generation saw them (``visible``: the old state an
    update's plans read), matched on every column, the right side all of them (a Distinct of them too: a stored
    relation's tuples are distinct at any time): its live tuples (``contains``) and the few it lost since
    (``lost_since``, sorted keys), where the view's rows were materialised and sorted for a few probes
    (LUBM-like ``subOrganizationOf``: its 4,101 old explicit edges twice an update for 2 candidates). None: ask
    the index (another shape, rows born after the view's end, the relation being written, too many lost)."""
    scan = right.input if isinstance(right, ir.Distinct) else right
    if not isinstance(scan, ir.Scan) or scan.visible is None or scan.deleted is not None:
        return None
    if scan.relation == ctx.writing:
        return None
    if not scan.terms or None in scan.names or _has_repeats(scan) or set(scan.names) != set(on):
        return None
    relation = ctx.relations[scan.relation]
    if not relation.arity or not relation.covers_live(View(scan.since, scan.until)):   # no row born after it
        return None
    lost = relation.lost_since(scan.visible)
    if lost is None:
        return None
    names = list(scan.columns)   # all distinct Cols: the terms' names, in the relation's column order
    keys = SortedKeys.of(Frame(dict(zip(names, lost)), len(lost[0])), tuple(names)) if len(lost[0]) else None
    if len(lost[0]) and keys is None:   # (keys past an int64)
        return None

    def check(frame: Frame) -> np.ndarray:
        columns = [frame.columns[n] for n in names]
        found = relation.contains(columns)
        if keys is not None:
            found |= keys.holds(columns)
        return found
    return check


def _has_repeats(scan: ir.Scan) -> bool:
    """Does a name occur twice in the scan (so a match needs a row-level equality check)?"""
    return len(scan.columns) != len(scan.names) - scan.names.count(None)   # columns: the distinct names


def _project_on(node: ir.Node, on: tuple[str, ...]) -> ir.Node:
    return ir.Project(node, tuple((c, ir.Col(c)) for c in on))


@stream.register
def _semijoin(node: ir.SemiJoin, ctx: Context) -> Iterator[Frame]:
    for frame, found in _exists(node, ctx):
        yield frame.take(found)


@stream.register
def _antijoin(node: ir.AntiJoin, ctx: Context) -> Iterator[Frame]:
    for frame, found in _exists(node, ctx):
        yield frame.take(~found)


@stream.register
def _difference(node: ir.Difference, ctx: Context) -> Iterator[Frame]:
    anti = ir.AntiJoin(node.left, ir.Distinct(node.right), node.left.columns)
    yield from stream(anti, ctx)
