"""How the append-only ``rows`` representation (storage/relation.py) answers views.

Rows are only appended and stamped in generation order, so a generation window ``[since, until)``
is one contiguous row range: "old", "delta" and "full" are zero-copy slices of the columns, and
death conditions filter that range through the per-row death marks.
"""

from __future__ import annotations

from functools import partial
from typing import Iterator, Protocol

import numpy as np

from deltalog.storage.growable import GrowableArray
from deltalog.storage.index import Prober, SortedIndex
from deltalog.storage.stored import Chunk, KeyedView, ViewSpec
from deltalog.storage.tupleset import pack
from deltalog.storage.uniques import sorted_unique

SAMPLE_ROWS = 1 << 14
"""Rows sampled for a distinct-key estimate when no index answers it."""


class _Rows(Protocol):
    """What the view half asks of the row half (:class:`~deltalog.storage.relation.Relation`)."""

    def __len__(self) -> int: ...
    def rows_for(self, since: int, until: int | None) -> tuple[int, int]: ...
    def dead_rows(self) -> np.ndarray: ...
    def dead_in(self, lo: int, hi: int, deleted: tuple[int, int | None]) -> tuple[list[np.ndarray], int]: ...
    def death_mask(self, rows: np.ndarray, visible: int | None, deleted) -> np.ndarray | None: ...
    def columns(self, lo: int = 0, hi: int | None = None) -> list[np.ndarray]: ...
    def stored_columns(self, lo: int = 0, hi: int | None = None) -> list[np.ndarray]: ...
    def index(self, positions: tuple[int, ...]) -> SortedIndex: ...
    def probed_by(self, positions: tuple[int, ...]) -> Prober: ...
    def count(self, lo: int, hi: int, visible: int | None, deleted) -> int: ...
    def _sample_distinct(self, n: int, positions: tuple[int, ...]) -> int: ...

    _indexes: dict[tuple[int, ...], SortedIndex]
    _sampled: dict[tuple[int, ...], tuple[int, int]]
    _cols: list[GrowableArray]
    _max_id: int


class RowWindows:
    """The view half of :class:`~deltalog.storage.relation.Relation` (see storage/stored.py); its
    methods run on a :class:`_Rows`."""

    representation = "rows"

    def scan(self: _Rows, view: ViewSpec, chunk_rows: int | None = None) -> Iterator[Chunk]:
        lo, hi = self.rows_for(view.since, view.until)
        if view.deleted is not None:   # deleted rows are few: read them directly, not the whole window
            columns, n = self.dead_in(lo, hi, view.deleted)
            yield list(columns), n
            return
        step = chunk_rows or max(hi - lo, 1)
        for start in range(lo, hi, step):
            stop = min(hi, start + step)
            columns, n = self.columns(start, stop), stop - start
            alive = self.death_mask(np.arange(start, stop), view.visible, view.deleted)
            if alive is not None:
                columns, n = [c[alive] for c in columns], int(alive.sum())
            yield columns, n

    def keyed(self: _Rows, view: ViewSpec, positions: tuple[int, ...]) -> KeyedView:
        lo, hi = self.rows_for(view.since, view.until)
        return KeyedView(self.stored_columns(), self.probed_by(positions), lo, hi,
                         partial(self.death_mask, visible=view.visible, deleted=view.deleted))

    def covers_live(self: _Rows, view: ViewSpec) -> bool:
        if view.visible is not None or view.deleted is not None:
            return False
        lo, hi = self.rows_for(view.since, view.until)
        return lo == 0 and hi == len(self)

    def count_view(self: _Rows, view: ViewSpec) -> int:
        lo, hi = self.rows_for(view.since, view.until)
        return self.count(lo, hi, view.visible, view.deleted)

    def distinct_estimate(self: _Rows, positions: tuple[int, ...]) -> int:
        """Distinct values of some columns: exact from an existing index, else estimated from an evenly
        spread sample (planning must not build indexes it may never use)."""
        n = len(self)
        if n == 0:
            return 0
        found = self._indexes.get(positions)
        if found is not None and found.runs:
            return found.distinct()
        sampled = self._sampled.get(positions)   # a sample's answer stands until the size doubles or halves
        if sampled is not None and sampled[0] < 2 * n and n < 2 * sampled[0]:
            return sampled[1]
        self._sampled[positions] = (n, self._sample_distinct(n, positions))
        return self._sampled[positions][1]

    def _sample_distinct(self: _Rows, n: int, positions: tuple[int, ...]) -> int:
        step = max(1, n // SAMPLE_ROWS)
        keys = pack([self._cols[p].view()[::step] for p in positions], max(self._max_id + 1, 1)) \
            if positions else np.zeros(1, np.int64)
        seen = sorted_unique(keys).size
        sampled = keys.size
        return n if seen == sampled else min(n, max(seen, int(seen * (n / sampled) ** 0.5)))
