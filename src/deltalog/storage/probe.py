"""The matches of a batch of probe rows in a persistent index (index.py): counted up front from each sorted
run's bounds, then expanded in slices of probe rows, or by rank (newest first) where a view only needs one
live match per row (semi-joins, witness searches).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from deltalog.storage.sorted_run import Run, probe_order



class Probe:
    """Matches of probe rows in an index, counted up front and expanded in slices of probe rows."""

    def __init__(self, keys: np.ndarray, inside: np.ndarray, runs: list[Run], row_lo: int, row_hi: int):
        self.runs, self.row_lo, self.row_hi = runs, row_lo, row_hi
        self.bounds = []
        counts = np.zeros(keys.size, np.int64)
        ordered = probe_order(keys, runs)
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
        pending = (self.counts > 0).nonzero()[0]
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
            here = (~assigned & (before <= rank) & (rank < before + width)).nonzero()[0]
            found[here] = run.rows[top[here] - 1 - (rank - before[here])]
            assigned[here] = True
            before += width
        hit = assigned.nonzero()[0]
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
    owners = counts.nonzero()[0]
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
