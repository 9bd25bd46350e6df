"""The set of tuples a relation holds, for deduplicating whole batches in O(batch).

Tuples of dense ids are packed into one int64 key with a mixed radix. When the key
space is small the set is a direct-addressed byte map (one byte per possible tuple,
no hashing); otherwise an open-addressing hash set of packed keys; and when even the
packed key would not fit in 62 bits, a hash set of row ids keyed by a fingerprint (wide_rows.py),
with every fingerprint match verified against the stored row.

From a relation's first deletion on, its hash set of packed keys carries the row id of each tuple
(storage/hashmap.py), so that a deletion finds its rows by one probe and removes them in the same
pass (``take_rows``): a 1,000-fact Claros-like deletion losing ~587k of 4.8M relatedPlaces pairs
otherwise searched the full-row index's sorted runs for them. Only relations that lose rows pay for
the row ids (8 bytes a slot): a materialisation never does.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from deltalog.storage.hashmap import Int64HashMap
from deltalog.storage.hashset import Int64HashSet
from deltalog.storage.uniques import sorted_unique
from deltalog.storage.wide_rows import WideRowSet

BYTEMAP_LIMIT = 1 << 28
"""Largest key space (bytes) kept as a direct byte map."""
BYTEMAP_DENSITY = 256
"""A byte map is chosen only when it costs at most this many bytes per tuple held: a small
relation (an update's scratch relation) over a large dictionary would otherwise allocate and
clear megabytes for a few rows."""
BITMAP_LIMIT = 1 << 32
"""Largest key space (bits) kept as a direct bit map (512 MiB)."""
BITMAP_DENSITY = 128
"""A bit map is chosen only when it costs at most this many bytes per tuple held (a hash set at
load one half costs 16-32 bytes per tuple, and twice that while it rehashes)."""
GROWING_BITMAP_ROWS = 4
"""A set that already holds tuples and takes more is a growing relation (a recursive one, round after
round): for the bit map's density it counts as this many times the rows it will hold after the batch.
Same generation on a forest (38,912^2 keys, a 189 MB map) then switches when it holds 234k tuples
instead of 1.39M: the tuples in between are set at ~30 ns each instead of inserted into a growing hash
set at ~145 ns and re-inserted into the map (materialisation 0.795 -> 0.674 s CPU, peak RSS 439 -> 423
MB; issue 15, stop 15). A first batch (a loaded relation) keeps the plain rule: it may never grow."""
Columns = Sequence[np.ndarray]


def radix_for(max_id: int, growing: bool = False) -> int:
    """A radix with headroom, so that growing dictionaries rarely force a re-pack: 25%, or twice the
    ids once they have outgrown a radix (rules making new values: each re-pack re-inserts every
    tuple, so 25% steps cost 5x the relation in re-packs, doubling 2x; Exp 300/300/5 materialises in
    0.94 vs 0.64 s CPU). Not twice from the start: a wider radix can move a relation from a byte or bit
    map to a hash set (same generation on a forest 0.76 vs 1.22 s)."""
    headroom = 2 if growing else 1.25
    return max(1024, (int((int(max_id) + 1) * headroom) + 1023) // 1024 * 1024)


def packs(radix: int, width: int) -> bool:
    """Whether ``pack`` keys rows of ``width`` ids below ``radix`` exactly in 62 bits (room left for
    ``sort_with_positions``' shift); wider rows need fingerprints or a row-wise method."""
    return radix ** width < 2**62


def pack(columns: Columns, radix: int) -> np.ndarray:
    """Mixed-radix key of each row: ((c0 * r + c1) * r + c2) ..."""
    if not columns:
        return np.zeros(0, np.int64)
    key = np.array(columns[0], np.int64)
    for column in columns[1:]:
        key *= radix
        key += column
    return key


def unpack(keys: np.ndarray, radix: int, arity: int) -> list[np.ndarray]:
    """The columns of packed keys (inverse of pack). Each digit is the key less its quotient times the radix:
    ``np.divmod`` divides twice (1M keys: 12 vs 4 ms; keys are never negative, so floor is truncation)."""
    columns = []
    for _ in range(arity - 1):
        quotient = keys // radix
        column = quotient * radix
        np.subtract(keys, column, out=column)
        keys = quotient
        columns.append(column)
    columns.append(keys)
    return columns[::-1]


def _bitmap_fits(space: int, rows: int, growing: bool) -> bool:
    """Whether a bit map over ``space`` keys is small enough for a set of ``rows`` tuples (``growing``:
    the set already holds some and takes more: ``GROWING_BITMAP_ROWS``)."""
    expected = rows * GROWING_BITMAP_ROWS if growing else rows
    return space <= BITMAP_LIMIT and space <= 8 * BITMAP_DENSITY * expected


class ByteMap:
    """Direct-addressed set over keys in [0, space)."""

    def __init__(self, space: int) -> None:
        self._seen = np.zeros(space, bool)

    def contains(self, keys: np.ndarray) -> np.ndarray:
        return self._seen[keys]

    def add_unique(self, keys: np.ndarray) -> None:
        self._seen[keys] = True

    def discard(self, keys: np.ndarray) -> None:
        self._seen[keys] = False

    def nbytes(self) -> int:
        return self._seen.nbytes


class BitMap:
    """Direct-addressed set over keys in [0, space), one bit per key: a probe is one gather and a
    shift, an insert one sort (usually skipped: batches come sorted) and one grouped OR per byte.
    Measured 8-10x faster than the hash set at millions of keys (docs/design.md)."""

    def __init__(self, space: int) -> None:
        self._bits = np.zeros((space + 7) >> 3, np.uint8)

    def contains(self, keys: np.ndarray) -> np.ndarray:
        return ((self._bits[keys >> 3] >> (keys & 7).astype(np.uint8)) & 1).astype(bool)

    def _grouped(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(byte positions, OR of the bits of the keys in each byte), one entry per distinct byte."""
        if keys.size > 1 and not bool(np.all(keys[1:] >= keys[:-1])):
            keys = np.sort(keys)
        byte = keys >> 3
        bit = np.left_shift(np.uint8(1), (keys & 7).astype(np.uint8))
        first = np.empty(byte.size, bool)
        first[:1] = True
        np.not_equal(byte[1:], byte[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        return byte[starts], np.bitwise_or.reduceat(bit, starts)

    def add_unique(self, keys: np.ndarray) -> None:
        if keys.size:
            byte, bits = self._grouped(keys)
            self._bits[byte] |= bits

    def discard(self, keys: np.ndarray) -> None:
        if keys.size:
            byte, bits = self._grouped(keys)
            self._bits[byte] &= ~bits

    def nbytes(self) -> int:
        return self._bits.nbytes


class TupleSet:
    """Exact set of the rows of one relation (arity >= 1): find the new rows of a batch, then record them."""

    def __init__(self, arity: int, rows_at: Callable[[np.ndarray], list[np.ndarray]]) -> None:
        self.arity = arity
        self._rows_at = rows_at
        self._radix = 0
        self._keys: ByteMap | BitMap | Int64HashSet | None = None
        self._wide: WideRowSet | None = None
        self._deferred: tuple[np.ndarray, int] | None = None   # (live row ids, max id): ``defer``

    def defer(self, row_ids: np.ndarray, max_id: int) -> None:
        """``rebuild`` with these stored rows at the set's first use, not now. A store opens every relation
        whole (storage/persist.py), and a query, an export, or an update that leaves a relation alone never
        asks its set (Claros-like: 0.24 s of a 0.7 s open, docs/benchmarks.md stop 21). The rows are those
        live now: every change of the relation asks the set first, except a rollback's revival, which
        records the revived rows after this build."""
        self._deferred = (row_ids, max_id)

    def _undefer(self) -> None:
        assert self._deferred is not None
        row_ids, max_id = self._deferred
        self.rebuild(self._rows_at(row_ids), row_ids, max_id)

    def _packed(self) -> ByteMap | BitMap | Int64HashSet:
        """The set of packed rows (the representation, unless rows are too wide to pack)."""
        assert self._keys is not None, "rebuild() chooses the representation first"
        return self._keys

    def _fits(self, columns: Columns) -> bool:
        return all(c.size == 0 or int(c.max()) < self._radix for c in columns)

    def rebuild(self, all_rows: Columns, row_ids: np.ndarray, max_id: int, expected_rows: int = 0) -> None:
        """Choose the representation for ids up to max_id and about ``expected_rows`` tuples, and
        re-insert the given (live) rows."""
        self._deferred = None
        self._radix = radix_for(max_id, growing=0 < self._radix <= max_id)
        space = self._radix ** self.arity
        tracking = isinstance(self._keys, Int64HashMap)
        self._keys, self._wide = None, None
        rows = max(expected_rows, len(row_ids))
        if space <= BYTEMAP_LIMIT and space <= BYTEMAP_DENSITY * rows:
            self._keys = ByteMap(space)
        elif _bitmap_fits(space, rows, growing=len(row_ids) > 0):
            self._keys = BitMap(space)
        elif packs(self._radix, self.arity):
            self._keys = Int64HashMap() if tracking else Int64HashSet()
        else:
            self._wide = WideRowSet(self._rows_at)
        if all_rows and len(all_rows[0]):
            self.record(all_rows, row_ids)

    def renumberable(self) -> bool:
        """Whether :meth:`renumber` can follow a compaction (a wide row set keeps rows its own way)."""
        if self._deferred is not None:   # (an attribute test, not a call: these run per batch)
            self._undefer()
        return self._wide is None

    def renumber(self, new_id: np.ndarray) -> None:
        """The relation renumbered its rows (every row held is kept, and row ``i`` is now ``new_id[i]``):
        keys stay where they are, a map's row ids are renumbered in place."""
        if self._deferred is not None:
            self._undefer()
        if isinstance(self._keys, Int64HashMap):
            self._keys.renumber(new_id)

    def needs_rebuild(self, columns: Columns) -> bool:
        """Ids outgrew the radix, or a hash set has grown dense enough to become a byte or bit map."""
        if self._deferred is not None:
            self._undefer()
        return self._radix == 0 or not self._fits(columns) or self._dense_enough(len(columns[0]))

    def _dense_enough(self, batch: int) -> bool:
        if not isinstance(self._keys, Int64HashSet):
            return False
        space, rows = self._radix ** self.arity, len(self._keys) + batch
        return (space <= BYTEMAP_LIMIT and space <= BYTEMAP_DENSITY * rows
                or _bitmap_fits(space, rows, growing=len(self._keys) > 0))

    def new_rows(self, columns: Columns) -> list[np.ndarray]:
        """The distinct batch rows that are not stored yet, as columns (nothing is recorded yet)."""
        if self._deferred is not None:
            self._undefer()
        if self._wide is not None:
            return [c[self._wide.new_rows(columns)] for c in columns]
        keys = pack(columns, self._radix)
        fresh = sorted_unique(keys[~self._packed().contains(keys)])
        return unpack(fresh, self._radix, self.arity)

    def add_new(self, columns: Columns) -> list[np.ndarray] | None:
        """``new_rows`` and ``record`` in one probe of a hash set: its insert reports which keys were
        absent, so the separate membership probe is saved (~35 of ~95 ns a key). None for the other
        representations (the caller then asks ``new_rows`` and ``record``: a byte or bit map's probe
        is one gather, and a wide row set records row ids the relation has not stored yet)."""
        if self._deferred is not None:
            self._undefer()
        if not isinstance(self._keys, Int64HashSet) or isinstance(self._keys, Int64HashMap):
            return None   # (a map's insertion takes the row ids, known once the new rows are)
        keys = sorted_unique(pack(columns, self._radix))
        return unpack(keys[self._keys.add_unique(keys)], self._radix, self.arity)

    def record(self, columns: Columns, row_ids: np.ndarray) -> None:
        """Remember rows (distinct and new) that the relation has just stored under row_ids."""
        if self._deferred is not None:
            self._undefer()
        if self._wide is not None:
            self._wide.insert_rows(columns, row_ids)
        elif isinstance(self._keys, Int64HashMap):
            self._keys.add_absent(pack(columns, self._radix), row_ids)
        else:
            self._packed().add_unique(pack(columns, self._radix))

    def take_rows(self, columns: Columns, live_rows: Callable[[], tuple[np.ndarray, Columns]]) -> np.ndarray | None:
        """Forget the batch rows held and return the ids of the rows that held them (ascending), or None
        when the representation knows no row ids (a byte or bit map). A hash set learns them now, from
        ``live_rows`` (the ids of the relation's live rows and their columns): the first deletion pays one
        rebuild."""
        if self._deferred is not None:
            self._undefer()
        if self._wide is not None:
            return np.sort(self._wide.take(columns))
        if self._radix == 0 or not isinstance(self._keys, Int64HashSet):
            return None if self._radix else np.empty(0, np.int64)
        if not isinstance(self._keys, Int64HashMap):
            live, live_columns = live_rows()
            radix = self._radix
            self._keys = Int64HashMap.taking_over(
                self._keys, lambda lo, hi: pack([c[lo:hi] for c in live_columns], radix), live)
        inside = self._inside(columns)
        keys = pack(columns if inside is None else [c[inside] for c in columns], self._radix)
        return np.sort(self._keys.pop(keys))

    def discard(self, columns: Columns) -> None:
        """Forget rows (stored ones; the relation has just marked them deleted)."""
        if self._deferred is not None:
            self._undefer()
        if self._wide is not None:
            self._wide.discard(columns)
        elif self._keys is not None:
            self._keys.discard(pack(columns, self._radix))

    def contains(self, columns: Columns) -> np.ndarray:
        if self._deferred is not None:
            self._undefer()
        if self._radix == 0:
            return np.zeros(len(columns[0]), bool)
        if self._wide is not None:
            return self._wide.contains(columns)
        inside = self._inside(columns)
        if inside is None:
            return self._packed().contains(pack(columns, self._radix))
        found = np.zeros(inside.size, bool)
        found[inside] = self._packed().contains(pack([c[inside] for c in columns], self._radix))
        return found

    def _inside(self, columns: Columns) -> np.ndarray | None:
        """Which batch rows lie in the key space, or None if all of them do (the usual case: no masks,
        no copies of the columns)."""
        if len(columns[0]) and all(int(c.min()) >= 0 and int(c.max()) < self._radix for c in columns):
            return None
        inside = np.ones(len(columns[0]), bool)
        for column in columns:
            inside &= (column >= 0) & (column < self._radix)
        return inside

    def nbytes(self) -> int:
        part = self._wide if self._wide is not None else self._keys
        return 0 if part is None else part.nbytes()
