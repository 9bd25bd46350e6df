"""Where each stored tuple of a relation lives: packed key -> row id, for deletions to find their rows.

A deletion must find the stored rows equal to its batch rows. Through the relation's full-row index
(storage/index.py) that is a refresh of its sorted runs with the rows appended since the last
deletion, then a binary search in each run (a 1,000-fact LUBM-like deletion: ~6-7 runs a relation,
~80 us a relation of a few rows whatever its size, ~3 ms an update). Here it is a binary search in
one sorted array (the relation's rows at its first deletion) and a probe of a small open-addressing
table (linear probing, load at most one half) of the keys assigned since: from a tuple's packed key
to the row that most recently made it live. A row that is appended, or revived, takes its key over; dead rows
are never removed, since a relation holds a tuple in one live row at most and the row a key maps to
tells by its death mark whether the tuple is live. So the map holds a key per distinct tuple ever
stored since the relation was last renumbered, and never needs tombstones.

>>> m = RowMap()   # (a batch this small goes to the hash table; a relation's first map is the sorted part)
>>> m.assign(np.array([7, 9]), np.array([0, 1]))
>>> m.assign(np.array([7]), np.array([2]))      # 7 stored again, in row 2
>>> m.rows_of(np.array([7, 9, 8])).tolist()
[2, 1, -1]
"""

from __future__ import annotations

import numpy as np

from deltalog.storage.hashset import mix, sort_with_positions

EMPTY = -1


class HashRows:
    """Packed keys (non-negative int64) -> row ids in an open-addressing table, vectorised over batches."""

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
        if self._size == 0:
            self._place(keys, rows)
            return
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

    def _place(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """Fill the empty table in one pass (as ``Int64HashSet._place``): sorted by home slot, each key goes
        to the first slot at or after its home and its predecessor's slot, where linear probing puts it;
        the few pushed past the end wrap around by probing. A relation's first map: 355k rows in one sort
        instead of rounds of claims."""
        homes, order = sort_with_positions(mix(keys, self._bits))
        keys, rows = keys[order], rows[order]
        slots = np.arange(homes.size, dtype=np.int64)
        slots += np.maximum.accumulate(homes - slots) if homes.size else 0
        fits = slots < self._keys.size
        self._keys[slots[fits]], self._rows[slots[fits]] = keys[fits], rows[fits]
        self._size += int(np.count_nonzero(fits))
        if not fits.all():
            self._insert(keys[~fits], rows[~fits])

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

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        held = self._keys >= 0
        return self._keys[held], self._rows[held]

    def nbytes(self) -> int:
        return self._keys.nbytes + self._rows.nbytes


SORTED_MIN = 1 << 12
"""A first assignment of at least this many keys becomes the sorted part."""
MERGE_SHARE = 4
"""The table is merged into the sorted part once it holds 1/MERGE_SHARE as many keys (and SORTED_MIN)."""


class RowMap:
    """Packed keys -> row ids: the relation's rows at its first deletion as one sorted array (a sort of
    its keys, as cheap to build as the full-row index's first run: a table of 355k keys took 2-3x as
    long, its slots faulted in at random), and later assignments in a small ``HashRows`` that is
    consulted first and merged into the sorted part when it grows."""

    def __init__(self) -> None:
        self._keys = np.empty(0, np.int64)
        self._rows = np.empty(0, np.int64)
        self._recent = HashRows()

    def __len__(self) -> int:
        return self._keys.size + len(self._recent)   # (an upper bound: a key may be in both)

    def rows_of(self, keys: np.ndarray) -> np.ndarray:
        """The row each key maps to, -1 for keys never assigned."""
        rows = self._recent.rows_of(keys)
        if self._keys.size:
            missing = np.flatnonzero(rows < 0)
            at = np.minimum(np.searchsorted(self._keys, keys[missing]), self._keys.size - 1)
            found = self._keys[at] == keys[missing]
            rows[missing[found]] = self._rows[at[found]]
        return rows

    def assign(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """Map each key to its row (keys distinct among themselves; a key already mapped moves)."""
        if self._keys.size == 0 and len(self._recent) == 0 and keys.size >= SORTED_MIN:
            self._keys, order = sort_with_positions(keys)
            self._rows = rows[order]
            return
        self._recent.assign(keys, rows)
        if len(self._recent) >= max(SORTED_MIN, self._keys.size // MERGE_SHARE):
            self._merge()

    def _merge(self) -> None:
        """The table's keys into the sorted part, its rows winning over the sorted part's."""
        held = self._recent.items()
        keys = np.concatenate([self._keys, held[0]])
        rows = np.concatenate([self._rows, held[1]])
        order = np.argsort(keys, kind="stable")   # a key in both: the table's entry comes last
        keys, rows = keys[order], rows[order]
        last = np.ones(keys.size, bool)
        last[:-1] = keys[1:] != keys[:-1]
        self._keys, self._rows, self._recent = keys[last], rows[last], HashRows()

    def nbytes(self) -> int:
        return self._keys.nbytes + self._rows.nbytes + self._recent.nbytes()
