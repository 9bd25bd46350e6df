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

from deltalog.storage.hashmap import Int64HashMap
from deltalog.storage.hashset import sort_with_positions


SORTED_MIN = 1 << 12
"""A first assignment of at least this many keys becomes the sorted part."""
MERGE_SHARE = 4
"""The table is merged into the sorted part once it holds 1/MERGE_SHARE as many keys (and SORTED_MIN)."""


class RowMap:
    """Packed keys -> row ids: the relation's rows at its first deletion as one sorted array (a sort of
    its keys, as cheap to build as the full-row index's first run: a table of 355k keys took 2-3x as
    long, its slots faulted in at random), and later assignments in a small hash table that is
    consulted first and merged into the sorted part when it grows (an ``Int64HashMap``: the relation's tuple
    set carries row ids the same way once it is a hash table, storage/tupleset.py; this map serves the
    relations held in byte or bit maps)."""

    def __init__(self) -> None:
        self._keys = np.empty(0, np.int64)
        self._rows = np.empty(0, np.int64)
        self._recent = Int64HashMap()

    def __len__(self) -> int:
        return self._keys.size + len(self._recent)   # (an upper bound: a key may be in both)

    def rows_of(self, keys: np.ndarray) -> np.ndarray:
        """The row each key maps to, -1 for keys never assigned."""
        rows = self._recent.values_of(keys)
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
        self._keys, self._rows, self._recent = keys[last], rows[last], Int64HashMap()

    def nbytes(self) -> int:
        return self._keys.nbytes + self._rows.nbytes + self._recent.nbytes()
