"""Persistent sorted indexes on column subsets, kept as a log-structured list of sorted runs.

New rows become a new run; runs of similar size are merged, so each row is re-sorted
O(log n) times over the relation's life and a lookup binary-searches a handful of runs.
A lookup costs O(probe * log n + matches), never a pass over the whole relation: this is
what keeps a seminaive round proportional to its delta.

>>> cols = [np.array([1, 2, 1]), np.array([5, 6, 7])]
>>> idx = SortedIndex((0,))
>>> idx.refresh(cols)
>>> probe = idx.probe([np.array([1, 3])], 0, 3)
>>> probe.total, [a.tolist() for a in probe.expand(0, 2)]
(2, [[0, 0], [0, 2]])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from deltalog.storage.hashset import mix, sort_with_positions
from deltalog.storage.tupleset import pack, packs, radix_for
from deltalog.storage.wide_rows import fingerprint


DENSE_MIN_SPACE = 1 << 12
SORTED_PROBE_MIN = 1 << 10
"""Probe batches and runs from this size on are binary-searched with the probe keys sorted first."""
FILTER_MIN_PROBE = 1 << 12
FILTER_MAX_KEYS = 1 << 20
"""Probes of at least FILTER_MIN_PROBE keys into runs of at most FILTER_MAX_KEYS distinct keys go
through a hash filter first."""


@dataclass
class Run:
    """Rows row_lo..row_hi of the relation, sorted by key: keys[i] is the key of row rows[i].

    When the key space is small, ``offsets[k]`` is where key k starts (a CSR array), so a
    lookup is two array reads instead of a binary search.
    """

    row_lo: int
    row_hi: int
    keys: np.ndarray
    rows: np.ndarray
    offsets: np.ndarray | None = None
    distinct: int = 0
    hash_filter: tuple[np.ndarray, int] | None = None

    @classmethod
    def build(cls, row_lo: int, row_hi: int, keys: np.ndarray, rows: np.ndarray, space: int | None) -> "Run":
        offsets = None
        if space is not None and space <= max(DENSE_MIN_SPACE, 4 * keys.size):
            offsets = np.zeros(space + 1, np.int64)
            np.cumsum(np.bincount(keys, minlength=space), out=offsets[1:])
        distinct = int(np.count_nonzero(keys[1:] != keys[:-1])) + 1 if keys.size else 0
        return cls(row_lo, row_hi, keys, rows, offsets, distinct)

    def filtered(self, probe_size: int) -> bool:
        """Whether a probe of this many keys first passes the run's hash filter."""
        return self.offsets is None and probe_size >= FILTER_MIN_PROBE and 0 < self.distinct <= FILTER_MAX_KEYS

    def _filter(self) -> tuple[np.ndarray, int]:
        """A byte per hash slot, set where some key of the run hashes (>= 16 slots a key: ~6% false hits)."""
        if self.hash_filter is None:
            bits = max(10, (16 * self.distinct - 1).bit_length())
            table = np.zeros(1 << bits, bool)
            table[mix(self.keys, bits)] = True
            self.hash_filter = (table, bits)
        return self.hash_filter

    def bounds(self, keys: np.ndarray, inside: np.ndarray,
               ordered: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """[lo, hi) positions of each probe key (empty where the key cannot be present).

        ``ordered`` is (the probe keys sorted, their positions): binary searches of sorted probe keys
        walk the run almost sequentially, 20x faster than random ones over runs of millions of keys.
        A large probe of a small run is first filtered by hashing (most probe keys miss), and only the
        keys that pass are searched (docs/design.md, "Measurements behind the choices")."""
        if self.offsets is not None:
            safe = np.where(inside, keys, 0)
            lo = self.offsets[safe]
            return lo, np.where(inside, self.offsets[safe + 1], lo)
        if self.filtered(keys.size):
            table, bits = self._filter()
            candidates = np.flatnonzero(table[mix(keys, bits)] & inside)
            lo, hi = np.zeros(keys.size, np.int64), np.zeros(keys.size, np.int64)
            if candidates.size:
                sub = keys[candidates]
                sub_ordered = sort_with_positions(sub) if sub.size >= SORTED_PROBE_MIN else None
                lo[candidates], hi[candidates] = self._search(sub, np.ones(sub.size, bool), sub_ordered)
            return lo, hi
        return self._search(keys, inside, ordered)

    def _search(self, keys: np.ndarray, inside: np.ndarray,
                ordered: tuple[np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
        """Binary searches of the probe keys (of the sorted ones, if given) in the run's keys. In a run
        whose keys are all distinct (a loaded relation's first run, keyed on all its columns or on a
        key column) a match is one position: the end of each range is its start plus whether the key
        is there, one gather instead of a second binary search (a 1,000-fact LUBM-like deletion's
        full-row index probes: 2.05 -> 1.86 ms; 100k sorted keys into a 20M-key run: 44 -> 24 ms)."""
        unique = 0 < self.distinct == self.keys.size
        if ordered is None:
            lo = np.searchsorted(self.keys, keys, "left")
            if unique:
                return lo, lo + self._found_at(lo, keys, inside)
            return lo, np.where(inside, np.searchsorted(self.keys, keys, "right"), lo)
        sorted_keys, order = ordered
        lo, hi = np.empty(keys.size, np.int64), np.empty(keys.size, np.int64)
        lo[order] = starts = np.searchsorted(self.keys, sorted_keys, "left")
        if unique:   # gathered in the sorted keys' order: a walk along the run, not random reads
            hi[order] = self._found_at(starts, sorted_keys)
            return lo, lo + (hi & inside)
        hi[order] = np.searchsorted(self.keys, sorted_keys, "right")
        return lo, np.where(inside, hi, lo)

    def _found_at(self, lo: np.ndarray, keys: np.ndarray, inside: np.ndarray | bool = True) -> np.ndarray:
        """1 where the run holds the probe key at position ``lo`` (its first position at or after the
        key), else 0."""
        at = np.minimum(lo, self.keys.size - 1)
        return (inside & (self.keys[at] == keys)).astype(np.int64)


def searchsorted_probes(haystack: np.ndarray, needles: np.ndarray, side: str = "left") -> np.ndarray:
    """``np.searchsorted(haystack, needles)``, with large batches of needles sorted first (a nearly
    sequential walk of the haystack instead of random binary searches: 20x at millions of keys)."""
    if needles.size < SORTED_PROBE_MIN or haystack.size < SORTED_PROBE_MIN:
        return np.searchsorted(haystack, needles, side)  # type: ignore[call-overload]
    ordered, order = sort_with_positions(needles)
    found = np.empty(needles.size, np.int64)
    found[order] = np.searchsorted(haystack, ordered, side)  # type: ignore[call-overload]
    return found


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
        while len(self.runs) >= 2 and len(self.runs[-2].keys) <= 2 * len(self.runs[-1].keys):
            b, a = self.runs.pop(), self.runs.pop()
            keys, order = sort_with_positions(np.concatenate([a.keys, b.keys]))
            rows = np.concatenate([a.rows, b.rows])[order]
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


class Probe:
    """Matches of probe rows in an index, counted up front and expanded in slices of probe rows."""

    def __init__(self, keys: np.ndarray, inside: np.ndarray, runs: list[Run], row_lo: int, row_hi: int):
        self.runs, self.row_lo, self.row_hi = runs, row_lo, row_hi
        self.bounds = []
        counts = np.zeros(keys.size, np.int64)
        ordered = None
        if keys.size >= SORTED_PROBE_MIN and any(r.offsets is None and r.keys.size >= SORTED_PROBE_MIN
                                                 and not r.filtered(keys.size) for r in runs):
            ordered = sort_with_positions(keys)
        self.matching: list[bool] = []
        for run in runs:
            lo, hi = run.bounds(keys, inside, ordered)
            self.bounds.append((lo, hi))
            width = hi - lo
            counts += width
            self.matching.append(bool(width.any()))
        self.counts = counts
        self.total = int(counts.sum())

    def expand(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """(probe row, relation row) pairs for probe rows start..stop, restricted to the row window."""
        probe_parts, row_parts = [], []
        for run, (lo, hi), matching in zip(self.runs, self.bounds, self.matching):
            if not matching:
                continue
            probe_idx, rows = expand_ranges(lo[start:stop], hi[start:stop], run.rows)
            if run.row_lo < self.row_lo or run.row_hi > self.row_hi:
                keep = (rows >= self.row_lo) & (rows < self.row_hi)
                probe_idx, rows = probe_idx[keep], rows[keep]
            probe_parts.append(probe_idx + start)
            row_parts.append(rows)
        if not probe_parts:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        if len(probe_parts) == 1:
            return probe_parts[0], row_parts[0]
        return np.concatenate(probe_parts), np.concatenate(row_parts)

    def any_alive(self, alive: Callable[[np.ndarray], np.ndarray | None], rounds: int = 4,
                  growth: int = 4) -> np.ndarray:
        """Per probe row: does it have a match inside the row window that ``alive`` keeps (a view's death
        conditions)? The first ``rounds`` matches of every row are checked one at a time, then the next
        ``growth``, ``growth``² ... of the rows still undecided (``expand_ranks``, newest first): after a
        deletion almost every row has a live one among the first, so a semi-join of 100k rows with 400
        matches each checks ~100k rows, not 40M."""
        found = np.zeros(self.counts.size, bool)
        pending = np.flatnonzero(self.counts > 0)
        start, width = 0, 1
        while pending.size:
            owners, rows = self.expand_ranks(pending, start, start + width)
            mask = alive(rows)
            found[owners if mask is None else owners[np.asarray(mask, bool)]] = True
            start, rounds = start + width, rounds - 1
            width = 1 if rounds > 0 else width * growth
            pending = pending[(self.counts[pending] > start) & ~found[pending]]
        return found

    def expand_ranks(self, rows: np.ndarray, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """(probe row, relation row) pairs for the matches ranked ``start``..``stop`` of each probe row in
        ``rows``, restricted to the row window. Ranks go newest first (the last run first, in a run the
        key's last rows first): once facts were deleted and added again, a key's old rows are the dead
        ones, and a live match comes in the first ranks instead of after all of them."""
        if stop == start + 1:
            return self._rank(rows, start)
        return self._ranked(rows, start, stop)

    def _ranked(self, rows: np.ndarray, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``expand_ranks`` for any ranks, by range expansion over every run."""
        owners, matched = [], []
        before = np.zeros(rows.size, np.int64)
        for run, (lo, hi) in zip(self.runs[::-1], self.bounds[::-1]):
            top, width = hi[rows], hi[rows] - lo[rows]
            idx, found = expand_ranges(top - np.clip(stop - before, 0, width),
                                       top - np.clip(start - before, 0, width), run.rows)
            before += width
            if run.row_lo < self.row_lo or run.row_hi > self.row_hi:
                keep = (found >= self.row_lo) & (found < self.row_hi)
                idx, found = idx[keep], found[keep]
            owners.append(rows[idx])
            matched.append(found)
        if not owners:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        return np.concatenate(owners), np.concatenate(matched)

    def _rank(self, rows: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
        """``expand_ranks(rows, rank, rank + 1)``: at most one match a row (the first window of every
        witness search and of ``any_alive``), found by one pass over the runs without range expansion."""
        assigned = np.zeros(rows.size, bool)
        found = np.empty(rows.size, np.int64)
        before = np.zeros(rows.size, np.int64)
        for run, (lo, hi) in zip(self.runs[::-1], self.bounds[::-1]):
            top = hi[rows]
            width = top - lo[rows]
            here = np.flatnonzero(~assigned & (before <= rank) & (rank < before + width))
            found[here] = run.rows[top[here] - 1 - (rank - before[here])]
            assigned[here] = True
            before += width
        hit = np.flatnonzero(assigned)
        found = found[hit]
        keep = (found >= self.row_lo) & (found < self.row_hi)
        return rows[hit[keep]], found[keep]

    def any_match(self) -> np.ndarray:
        """Per probe row: does it have a match inside the row window? (for semi- and anti-joins)"""
        if all(r.row_lo >= self.row_lo and r.row_hi <= self.row_hi for r in self.runs):
            return self.counts > 0
        found = np.zeros(self.counts.size, bool)
        probe_idx, _ = self.expand(0, self.counts.size)
        found[probe_idx] = True
        return found


def expand_ranges(lo: np.ndarray, hi: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges [lo[i], hi[i]) of ``values``: (i repeated per element, the elements), vectorised.

    Empty ranges are dropped first (most probe keys of a selective join match nothing), and when every
    remaining range holds one element no repeat is needed."""
    counts = hi - lo
    owners = np.flatnonzero(counts)
    if owners.size == 0:
        return np.empty(0, np.int64), np.empty(0, values.dtype)
    counts = counts[owners]
    starts_in = lo[owners]
    total = int(counts.sum())
    if total == owners.size:
        return owners, values[starts_in]
    starts = np.cumsum(counts) - counts
    positions = np.arange(total) + np.repeat(starts_in - starts, counts)
    return np.repeat(owners, counts), values[positions]
