"""Semi- and anti-joins against a small stored relation, probed by many rows: one bitmap read per row.

DRed's checks ask of every candidate whether a tuple of a small relation holds: RS2's
``not p5(Y, Z)`` (1,000 tuples) is probed by 276k overdeletion instances and again by 139k
witness rows per update of 100 facts. Through the relation's index that is a hash filter and a
binary search per run for every probe row (and a death-mask check of the matches, for a view with
deleted rows); here the view's tuples are read once into a bitmap over their packed ids (every
column's ids are below its largest one plus one), and each probe row costs one gather. The bitmap
is built only when it pays: the probe frame outnumbers the view's tuples and the key space is at
most a few bytes per probe row (``DENSE_MAX`` in all); a view whose key space is too wide for that
but which holds few of its relation's rows gets an index of its own (``OWN_INDEX``); else the
caller's indexed check runs.

The bitmap is a snapshot of the view when the check is first used; the indexed check sees rows
written while the statement streams, so the backend never uses a bitmap of the relation the
running statement writes (``Context.writing``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from deltalog.plan import ir
from deltalog.storage.stored import WHOLE, KeyedView, StoredRelation, scan_all

Check = Callable[..., np.ndarray]

DENSE_MAX = 1 << 22
"""Bitmap entries (bytes) at most."""
BYTES_PER_PROBE_ROW = 16
"""The key space may be at most this many times the first probe frame's rows (zeroing it must stay cheap)."""
MIN_PROBE = 1 << 12
"""Smaller probe frames go through the index: a bitmap would not pay for its scan."""
OWN_INDEX = 8
"""A view too sparse for a bitmap, with at most 1/8 of its relation's live rows, is indexed on its own:
probing the relation's index costs a random access into all its rows per probe row (the changes of an
update of DAG-R read off against the other side's 234k rows: 0.11 s through the 22M-row index)."""


class Bitmap:
    """The tuples of a view as flags over their packed ids (strides per column)."""

    def __init__(self, columns: list[np.ndarray], limit: int) -> None:
        self.top = [int(c.max(initial=-1)) for c in columns]
        sizes = [t + 1 for t in self.top]
        self.space = int(np.prod(sizes, dtype=object)) if sizes else 1
        self.flags: np.ndarray | None = None
        if 0 < self.space <= limit:
            self.strides = np.cumprod([1] + sizes[:0:-1])[::-1].astype(np.int64)
            self.flags = np.zeros(self.space, bool)
            self.flags[self.pack(columns)] = True

    def pack(self, columns: list[np.ndarray]) -> np.ndarray:
        if len(columns) == 1:   # one column: its ids are the keys (stride 1), no sum made
            return columns[0].astype(np.int64, copy=False)
        key = np.zeros(len(columns[0]), np.int64)
        for column, stride in zip(columns, self.strides):
            key += column.astype(np.int64, copy=False) * stride
        return key

    def holds(self, columns: list[np.ndarray]) -> np.ndarray:
        """Per probe row (its values at the relation's positions): is it a tuple of the view? When every
        probe value lies within the view's (two reductions a column: the usual, ids of one dictionary),
        one gather; else the rows outside are masked off first (pipeline's 1M edges against 505k
        ``unreached``: ~6 -> ~2 ms)."""
        assert self.flags is not None
        if all(len(c) and int(c.min()) >= 0 and int(c.max()) <= top for c, top in zip(columns, self.top)):
            return self.flags[self.pack(columns)]
        inside = np.ones(len(columns[0]), bool)
        for column, top in zip(columns, self.top):
            inside &= (column >= 0) & (column <= top)
        return self.flags[self.pack([np.where(inside, c, 0) for c in columns])] & inside


def dense_check(right: ir.Node, on: tuple[str, ...], relations: dict[str, StoredRelation], writing: str | None,
                indexed: Callable[[], Check]) -> Check:
    """A membership check for a semi/anti-join (``on`` its columns) that uses a bitmap of the right side
    when that is a scan of a whole stored relation's view matched on every column, not written by the
    running statement, and small against the first probe frame; else ``indexed()``'s check."""
    if not _bitmap_shape(right, on) or not isinstance(right, ir.Scan) or right.relation == writing:
        return indexed()
    names = list(right.columns)   # every term a Col, no name twice (_bitmap_shape): the terms' names
    relation = relations[right.relation]
    chosen: list[Check] = []

    def check(frame) -> np.ndarray:
        if not chosen:
            chosen.append(_choose(relation, right, names, frame.length, indexed))
        return chosen[0](frame)
    return check


def _bitmap_shape(right: ir.Node, on: tuple[str, ...]) -> bool:
    if not isinstance(right, ir.Scan) or not right.terms:
        return False
    names = right.names
    return None not in names and len(set(names)) == len(names) == len(on) and set(names) == set(on)


def _choose(relation: StoredRelation, view: ir.Scan, names: list[str], rows: int,
            indexed: Callable[[], Check]) -> Check:
    if rows < MIN_PROBE or relation.count_view(view) > rows:
        return indexed()
    columns, n = scan_all(relation, view)
    bitmap = Bitmap(columns, min(DENSE_MAX, BYTES_PER_PROBE_ROW * rows))
    if bitmap.flags is not None:
        return lambda frame: bitmap.holds([frame.columns[name] for name in names])
    if n * OWN_INDEX <= relation.count_view(WHOLE):   # a few rows of a long relation: index them alone
        keyed = KeyedView.over(columns, tuple(range(len(columns))), n)
        if keyed.exact:
            return lambda frame: keyed.probe([frame.columns[name] for name in names], frame.length).any_match()
    return indexed()
