"""Sets of rows too wide to pack into one 62-bit key: a hash set of row ids keyed by a fingerprint of
the row, every fingerprint match verified against the stored row (storage/tupleset.py packs the rest)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from deltalog.storage.hashset import EMPTY, TOMB, mix

Columns = Sequence[np.ndarray]


def fingerprint(columns: Columns) -> np.ndarray:
    """A 62-bit hash of each row, non-negative so that -1 can mark empty slots."""
    h = np.zeros(len(columns[0]), np.uint64)
    with np.errstate(over="ignore"):
        for column in columns:
            h = (h ^ column.astype(np.uint64)) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
    return (h >> np.uint64(2)).astype(np.int64)


class WideRowSet:
    """Hash set of row ids keyed by fingerprint, verifying matches against the stored rows."""

    def __init__(self, rows_at: Callable[[np.ndarray], list[np.ndarray]]) -> None:
        self._rows_at = rows_at
        self._bits = 10
        self._fps = np.full(1 << 10, EMPTY, np.int64)
        self._ids = np.full(1 << 10, EMPTY, np.int64)
        self._size = 0
        self._tombs = 0

    def _find(self, columns: Columns) -> np.ndarray:
        """The slot holding each row, or -1."""
        fps = fingerprint(columns)
        where = np.full(fps.size, -1, np.int64)
        pending, slots, mask = np.arange(fps.size), mix(fps, self._bits), (1 << self._bits) - 1
        while pending.size:
            current = self._fps[slots[pending]]
            candidate = (current == fps[pending]) & (self._ids[slots[pending]] >= 0)
            same = np.zeros(pending.size, bool)
            if candidate.any():
                stored = self._rows_at(self._ids[slots[pending[candidate]]])
                same[candidate] = np.logical_and.reduce(
                    [s == c[pending[candidate]] for s, c in zip(stored, columns)])
            where[pending[same]] = slots[pending[same]]
            pending = pending[~same & (self._ids[slots[pending]] != EMPTY)]
            slots[pending] = (slots[pending] + 1) & mask
        return where

    def contains(self, columns: Columns) -> np.ndarray:
        return self._find(columns) >= 0

    def discard(self, columns: Columns) -> None:
        self.take(columns)

    def take(self, columns: Columns) -> np.ndarray:
        """Remove the rows held (absent ones, and repeats, are ignored); return their row ids."""
        slots = np.unique(self._find(columns))
        slots = slots[slots >= 0]
        ids = self._ids[slots]
        self._ids[slots] = TOMB
        self._size -= slots.size
        self._tombs += slots.size
        return ids

    def new_rows(self, columns: Columns) -> np.ndarray:
        candidates = np.flatnonzero(~self.contains(columns))
        if candidates.size < 2:
            return candidates
        sub = [c[candidates] for c in columns]
        order = np.lexsort(sub[::-1])
        keep = np.ones(order.size, bool)
        keep[1:] = np.logical_or.reduce([s[order][1:] != s[order][:-1] for s in sub])
        return np.sort(candidates[order[keep]])

    def insert_rows(self, columns: Columns, row_ids: np.ndarray) -> None:
        """Insert distinct rows known to be absent."""
        self._reserve(row_ids.size)
        fps = fingerprint(columns)
        pending, slots, mask = np.arange(fps.size), mix(fps, self._bits), (1 << self._bits) - 1
        while pending.size:
            pending_slots = slots[pending]
            empty = self._ids[pending_slots] == EMPTY
            claim, claim_slots = pending[empty], pending_slots[empty]
            self._ids[claim_slots] = row_ids[claim]
            won = self._ids[claim_slots] == row_ids[claim]
            self._fps[claim_slots[won]] = fps[claim[won]]
            retry = np.concatenate([pending[~empty], claim[~won]])
            slots[retry] = (slots[retry] + 1) & mask
            pending = retry
        self._size += row_ids.size

    def _reserve(self, extra: int) -> None:
        bits = self._bits
        while (self._size + extra) * 2 > (1 << bits):
            bits += 1
        if bits != self._bits or (self._size + self._tombs + extra) * 2 > (1 << bits):
            ids = self._ids[self._ids >= 0]
            self._bits, self._size, self._tombs = bits, 0, 0
            self._fps, self._ids = np.full(1 << bits, EMPTY, np.int64), np.full(1 << bits, EMPTY, np.int64)
            self.insert_rows(self._rows_at(ids), ids)

    def nbytes(self) -> int:
        return self._fps.nbytes + self._ids.nbytes
