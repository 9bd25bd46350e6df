"""One sorted run of a persistent index (index.py): rows row_lo..row_hi of a relation sorted by key, and the
bounds of probe keys in it.

A lookup is a CSR read when the key space is small, else binary searches of the probe keys (sorted first
when they are many: a nearly sequential walk of the run), after a hash filter when a large probe meets a
run of few distinct keys (docs/design.md, "Measurements behind the choices").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deltalog.storage.hashset import mix, sort_with_positions

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

    @classmethod
    def merged(cls, runs: list["Run"], space: int | None) -> "Run":
        """One run of the rows of ``runs`` (each run's rows after those of the one before), sorted by key,
        then row. Runs that all have offsets merge by them: a row of key k goes to the merged run's first
        position of k, past the rows of k in the runs before its own and the rows of k before it in its
        run: reads of small arrays, no comparison, and the merged offsets are the runs' summed (Claros-like
        indexes, 130k keys, ~1-2M rows a merge: ~1.7x faster than a sort). Else a stable sort of the
        concatenated keys is the merge (a timsort finds the sorted runs and merges them)."""
        counts = [r.offsets for r in runs if r.offsets is not None]
        if len(counts) == len(runs):
            offsets = np.sum(counts, axis=0)
            before = np.zeros(offsets.size - 1, np.int64)   # rows of each key in the runs merged so far
            keys, rows = np.empty(int(offsets[-1]), np.int64), np.empty(int(offsets[-1]), np.int64)
            for run in runs:
                assert run.offsets is not None
                to = np.arange(run.keys.size) + (offsets[run.keys] + before[run.keys] - run.offsets[run.keys])
                keys[to], rows[to] = run.keys, run.rows
                before += np.diff(run.offsets)
            return cls(runs[0].row_lo, runs[-1].row_hi, keys, rows, offsets, int(np.count_nonzero(np.diff(offsets))))
        keys = np.concatenate([r.keys for r in runs])
        order = np.argsort(keys, kind="stable")
        return cls.build(runs[0].row_lo, runs[-1].row_hi, keys[order],
                         np.concatenate([r.rows for r in runs])[order], space)

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
            candidates = (table[mix(keys, bits)] & inside).nonzero()[0]
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
            lo = self.keys.searchsorted(keys, "left")
            if unique:
                return lo, lo + self._found_at(lo, keys, inside)
            return lo, np.where(inside, self.keys.searchsorted(keys, "right"), lo)
        sorted_keys, order = ordered
        lo, hi = np.empty(keys.size, np.int64), np.empty(keys.size, np.int64)
        lo[order] = starts = self.keys.searchsorted(sorted_keys, "left")
        if unique:   # gathered in the sorted keys' order: a walk along the run, not random reads
            hi[order] = self._found_at(starts, sorted_keys)
            return lo, lo + (hi & inside)
        hi[order] = self.keys.searchsorted(sorted_keys, "right")
        return lo, np.where(inside, hi, lo)

    def _found_at(self, lo: np.ndarray, keys: np.ndarray, inside: np.ndarray | bool = True) -> np.ndarray:
        """1 where the run holds the probe key at position ``lo`` (its first position at or after the
        key), else 0."""
        at = np.minimum(lo, self.keys.size - 1)
        return (inside & (self.keys[at] == keys)).astype(np.int64)



def probe_order(keys: np.ndarray, runs: list[Run]) -> tuple[np.ndarray, np.ndarray] | None:
    """The probe keys sorted, with their positions, when some run would binary-search them unfiltered
    (``Run.bounds``'s ``ordered``); None when no run gains from it."""
    if keys.size >= SORTED_PROBE_MIN and any(r.offsets is None and r.keys.size >= SORTED_PROBE_MIN
                                             and not r.filtered(keys.size) for r in runs):
        return sort_with_positions(keys)
    return None

def searchsorted_probes(haystack: np.ndarray, needles: np.ndarray, side: str = "left") -> np.ndarray:
    """``np.searchsorted(haystack, needles)``, with large batches of needles sorted first (a nearly
    sequential walk of the haystack instead of random binary searches: 20x at millions of keys)."""
    if needles.size < SORTED_PROBE_MIN or haystack.size < SORTED_PROBE_MIN:
        return haystack.searchsorted(needles, side)  # type: ignore[call-overload]
    ordered, order = sort_with_positions(needles)
    found = np.empty(needles.size, np.int64)
    found[order] = haystack.searchsorted(ordered, side)  # type: ignore[call-overload]
    return found
