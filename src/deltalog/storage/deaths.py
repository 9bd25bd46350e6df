"""Which rows of a :class:`~deltalog.storage.relation.Relation` are dead, as its views and counts see
them: the per-row death marks (allocated at the first deletion), the list of rows deleted now, and
counts and masks of a row range under a view's death conditions (``visible``: rows alive at that
generation; ``deleted``: rows that died in a window), answered in O(deleted rows) where possible."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from deltalog.storage.deathcounts import DeadBits, DeathCounts
from deltalog.storage.growable import GrowableArray
from deltalog.storage.uniques import sorted_unique

ALIVE = np.iinfo(np.int64).max
"""The death mark of a live row."""

DeadPart = tuple[int, int, np.ndarray]
"""Rows deleted (ascending), with the first and last generation they died at: a row revived since is still
listed (its mark is ALIVE), one that died again is listed again, in the part of that deletion."""


def dead_part(rows: np.ndarray, died: np.ndarray) -> DeadPart:
    """The part of these dead rows (ascending), their generations read off their death marks."""
    if rows.size == 0:
        return 0, -1, rows
    marks = died[rows]
    return int(marks.min()), int(marks.max()), rows


class RowDeaths:
    """Death marks, dead rows and death-aware counts of :class:`~deltalog.storage.relation.Relation`
    (its history, storage/history.py, builds on them)."""

    if TYPE_CHECKING:   # provided by Relation
        deleted_rows: int
        _died: GrowableArray | None
        _dead: list[DeadPart]
        _dead_exact: bool
        _deaths: DeathCounts
        _dead_bits: DeadBits | None
        _counts: dict[tuple, int]
        _dead_windows: dict[tuple, tuple[list[np.ndarray], int]]
        arity: int

        def __len__(self) -> int: ...
        def _rows_at(self, row_ids: np.ndarray) -> list[np.ndarray]: ...

    def died(self, allocate: bool = False) -> np.ndarray:
        """The deleting generation of every row (ALIVE for live rows), as a writable view."""
        if self._died is None:
            if not allocate:
                return np.full(len(self), ALIVE, np.int64)
            self._died = GrowableArray.filled(len(self), ALIVE, np.int64)
        return self._died.view()

    def dead_rows(self) -> np.ndarray:
        """The ids of the rows deleted now, ascending (kept small: compaction forgets them). Each deletion
        appends its rows ascending; they are merged here once (a stable sort merges the runs), not sorted
        by every scan of deleted rows (18 sorts of up to 1.4M ids, 0.1 s of a Claros-like deletion)."""
        if len(self._dead) != 1:
            parts = [part for part in self._dead if part[2].size]
            rows = np.sort(np.concatenate([p[2] for p in parts]), kind="stable") if parts else np.empty(0, np.int64)
            self._dead = [(min(p[0] for p in parts), max(p[1] for p in parts), rows) if parts else (0, -1, rows)]
        first, last, rows = self._dead[0]
        if not self._dead_exact and rows.size and self._died is not None:
            # a row that revived and died again is listed twice: once is what every count means
            rows = sorted_unique(rows[self._died.view()[rows] != ALIVE])
            self._dead = [(first, last, rows)]
        self._dead_exact = True
        return rows

    def _deaths_changed(self) -> None:
        """Rows died or revived: forget the counts and dead rows remembered."""
        self._counts.clear()
        self._dead_windows.clear()

    def dead_in(self, lo: int, hi: int, deleted: tuple[int, int | None]) -> tuple[list[np.ndarray], int]:
        """The rows lo..hi that died in the generation window ``deleted``, ascending, as columns (read-only)
        and their number: what a scan of deleted rows reads. Remembered, as counts are, until rows die or
        revive (appended rows are alive): several rules read the rows one deletion removed (Claros-like:
        ~470k ``relatedPlaces`` pairs, read 3 times an update, each time masking the death marks of all
        1.4-2.5M dead rows and gathering the pairs, 13-20 ms a time)."""
        key = (lo, hi, deleted)
        found = self._dead_windows.get(key)
        if found is None:
            rows = self._dead_during(lo, hi, deleted)
            mask = self.death_mask(rows, None, deleted)
            rows = rows if mask is None else rows[mask]
            found = self._rows_at(rows)[: self.arity], int(rows.size)
            for column in found[0]:
                column.flags.writeable = False   # shared by every scan until the next death
            if len(self._dead_windows) >= 64:   # windows asked of a relation that keeps growing
                self._dead_windows.clear()
            self._dead_windows[key] = found
        return found

    def _dead_during(self, lo: int, hi: int, deleted: tuple[int, int | None]) -> np.ndarray:
        """The rows lo..hi, ascending, of the parts of dead rows whose generations meet the window ``deleted``:
        a superset of the rows that died in it (a row that died again is in that deletion's part too), read
        without merging the parts (``dead_rows``): a Claros-like deletion reads the ~470k rows it deleted,
        not the 1.4-2.5M deleted before, merged and masked (~20 ms)."""
        top = ALIVE if deleted[1] is None else deleted[1]
        parts = [rows[rows.searchsorted(lo):rows.searchsorted(hi)]
                 for first, last, rows in self._dead if last >= deleted[0] and first < top]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return np.empty(0, np.int64)
        rows = np.sort(np.concatenate(parts), kind="stable")   # a timsort merges the parts' sorted runs
        return rows if self._dead_exact else sorted_unique(rows)   # (parts overlap only once rows revive)

    def count(self, lo: int, hi: int, visible: int | None, deleted) -> int:
        """Rows lo..hi a scan with these death conditions reads, in O(deleted rows) (remembered until
        rows die or revive: appending rows leaves the answer for a fixed range unchanged)."""
        if deleted is None and self.deleted_rows == 0:
            return hi - lo
        key = (lo, hi, visible, deleted)
        if key not in self._counts:
            if len(self._counts) >= 4096:   # a relation that only grows keeps asking new ranges
                self._counts.clear()
            self._counts[key] = self._count_dead_aware(lo, hi, visible, deleted)
        return self._counts[key]

    def _count_dead_aware(self, lo: int, hi: int, visible: int | None, deleted) -> int:
        if self._died is None:   # nothing ever deleted: no O(relation) array of ALIVE marks to build
            return 0 if deleted is not None else hi - lo
        if deleted is None and visible is None and lo == 0 and hi == len(self):   # every live row
            return hi - self.deleted_rows
        known = self._deaths.dead_among(lo, hi, visible, deleted)
        if known is not None:
            return known if deleted is not None else hi - lo - known
        dead = self.dead_rows()
        dead = dead[(dead >= lo) & (dead < hi)]
        if deleted is None and visible is None:   # no gather of death marks (random reads of a long array)
            return hi - lo - dead.size
        died = self._died.view()[dead]
        if deleted is not None:
            return int(np.count_nonzero((died >= deleted[0]) & (died < (ALIVE if deleted[1] is None else deleted[1]))))
        return hi - lo - (dead.size if visible is None else int(np.count_nonzero(died <= visible)))

    def death_mask(self, rows: np.ndarray, visible: int | None, deleted) -> np.ndarray | None:
        """Which of the given rows a scan with these death conditions reads (None: all of them)."""
        if deleted is None and self.deleted_rows == 0:
            return None
        if self._died is None:   # nothing ever deleted (see _count_dead_aware)
            return np.zeros(len(rows), bool)
        if deleted is None and visible is None:   # live rows: one bit each, not an 8-byte mark
            if self._dead_bits is None:
                self._dead_bits = DeadBits(len(self), self.dead_rows())
            return ~self._dead_bits.dead(rows)
        died = self._died.view()[rows]
        if deleted is not None:
            lo, hi = deleted
            return (died >= lo) & (died < (ALIVE if hi is None else hi))
        return died == ALIVE if visible is None else died > visible
