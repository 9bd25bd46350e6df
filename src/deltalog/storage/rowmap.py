"""Where each stored tuple of a relation lives: packed key -> row id, for deletions to find their rows.

A deletion must find the stored rows equal to its batch rows. Through the relation's full-row index
(storage/index.py) that is a refresh of its sorted runs with the rows appended since the last
deletion, then a binary search in each run (a 1,000-fact LUBM-like deletion: ~6-7 runs a relation,
~80 us a relation of a few rows whatever its size, ~3 ms an update). Here it is a binary search in
two sorted arrays: the relation's rows at its first deletion, and a small *recent* part of the keys
assigned since, consulted first: from a tuple's packed key to the row that most recently made it
live. A row that is appended, or revived, takes its key over; dead rows are never removed, since a
relation holds a tuple in one live row at most and the row a key maps to tells by its death mark
whether the tuple is live. So the map holds a key per distinct tuple ever stored since the relation
was last renumbered, and never needs tombstones.

The recent part takes each update's few keys by one merge of two sorted arrays (a fixed number of
NumPy calls, whatever the keys' probe sequences): an open-addressing table there cost one round of
NumPy calls per slot of the longest probe sequence, ~0.1-0.2 ms to map the ~100 rows a re-add
appended to a 100k-row relation (docs/benchmarks.md, stop 19). It is merged into the sorted part once
it holds 1/MERGE_SHARE as many keys, by the same linear merge.

>>> m = RowMap()   # (a batch this small goes to the recent part; a relation's first map is the sorted part)
>>> m.assign(np.array([7, 9]), np.array([0, 1]))
>>> m.assign(np.array([7, 7]), np.array([2, 3]))   # 7 stored again, in row 2, then in row 3: the last wins
>>> m.rows_of(np.array([7, 9, 8])).tolist()
[3, 1, -1]
"""

from __future__ import annotations

import numpy as np

from deltalog.storage.hashset import sort_with_positions


SORTED_MIN = 1 << 12
"""A first assignment of at least this many keys becomes the sorted part; the recent part is merged into
it from this many keys on."""
MERGE_SHARE = 64
"""The recent part is merged into the sorted part once it holds 1/MERGE_SHARE as many keys (and SORTED_MIN):
each assignment copies the recent part, each merge the sorted part (a 1M-row relation taking ~100 keys an
update: a 16k-key recent part, a merge every ~160 updates)."""
_NONE = np.empty(0, np.int64)


class RowMap:
    """Packed keys -> row ids: the relation's rows at its first deletion as one sorted array (a sort of
    its keys, as cheap to build as the full-row index's first run), and later assignments in a small
    sorted array that is consulted first and merged into the first when it grows."""

    def __init__(self) -> None:
        self._keys, self._rows = _NONE, _NONE       # the sorted part
        self._recent, self._recent_rows = _NONE, _NONE   # keys assigned since, sorted; they win

    def __len__(self) -> int:
        return self._keys.size + self._recent.size   # (an upper bound: a key may be in both)

    def rows_of(self, keys: np.ndarray) -> np.ndarray:
        """The row each key maps to, -1 for keys never assigned."""
        rows = lookup(self._recent, self._recent_rows, keys)
        if self._keys.size:
            missing = (rows < 0).nonzero()[0]
            if missing.size:
                rows[missing] = lookup(self._keys, self._rows, keys[missing])
        return rows

    def assign(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """Map each key to its row (a key given twice: its last row; a key already mapped moves)."""
        if keys.size == 0:
            return
        keys, rows = last_of_each(keys, rows)
        if self._keys.size == 0 and self._recent.size == 0 and keys.size >= SORTED_MIN:
            self._keys, self._rows = keys, rows
            return
        self._recent, self._recent_rows = merged(self._recent, self._recent_rows, keys, rows)
        if self._recent.size >= max(SORTED_MIN, self._keys.size // MERGE_SHARE):
            self._keys, self._rows = merged(self._keys, self._rows, self._recent, self._recent_rows)
            self._recent, self._recent_rows = _NONE, _NONE

    def nbytes(self) -> int:
        return self._keys.nbytes + self._rows.nbytes + self._recent.nbytes + self._recent_rows.nbytes


def lookup(keys: np.ndarray, rows: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The row of each wanted key in sorted distinct ``keys`` (their ``rows``), -1 where absent."""
    if keys.size == 0:
        return np.full(wanted.size, -1, np.int64)
    at = np.minimum(keys.searchsorted(wanted), keys.size - 1)
    return np.where(keys[at] == wanted, rows[at], -1)


def last_of_each(keys: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The keys sorted, each once, with the row given last for it."""
    if keys.size > 1 and bool(np.all(keys[1:] > keys[:-1])):   # a relation's rows in key order (a first load)
        return keys, rows
    if keys.size < SORTED_MIN:   # a stable sort keeps a repeated key's rows in the order given
        order = np.argsort(keys, kind="stable")
        keys, rows = keys[order], rows[order]
    else:   # large batches (a relation's first map) hold distinct keys: one packed SIMD sort
        keys, order = sort_with_positions(keys)
        rows = rows[order]
    last = np.empty(keys.size, bool)
    last[-1] = True
    np.not_equal(keys[1:], keys[:-1], out=last[:-1])
    return (keys, rows) if last.all() else (keys[last], rows[last])


def merged(keys: np.ndarray, rows: np.ndarray, new: np.ndarray, new_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two sorted maps as one, ``new``'s rows winning for keys in both: one linear merge (the new keys'
    places by binary search), no sort of the whole."""
    if keys.size == 0:
        return new, new_rows
    at = keys.searchsorted(new)
    held = at < keys.size
    held[held] = keys[at[held]] == new[held]
    rows = rows.copy()
    rows[at[held]] = new_rows[held]
    if held.all():
        return keys, rows
    fresh = ~held
    places = at[fresh] + np.arange(np.count_nonzero(fresh))   # where each fresh key lands in the merged array
    out_keys = np.empty(keys.size + places.size, np.int64)
    out_rows = np.empty(out_keys.size, np.int64)
    old = np.ones(out_keys.size, bool)
    old[places] = False
    out_keys[places], out_rows[places] = new[fresh], new_rows[fresh]
    out_keys[old], out_rows[old] = keys, rows
    return out_keys, out_rows
