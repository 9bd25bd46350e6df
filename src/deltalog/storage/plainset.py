"""The ``set`` representation: a relation as a plain dictionary of tuples, for small relations.

Live tuples map to the generation that inserted them; deleted ones are kept aside with their
insertion and deletion generations until compaction. Nothing is append-only here: a revived
tuple moves back into the live dictionary, a rollback or compaction simply drops records, and
no row has a stable position. Views are answered by filtering the records on their generations
(docs/design.md, "Stored relations"), and keyed views index a snapshot of the view's rows.

It is the executable specification of storage/stored.py: running whole programs with every
relation stored this way (tests/test_representations.py) shows that the executor needs nothing
beyond the interface. It costs Python work per tuple, so it suits relations of a few thousand rows.

>>> from deltalog.storage.stored import View
>>> r = PlainSetRelation("e", 1)
>>> r.insert([np.array([1, 2])], generation=0), r.insert([np.array([2, 3])], generation=1)
(2, 1)
>>> r.delete([np.array([1])], generation=2), r.count_view(View()), r.count_view(View(visible=1))
(1, 2, 3)
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from deltalog.storage.relation import ALIVE
from deltalog.storage.stored import Chunk, KeyedView, ViewSpec


class PlainSetRelation:
    """Tuples of one predicate with their insertion and deletion generations, in Python dictionaries."""

    representation = "set"

    def __init__(self, name: str, arity: int) -> None:
        self.name, self.arity = name, arity
        self._live: dict[tuple, int] = {}                    # tuple -> generation that inserted it
        self._dead: dict[tuple, list[tuple[int, int]]] = {}  # tuple -> (inserted, deleted) records
        self._snapshot: tuple[list[np.ndarray], np.ndarray, np.ndarray] | None = None

    @property
    def deleted_rows(self) -> int:
        return sum(len(records) for records in self._dead.values())

    def _tuples(self, columns: list[np.ndarray]) -> list[tuple]:
        """The batch rows as tuples, in order, once each (arity 0: the one empty tuple if any row)."""
        if self.arity == 0:
            return [()] if len(columns[0]) else []
        return list(dict.fromkeys(zip(*(np.asarray(c).tolist() for c in columns[: self.arity]))))

    def _changed(self) -> None:
        self._snapshot = None

    # ---- changes ---------------------------------------------------------------------------------

    def insert(self, columns: list[np.ndarray], *, generation: int, revive_since: int | None = None) -> int:
        added = 0
        for row in self._tuples(columns):
            if row in self._live:
                continue
            records = self._dead.get(row, [])
            back = [r for r in records if revive_since is not None and r[1] >= revive_since]
            if back:   # keeps its insertion generation: "the old facts still there" stay one window
                records.remove(back[-1])
                self._live[row] = back[-1][0]
                if not records:
                    del self._dead[row]
            else:
                self._live[row] = generation
            added += 1
        self._changed()
        return added

    def delete(self, columns: list[np.ndarray], *, generation: int) -> int:
        removed = 0
        for row in self._tuples(columns):
            born = self._live.pop(row, None)
            if born is not None:
                self._dead.setdefault(row, []).append((born, generation))
                removed += 1
        self._changed()
        return removed

    def rollback(self, generation: int) -> None:
        for row, records in list(self._dead.items()):
            for born, died in list(records):
                if died >= generation:
                    records.remove((born, died))
                    if born < generation:
                        self._live[row] = born
            if not records:
                del self._dead[row]
        self._live = {row: born for row, born in self._live.items() if born < generation}
        self._changed()

    def compact(self) -> None:
        self._dead.clear()
        self._changed()

    # ---- views -----------------------------------------------------------------------------------

    def _records(self) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """Every record as columns, with its insertion and deletion generations (cached until a change)."""
        if self._snapshot is None:
            rows = list(self._live) + [row for row, records in self._dead.items() for _ in records]
            born = list(self._live.values()) + [b for records in self._dead.values() for b, _ in records]
            died = [ALIVE] * len(self._live) + [d for records in self._dead.values() for _, d in records]
            columns = [np.array([row[i] for row in rows], np.int64) for i in range(self.arity)]
            self._snapshot = columns, np.array(born, np.int64), np.array(died, np.int64)
        return self._snapshot

    def _selected(self, view: ViewSpec) -> np.ndarray:
        _, born, died = self._records()
        keep = born >= view.since
        if view.until is not None:
            keep &= born < view.until
        if view.deleted is not None:
            lo, hi = view.deleted
            return keep & (died >= lo) & (died < (ALIVE if hi is None else hi))
        return keep & (died == ALIVE if view.visible is None else died > view.visible)

    def scan(self, view: ViewSpec, chunk_rows: int | None = None) -> Iterator[Chunk]:
        keep = self._selected(view)
        columns = [c[keep] for c in self._records()[0]]
        n = int(keep.sum())
        step = chunk_rows or max(n, 1)
        for start in range(0, n, step):
            yield [c[start:start + step] for c in columns], min(step, n - start)

    def keyed(self, view: ViewSpec, positions: tuple[int, ...]) -> KeyedView:
        keep = self._selected(view)
        return KeyedView.over([c[keep] for c in self._records()[0]], positions, int(keep.sum()))

    def covers_live(self, view: ViewSpec) -> bool:
        return view.visible is None and view.deleted is None and self.count_view(view) == len(self._live)

    def contains(self, columns: list[np.ndarray]) -> np.ndarray:
        if self.arity == 0:
            return np.full(len(columns[0]), bool(self._live))
        rows = zip(*(np.asarray(c).tolist() for c in columns[: self.arity]))
        return np.fromiter((row in self._live for row in rows), bool, len(columns[0]))

    def holds_live(self, position: int, values: np.ndarray, visible: int | None = None) -> np.ndarray | None:
        return None   # (a reference representation: its callers take the keyed view)

    def lost_since(self, visible: int) -> list[np.ndarray] | None:
        return None   # (a reference representation: its callers scan the view)

    def count_view(self, view: ViewSpec) -> int:
        return int(self._selected(view).sum())

    def distinct_estimate(self, positions: tuple[int, ...]) -> int:
        columns = self._records()[0]
        return len(set(zip(*(columns[p].tolist() for p in positions)))) if positions else min(len(self._live), 1)

    def nbytes(self) -> int:
        return 100 * (len(self._live) + self.deleted_rows) * max(self.arity, 1)
