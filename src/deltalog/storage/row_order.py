"""Stretches of a relation's rows already in key order: an index that costs one pass to find.

A relation's rows are stored in the order they were derived, and derivations often come out sorted:
a closure kernel emits its pairs a block of targets at a time, every source in order within a block,
so DAG-R's 22.2M ``path`` rows are 140 stretches of 70k-261k rows sorted on (source, target), with
~1.8M rows between some of them in no useful order. Within such a stretch the rows of a
key are one range that a binary search finds, as in a built index's run (storage/sorted_run.py), without
the index's sort of every row (0.7-1.0 s on ``path``) or a scan's pass over them per probe
(storage/row_scan.py: 40-50 ms on one column, 160 ms for a deletion's 261k full rows). The stretches
are learnt once, by a pass over the rows comparing each key with the one before (rows are only ever
appended: compaction and rollback renumber rows into a new relation state, storage/history.py, and
with it a new :class:`SortedStretches`), then only over rows appended since.

>>> stretches = SortedStretches(min_rows=100)
>>> stored = [np.concatenate([np.arange(200), [7, 3], np.arange(300)])]
>>> stretches.learn(stored, (0,), 300)
502
>>> stretches.spans(0, 502)
[(0, 200), (202, 502)]
>>> spans = stretches.searched(stored, (0,), stretches.spans(0, 502), np.array([5, 250]), 300)
>>> spans
[(0, 200, 0, 1), (202, 502, 0, 2)]
>>> [r.tolist() for r in stretches.matches(stored, (0,), spans, np.array([5, 250]), 300)]
[[5, 5, 250], [5, 207, 452]]
"""

from __future__ import annotations

import numpy as np

from deltalog.storage.hashset import sort_with_positions
from deltalog.storage.tupleset import pack, unpack

LEARN_CHUNK = 1 << 18
"""Rows compared at a time while learning (the packed keys of a chunk stay small and cache-friendly)."""
MIN_STRETCH_ROWS = 1 << 15
"""Shorter sorted runs are not remembered: scanning 32k rows costs ~0.1 ms, a binary search per key
sought into a run costs about as much for a few hundred keys, and a jumbled relation has millions of
runs of a few rows."""
SEARCH_COST_IN_ROWS = 64
"""A stretch is searched rather than scanned when it holds more rows than this times the keys sought
in its key range, for a key of one column: its two bounds are two ``np.searchsorted``, ~0.13 us a key
and stretch on DAG-R's ``path`` (a 1,000-edge re-add: 937 keys in 140 stretches of 70k-261k rows)
against ~2.3 ns a scanned row."""
BISECT_COST_IN_ROWS = 320
"""The same for a key of several columns: the first column's range by ``np.searchsorted``, then
bisection steps that each read a row at random. Measured on ``path``'s full-row probes of 250k keys
(a 1,000-edge deletion's), in a trial that gave each stretch its bounding box so that a key was
searched in ~1 stretch (not kept): 0.75 us a key, 0.19 s against 0.13-0.16 s scanning every row."""


DENSE_ROWS_PER_KEY = 4
"""A whole stretch on one column gets its keys' offsets (a CSR array, as a built index's run over a
small key space, storage/sorted_run.py) once it holds this many rows per possible key: a key's range is
then two reads instead of two binary searches, ~12 of the ~19 ms a 1,000-edge re-add of DAG-R spent
searching ``path``'s 133 stretches (and 10 MB for them, built by one ``bincount`` each)."""


def search_cost_in_rows(width: int) -> int:
    """What searching a stretch for one key of ``width`` columns costs, in rows scanned."""
    return SEARCH_COST_IN_ROWS if width == 1 else BISECT_COST_IN_ROWS


class SortedStretches:
    """The row ranges of a relation (at least ``min_rows`` long) whose keys on some positions are in
    lexicographic order, for the rows learnt so far (``covered``)."""

    def __init__(self, min_rows: int | None = None) -> None:
        self.min_rows = MIN_STRETCH_ROWS if min_rows is None else min_rows
        self.covered = 0
        self.open_lo = 0          # where the sorted run reaching row ``covered`` starts
        self.last: tuple[int, ...] = ()   # the key of row covered - 1
        self.closed: list[tuple[int, int]] = []
        self._offsets: dict[tuple[int, int], np.ndarray] = {}   # of closed stretches (storage/sorted_run.py's CSR)

    def learn(self, stored: list[np.ndarray], positions: tuple[int, ...], radix: int) -> int:
        """Extend the stretches over rows appended since the last call (their ids below ``radix``, which
        packs ``positions`` exactly); return how many rows it read."""
        n = len(stored[0])
        if n < self.covered:   # not an append (never, for a relation's rows): start afresh, to stay exact
            self.covered, self.open_lo, self.last, self.closed, self._offsets = 0, 0, (), [], {}
        read = n - self.covered
        for lo in range(self.covered, n, LEARN_CHUNK):
            self._learn_chunk([stored[p][lo:lo + LEARN_CHUNK] for p in positions], lo, radix)
        return read

    def _learn_chunk(self, columns: list[np.ndarray], lo: int, radix: int) -> None:
        keys = pack(columns, radix)
        before = pack([np.array([v]) for v in self.last], radix) if self.last else keys[:1]
        drops = np.flatnonzero(np.concatenate([keys[:1] < before, keys[1:] < keys[:-1]])) + lo
        if drops.size:
            starts = np.concatenate([[self.open_lo], drops])
            long = np.flatnonzero(drops - starts[:-1] >= self.min_rows)
            self.closed.extend(zip(starts[long].tolist(), drops[long].tolist()))
            self.open_lo = int(drops[-1])
        self.covered = lo + len(columns[0])
        self.last = tuple(int(c[-1]) for c in columns)

    def spans(self, row_lo: int, row_hi: int) -> list[tuple[int, int]]:
        """The stretches' parts inside rows row_lo..row_hi (ascending)."""
        runs = self.closed + ([(self.open_lo, self.covered)] if self.covered - self.open_lo >= self.min_rows else [])
        parts = [(max(a, row_lo), min(b, row_hi)) for a, b in runs]
        return [(a, b) for a, b in parts if b > a]

    @staticmethod
    def searched(stored: list[np.ndarray], positions: tuple[int, ...], spans: list[tuple[int, int]],
                 wanted: np.ndarray, radix: int) -> list[tuple[int, int, int, int]]:
        """(row lo, row hi, first key, last key) of the spans worth a binary search for the ``wanted``
        keys (packed in ``radix``, sorted): those holding more rows than a search of the wanted keys
        within the span's own key range (keys first..last - 1 of ``wanted``) costs (``search_cost_in_rows``)."""
        chosen, cost = [], search_cost_in_rows(len(positions))
        for a, b in spans:
            ends = pack([stored[p][[a, b - 1]] for p in positions], radix)
            first, last = np.searchsorted(wanted, ends[0]), np.searchsorted(wanted, ends[1], "right")
            if b - a > cost * (last - first):
                chosen.append((a, b, int(first), int(last)))
        return chosen

    def matches(self, stored: list[np.ndarray], positions: tuple[int, ...], spans: list[tuple[int, int, int, int]],
                wanted: np.ndarray, radix: int) -> tuple[np.ndarray, np.ndarray]:
        """(packed keys, row ids) of the rows in ``spans`` (``searched``'s) whose key is among ``wanted``,
        ordered by key, then row: each key in a span's key range is bounded by binary search (or read
        off the span's offsets), the ranges are put key by key, span by span (spans ascend), then expanded."""
        key_columns, whole = unpack(wanted, radix, len(positions)), set(self.closed)
        parts = [(np.arange(first, last),) + self._ranges(stored, positions, a, b, (a, b) in whole,
                                                          [c[first:last] for c in key_columns], radix)
                 for a, b, first, last in spans]
        if not parts:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        key_at, lo, hi = (np.concatenate([part[i] for part in parts]) for i in range(3))
        found = np.flatnonzero(hi > lo)
        key_at, order = sort_with_positions(key_at[found])   # ties by position: spans in row order
        lo, hi = lo[found[order]], hi[found[order]]
        counts = hi - lo
        starts = np.cumsum(counts) - counts
        rows = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(lo - starts, counts)
        return np.repeat(wanted[key_at], counts), rows

    def _ranges(self, stored: list[np.ndarray], positions: tuple[int, ...], a: int, b: int, closed: bool,
                keys: list[np.ndarray], radix: int) -> tuple[np.ndarray, np.ndarray]:
        """[lo, hi) row ranges of each key in rows a..b (``_bounds``), read off the offsets when a..b is a
        whole ``closed`` stretch (its rows and bounds final) on one column over few possible keys (built
        at its first search; keys past the radix it was built with have no rows there)."""
        offsets = self._offsets.get((a, b))
        if offsets is None and closed and len(positions) == 1 and radix * DENSE_ROWS_PER_KEY <= b - a:
            offsets = self._offsets[(a, b)] = np.concatenate(
                [[0], np.cumsum(np.bincount(stored[positions[0]][a:b], minlength=radix))])
        if offsets is None:
            return _bounds([stored[p] for p in positions], a, b, keys, radix)
        top = offsets.size - 1
        return a + offsets[np.minimum(keys[0], top)], a + offsets[np.minimum(keys[0] + 1, top)]


def _bounds(columns: list[np.ndarray], a: int, b: int, keys: list[np.ndarray],
            radix: int) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi) row ranges of each key in rows a..b, sorted on ``columns``: the first column's range by
    ``np.searchsorted`` (keys come sorted, so the searches walk the rows in order), narrowed on the
    other columns (sorted within equal first values) by vectorised bisection."""
    first = columns[0][a:b]
    lo = np.searchsorted(first, keys[0], "left") + a
    hi = np.searchsorted(first, keys[0], "right") + a
    if len(columns) == 1:
        return lo, hi
    rest, wanted = columns[1:], pack(keys[1:], radix)
    return _bisect(rest, lo, hi, wanted, radix, False), _bisect(rest, lo, hi, wanted, radix, True)


def _bisect(columns: list[np.ndarray], lo: np.ndarray, hi: np.ndarray, wanted: np.ndarray, radix: int,
            right: bool) -> np.ndarray:
    """Per key, the first row in lo..hi whose packed ``columns`` are >= the wanted key (> if ``right``)."""
    lo, hi = lo.copy(), hi.copy()
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) >> 1
        at = pack([c[mid] for c in columns], radix)
        up = at <= wanted[active] if right else at < wanted[active]
        lo[active[up]] = mid[up] + 1
        hi[active[~up]] = mid[~up]
        active = active[lo[active] < hi[active]]
    return lo
