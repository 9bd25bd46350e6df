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


TIER_RUNS = 4
TIER_MIN_ROWS = 1 << 16
"""Runs of at least ``TIER_MIN_ROWS`` rows with offsets (a probe reads two offsets of each, whatever its size)
merge ``TIER_RUNS`` at a time, once that many within 2x of each other are the newest: each row is re-sorted
once per 4x growth of its run instead of once per doubling. Claros-like re-adds append ~470k
``relatedPlaces`` pairs each, into two such indexes: merges of 0.9-2.2M rows in 3 of 5 re-adds, 20-80 ms
each, became one of 1.9M rows (docs/benchmarks.md, stop 19). Smaller runs (most indexes, every
seminaive round's) keep the pairwise rule."""
MAX_RUNS = 12
"""More runs than this merge the newest two whatever their sizes (runs of unlike sizes never make a tier)."""


def _large_dense(run: Run) -> bool:
    return run.offsets is not None and run.keys.size >= TIER_MIN_ROWS


def _tier(runs: list[Run]) -> bool:
    """Whether these runs are a tier to merge: ``TIER_RUNS`` large dense runs within 2x of each other."""
    sizes = [r.keys.size for r in runs]
    return len(runs) == TIER_RUNS and all(map(_large_dense, runs)) and max(sizes) <= 2 * min(sizes)


class Prober(Protocol):
    """What a keyed view probes: a :class:`SortedIndex`, or a scan while one would not pay yet
    (storage/row_scan.py). ``exact``: keys are compared exactly (else by fingerprint)."""

    @property
    def exact(self) -> bool: ...

    def probe(self, key_columns: list[np.ndarray], row_lo: int, row_hi: int, n: int | None = None) -> "Probe": ...


SORTED_SAMPLE = 1 << 10


MERGED_PIECES = 32
"""Keys in at most this many nondecreasing pieces are ordered by a stable sort (numpy's timsort merges the
pieces: log2(pieces) passes) instead of the packed SIMD sort. Claros-like ``relatedPlaces`` is 19 pieces: its
89k explicit facts, then the closure's 2^18-pair chunks, each stored sorted by ``add_new``; its first ``(0,)``
index 0.24-0.33 -> 0.22-0.24 s in process (docs/benchmarks.md, stop 21)."""


def nondecreasing(keys: np.ndarray) -> bool:
    """Whether the keys are already in order (their first ``SORTED_SAMPLE`` checked first: keys in no
    order fail there, for ~1 us). A relation loaded from a file holds its rows sorted by packed row
    (storage/tupleset.py ``add_new``), so an index on its first column(s) needs no sort: reach-tiny's
    1M-edge ``edge`` on (0,), ~15 ms of a 22 ms build (docs/benchmarks.md, stop 20)."""
    return sorted_pieces(keys) == 1


def sorted_pieces(keys: np.ndarray) -> int:
    """The number of maximal nondecreasing pieces of the keys (1: in order), or 0 when it is more than
    ``MERGED_PIECES`` (keys in no order show it in their first ``SORTED_SAMPLE``: told in ~1 us). A
    relation's rows lie in a few such pieces when it was stored in a few batches, each sorted by packed row
    (``add_new``): on its first column(s), a closure module's chunks after the explicit facts."""
    head = keys[:SORTED_SAMPLE + 1]
    if np.count_nonzero(head[1:] < head[:-1]) >= MERGED_PIECES:
        return 0
    pieces = int(np.count_nonzero(keys[1:] < keys[:-1])) + 1 if keys.size else 1
    return pieces if pieces <= MERGED_PIECES else 0


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
        fresh = [stored[p][lo:hi] for p in self.positions]
        # stored ids lie in the key space (the radix covers them): one column is its own key, no mask made
        own_column = len(fresh) == 1 and self.exact
        keys = fresh[0] if own_column else self.key_of(fresh, hi - lo)[0]
        pieces = sorted_pieces(keys)
        if pieces == 1:   # rows stored in key order: a loaded relation's (``add_new``, sorted by
            rows = np.arange(lo, hi, dtype=np.int64)   # packed row) on its first columns; no sort
            if own_column:   # a view of the relation's column: copied, so that the run
                keys = keys.copy()   # neither pins a buffer the column outgrows nor sees it change
        elif pieces:   # a few pieces in order: merged (stable: equal keys keep their rows ascending)
            rows = np.argsort(keys, kind="stable")
            keys = keys[rows]
            rows += lo   # (in place: one fresh array less to fault in; 4.8M rows are 38 MB)
        else:
            keys, rows = sort_with_positions(keys)
            rows += lo
        self.runs.append(Run.build(lo, hi, keys, rows, self._space()))
        self._covered = hi

    @staticmethod
    def run_of(keys: np.ndarray, rows: np.ndarray, row_lo: int, row_hi: int) -> Run:
        """A run standing for rows row_lo..row_hi that holds only some of them (their exact keys and ids,
        ids ascending), ordered as a built run is: by key, then by row id."""
        order = np.argsort(keys, kind="stable")
        return Run.build(row_lo, row_hi, keys[order], rows[order], None)

    def _merge_tail(self) -> None:
        """Merge the newest runs (``Run.merged``): ``TIER_RUNS`` large dense runs of similar size at once, or
        (other runs) the newest two while the older is at most twice the newer; past ``MAX_RUNS`` runs, the
        newest two whatever their sizes."""
        runs = self.runs
        while len(runs) >= 2:
            if _tier(runs[-TIER_RUNS:]):
                merged = runs[-TIER_RUNS:]
            elif len(runs) > MAX_RUNS or (len(runs[-2].keys) <= 2 * len(runs[-1].keys)
                                          and not (_large_dense(runs[-2]) and _large_dense(runs[-1]))):
                merged = runs[-2:]
            else:
                return
            del runs[-len(merged):]
            runs.append(Run.merged(merged, self._space()))

    def renumbered(self, new_id: np.ndarray, kept_before: np.ndarray) -> "SortedIndex":
        """This index over the kept rows of a compacted relation (``new_id[i]``: row i's new id, -1 if
        dropped; ``kept_before[i]``: kept rows among rows 0..i-1): each run loses its dropped rows and
        renumbers the others; a monotone renumbering keeps every run sorted by key, then row, so nothing
        is re-sorted (one gather of each row's new id)."""
        index = SortedIndex(self.positions)
        index.radix, index.exact = self.radix, self.exact
        index._covered = int(kept_before[self._covered])
        for run in self.runs:
            rows = new_id[run.rows]
            kept = (rows >= 0).nonzero()[0]   # (positions once: keys and rows are then two sequential takes)
            lo, hi = int(kept_before[run.row_lo]), int(kept_before[run.row_hi])
            if hi > lo:
                index.runs.append(Run.build(lo, hi, run.keys[kept], rows[kept].astype(np.int64), self._space()))
        return index

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
