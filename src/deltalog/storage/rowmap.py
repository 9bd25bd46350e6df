"""Where each stored tuple of a relation lives: packed key -> row id, for deletions to find their rows.

A deletion must find the stored rows equal to its batch rows. Through the relation's full-row index
(storage/index.py) that is a refresh of its sorted runs with the rows appended since the last
deletion, then a binary search in each run (a 1,000-fact LUBM-like deletion: ~6-7 runs a relation,
~80 us a relation of a few rows whatever its size, ~3 ms an update). Here it is one hash probe: an
open-addressing table (linear probing, load at most one half) from a tuple's packed key to the row
that most recently made it live. A row that is appended, or revived, takes its key over; dead rows
are never removed, since a relation holds a tuple in one live row at most and the row a key maps to
tells by its death mark whether the tuple is live. So the map holds a key per distinct tuple ever
stored since the relation was last renumbered, and never needs tombstones.

>>> m = RowMap()
>>> m.assign(np.array([7, 9]), np.array([0, 1]))
>>> m.assign(np.array([7]), np.array([2]))      # 7 stored again, in row 2
>>> m.rows_of(np.array([7, 9, 8])).tolist()
[2, 1, -1]
"""

from __future__ import annotations

import numpy as np

from deltalog.storage.hashset import mix

EMPTY = -1


class RowMap:
    """Packed keys (non-negative int64) -> row ids, vectorised over batches."""

    def __init__(self) -> None:
        self._bits = 10
        self._keys = np.full(1 << self._bits, EMPTY, np.int64)
        self._rows = np.zeros(1 << self._bits, np.int64)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def rows_of(self, keys: np.ndarray) -> np.ndarray:
        """The row each key maps to, -1 for keys never assigned."""
        slots = self._find(keys)
        return np.where(slots >= 0, self._rows[np.maximum(slots, 0)], -1)

    def assign(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """Map each key to its row (keys distinct among themselves; a key already mapped moves)."""
        if keys.size == 0:
            return
        slots = self._find(keys)
        known = slots >= 0
        self._rows[slots[known]] = rows[known]
        if not known.all():
            self._insert(keys[~known], rows[~known])

    def _find(self, keys: np.ndarray) -> np.ndarray:
        """The slot holding each key, or -1: each pending key steps to its next slot until it meets
        its key or an empty slot (no tombstones: an empty slot ends every probe sequence)."""
        where = np.full(keys.size, -1, np.int64)
        if self._size == 0:
            return where
        mask = (1 << self._bits) - 1
        pending, slots = np.arange(keys.size), mix(keys, self._bits)
        while pending.size:
            current = self._keys[slots]
            hit = current == keys[pending]
            where[pending[hit]] = slots[hit]
            going = ~hit & (current != EMPTY)
            pending, slots = pending[going], (slots[going] + 1) & mask
        return where

    def _insert(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """Place keys that are absent (and distinct) in empty slots; colliding claims retry."""
        self._reserve(keys.size)
        mask = (1 << self._bits) - 1
        pending, slots = np.arange(keys.size), mix(keys, self._bits)
        while pending.size:
            empty = self._keys[slots] == EMPTY
            claim, claim_slots = pending[empty], slots[empty]
            self._keys[claim_slots] = keys[claim]           # colliding claims: the last write wins
            won = self._keys[claim_slots] == keys[claim]
            self._rows[claim_slots[won]] = rows[claim[won]]
            retry = ~empty
            retry[np.flatnonzero(empty)[~won]] = True
            pending, slots = pending[retry], (slots[retry] + 1) & mask
        self._size += keys.size

    def _reserve(self, extra: int) -> None:
        bits = self._bits
        while (self._size + extra) * 2 > (1 << bits):
            bits += 1
        if bits != self._bits:
            held = self._keys >= 0
            keys, rows = self._keys[held], self._rows[held]
            self._bits, self._size = bits, 0
            self._keys = np.full(1 << bits, EMPTY, np.int64)
            self._rows = np.zeros(1 << bits, np.int64)
            self._insert(keys, rows)

    def nbytes(self) -> int:
        return self._keys.nbytes + self._rows.nbytes
