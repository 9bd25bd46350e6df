"""A stored relation: append-only integer columns stamped with generations, a tuple set and indexes.

Rows are only appended, so the rows of a generation window ``[since, until)`` are one
contiguous row range and "old", "delta" and "full" versions of a relation are zero-copy
slices. Deduplication goes through the relation's :class:`TupleSet`, so inserting a
batch costs O(batch) however large the relation is.

>>> r = Relation("edge", 2)
>>> r.insert([np.array([1, 2, 1]), np.array([2, 3, 2])], generation=0)
2
>>> r.insert([np.array([2, 3]), np.array([3, 4])], generation=1)
1
>>> r.rows_for(1, None), [c.tolist() for c in r.columns()]
((2, 3), [[1, 2, 3], [2, 3, 4]])
"""

from __future__ import annotations

import bisect

import numpy as np

from deltalog.storage.growable import GrowableArray
from deltalog.storage.index import SortedIndex
from deltalog.storage.tupleset import TupleSet, unique_sorted

ALIVE = np.iinfo(np.int64).max


class Relation:
    """Rows of one predicate (arity 0 is stored as one hidden all-zero column)."""

    def __init__(self, name: str, arity: int) -> None:
        self.name, self.arity = name, arity
        self._width = max(arity, 1)
        self._cols = [GrowableArray(np.int64) for _ in range(self._width)]
        self._died: GrowableArray | None = None   # per row: the generation that deleted it, ALIVE if none
        # (allocated at the first delete: relations that never lose rows pay nothing for it)
        self.deleted_rows = 0
        self._generations: list[int] = []
        self._ends: list[int] = []
        self._max_id = -1
        self.tuples = TupleSet(self._width, self._rows_at)
        self._indexes: dict[tuple[int, ...], SortedIndex] = {}

    def __len__(self) -> int:
        return len(self._cols[0])

    def _rows_at(self, row_ids: np.ndarray) -> list[np.ndarray]:
        return [c.view()[row_ids] for c in self._cols]

    def stored_columns(self, lo: int = 0, hi: int | None = None) -> list[np.ndarray]:
        """Internal columns (the hidden one included for arity 0), rows lo..hi, as views."""
        return [c.view()[lo:hi] for c in self._cols]

    def columns(self, lo: int = 0, hi: int | None = None) -> list[np.ndarray]:
        """The relation's columns, rows lo..hi, as views."""
        return self.stored_columns(lo, hi)[: self.arity]

    def rows_for(self, since: int, until: int | None) -> tuple[int, int]:
        """The row range holding the rows inserted at generations since <= g < until."""
        lo = bisect.bisect_left(self._generations, since)
        row_lo = self._ends[lo - 1] if lo > 0 else 0
        if until is None:
            return row_lo, len(self)
        hi = bisect.bisect_left(self._generations, until)
        return row_lo, max(row_lo, self._ends[hi - 1] if hi > 0 else 0)

    def last_generation(self) -> int:
        return self._generations[-1] if self._generations else -1

    def insert(self, columns: list[np.ndarray], *, generation: int) -> int:
        """Append the batch rows that are not stored yet, stamped with generation; return their number."""
        columns = self._internal(columns)
        if len(columns[0]) == 0:
            return 0
        self._ensure_capacity(columns)
        rows = self.tuples.new_rows(columns)
        added = len(rows[0])
        if added == 0:
            return 0
        start = len(self)
        for store, values in zip(self._cols, rows):
            store.extend(values)
        if self._died is not None:
            self._died.extend(np.full(added, ALIVE, np.int64))
        self.tuples.record(rows, np.arange(start, start + added))
        self._stamp(generation)
        return added

    def _internal(self, columns: list[np.ndarray]) -> list[np.ndarray]:
        if self.arity == 0:
            return [np.zeros(len(columns[0]) if columns else 0, np.int64)]
        return [np.asarray(c, np.int64) for c in columns]

    def _ensure_capacity(self, columns: list[np.ndarray]) -> None:
        batch_max = max(int(c.max()) for c in columns)
        self._max_id = max(self._max_id, batch_max)
        if self.tuples.needs_rebuild(columns):
            live = np.flatnonzero(self.died() == ALIVE)
            self.tuples.rebuild([c[live] for c in self.stored_columns()], live, self._max_id)

    def _stamp(self, generation: int) -> None:
        if self._generations and generation < self._generations[-1]:
            raise ValueError(f"{self.name}: generation {generation} after {self._generations[-1]}")
        if self._generations and self._generations[-1] == generation:
            self._ends[-1] = len(self)
        else:
            self._generations.append(generation)
            self._ends.append(len(self))

    def delete(self, columns: list[np.ndarray], *, generation: int) -> int:
        """Mark the live rows equal to batch rows as deleted at ``generation``; return how many."""
        columns = self._internal(columns)
        if len(columns[0]) == 0 or len(self) == 0:
            return 0
        index = self.index(tuple(range(self._width)))
        _, rows = index.probe(columns, 0, len(self)).expand(0, len(columns[0]))
        died = self.died(allocate=True)
        rows = unique_sorted(rows[died[rows] == ALIVE])
        if not index.exact:
            rows = rows[self._same_as_some(rows, columns)]
        died[rows] = generation
        self.tuples.discard(self._rows_at(rows))
        self.deleted_rows += rows.size
        return int(rows.size)

    def _same_as_some(self, rows: np.ndarray, columns: list[np.ndarray]) -> np.ndarray:
        """For fingerprint indexes: which candidate rows really equal a batch row."""
        probe = TupleSet(self._width, lambda ids: [c[ids] for c in columns])
        probe.rebuild(columns, np.arange(len(columns[0])), max(self._max_id, 0))
        return probe.contains(self._rows_at(rows))

    def died(self, allocate: bool = False) -> np.ndarray:
        """The deleting generation of every row (ALIVE for live rows), as a writable view."""
        if self._died is None:
            if not allocate:
                return np.full(len(self), ALIVE, np.int64)
            self._died = GrowableArray(np.int64)
            self._died.extend(np.full(len(self), ALIVE, np.int64))
        return self._died.view()

    def death_mask(self, rows: np.ndarray, visible: int | None, deleted) -> np.ndarray | None:
        """Which of the given rows a scan with these death conditions reads (None: all of them)."""
        if deleted is None and self.deleted_rows == 0:
            return None
        died = self.died()[rows]
        if deleted is not None:
            lo, hi = deleted
            return (died >= lo) & (died < (ALIVE if hi is None else hi))
        return died == ALIVE if visible is None else died > visible

    def contains(self, columns: list[np.ndarray]) -> np.ndarray:
        """Which batch rows are stored."""
        columns = self._internal(columns)
        return self.tuples.contains(columns)

    def index(self, positions: tuple[int, ...]) -> SortedIndex:
        """The persistent index on the given column positions, brought up to date."""
        found = self._indexes.get(positions)
        if found is None:
            found = self._indexes[positions] = SortedIndex(positions)
        found.refresh(self.stored_columns())
        return found

    def nbytes(self) -> int:
        rows = sum(c.view().nbytes for c in self._cols)
        return rows + self.tuples.nbytes() + sum(i.nbytes() for i in self._indexes.values())
