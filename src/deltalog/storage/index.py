"""Persistent sorted indexes on column subsets, kept as a log-structured list of sorted runs.

New rows become a new run; runs of similar size are merged, so each row is re-sorted
O(log n) times over the relation's life and a lookup binary-searches a handful of runs.
A lookup costs O(probe * log n + matches), never a pass over the whole relation: this is
what keeps a seminaive round proportional to its delta. A run and its lookups: sorted_run.py;
the matches of a probe batch, and their expansion: probe.py.

>>> cols = [np.array([1, 2, 1]), np.array([5, 6, 7])]
>>> idx = SortedIndex((0,))
>>> idx.refresh(cols)
>>> probe = idx.probe([np.array([1, 3])], 0, 3)
>>> probe.total, [a.tolist() for a in probe.expand(0, 2)]
(2, [[0, 0], [0, 2]])
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from deltalog.storage.hashset import sort_with_positions
from deltalog.storage.probe import Probe
from deltalog.storage.sorted_run import Run
from deltalog.storage.tupleset import pack, packs, radix_for
from deltalog.storage.wide_rows import fingerprint


class Prober(Protocol):
    """What a keyed view probes: a :class:`SortedIndex`, or a scan while one would not pay yet
    (storage/row_scan.py). ``exact``: keys are compared exactly (else by fingerprint)."""

    @property
    def exact(self) -> bool: ...

    def probe(self, key_columns: list[np.ndarray], row_lo: int, row_hi: int, n: int | None = None) -> "Probe": ...


class SortedIndex:
    """Index on column ``positions``; exact packed keys, or fingerprints when keys are too wide."""

    def __init__(self, positions: tuple[int, ...]) -> None:
        self.positions = positions
        self.runs: list[Run] = []
        self.radix = 0
        self.exact = True
        self._covered = 0

    def key_of(self, key_columns: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
        """Keys of n probe rows, and a mask of rows whose ids this index could hold at all."""
        if not key_columns:
            return np.zeros(n, np.int64), np.ones(n, bool)
        if len(key_columns) == 1 and self.exact:
            column = key_columns[0]
            return column, (column >= 0) & (column < self.radix)
        if not self.exact:
            return fingerprint(key_columns), np.ones(n, bool)
        inside = np.ones(n, bool)
        for column in key_columns:
            inside &= (column >= 0) & (column < self.radix)
        return pack([np.where(inside, c, 0) for c in key_columns], self.radix), inside

    def refresh(self, stored: list[np.ndarray]) -> None:
        """Absorb rows appended since the last refresh (re-keying everything if ids outgrew the radix)."""
        n = len(stored[0])
        if n == self._covered:
            return
        fresh = [stored[p][self._covered:] for p in self.positions]
        if self.radix == 0 or self.exact and any(c.size and int(c.max()) >= self.radix for c in fresh):
            self._rekey(stored)
            return
        self._add_run(stored, self._covered, n)
        self._merge_tail()

    def _rekey(self, stored: list[np.ndarray]) -> None:
        top = max((int(stored[p].max()) for p in self.positions if stored[p].size), default=0)
        self.radix = radix_for(top, growing=0 < self.radix <= top)
        self.exact = packs(self.radix, max(len(self.positions), 1))
        self.runs, self._covered = [], 0
        self._add_run(stored, 0, len(stored[0]))

    def _space(self) -> int | None:
        return self.radix ** len(self.positions) if self.exact else None

    def _add_run(self, stored: list[np.ndarray], lo: int, hi: int) -> None:
        keys, _ = self.key_of([stored[p][lo:hi] for p in self.positions], hi - lo)
        keys, order = sort_with_positions(keys)
        self.runs.append(Run.build(lo, hi, keys, order + lo, self._space()))
        self._covered = hi

    @staticmethod
    def run_of(keys: np.ndarray, rows: np.ndarray, row_lo: int, row_hi: int) -> Run:
        """A run standing for rows row_lo..row_hi that holds only some of them (their exact keys and ids,
        ids ascending), ordered as a built run is: by key, then by row id."""
        order = np.argsort(keys, kind="stable")
        return Run.build(row_lo, row_hi, keys[order], rows[order], None)

    def _merge_tail(self) -> None:
        """Merge the newest runs while the older is at most twice the newer. Both are sorted by (key, row)
        and ``a``'s rows precede ``b``'s, so a stable sort of the concatenated keys is the merge (a timsort
        finds the two runs and merges them in one pass, ~2x faster than the packed sort of a new run)."""
        while len(self.runs) >= 2 and len(self.runs[-2].keys) <= 2 * len(self.runs[-1].keys):
            b, a = self.runs.pop(), self.runs.pop()
            keys = np.concatenate([a.keys, b.keys])
            order = np.argsort(keys, kind="stable")
            keys, rows = keys[order], np.concatenate([a.rows, b.rows])[order]
            self.runs.append(Run.build(a.row_lo, b.row_hi, keys, rows, self._space()))

    def probe(self, key_columns: list[np.ndarray], row_lo: int, row_hi: int, n: int | None = None) -> "Probe":
        """Prepare the lookup of each probe row among rows row_lo..row_hi (n: probe rows, for empty keys)."""
        rows = len(key_columns[0]) if key_columns else n
        assert rows is not None, "a probe on no columns needs the number of probe rows"
        keys, inside = self.key_of(key_columns, rows)
        return Probe(keys, inside, [r for r in self.runs if r.row_lo < row_hi and r.row_hi > row_lo],
                     row_lo, row_hi)

    def nbytes(self) -> int:
        return sum(r.keys.nbytes + r.rows.nbytes + (r.offsets.nbytes if r.offsets is not None else 0)
                   for r in self.runs)

    def distinct(self) -> int:
        """Distinct keys (an upper bound: a key present in two runs counts twice)."""
        return sum(r.distinct for r in self.runs)
