"""The history of a ``rows`` relation (storage/relation.py): undoing it, forgetting it, and saving it.

``rollback`` drops the rows inserted at or after a generation and revives those deleted since
(a failed update leaves no trace); an insertion with ``revive_since`` brings back the deleted rows it
re-adds (DRed re-deriving what it overdeleted) instead of appending them again; ``compact`` forgets
deleted rows for good. Both keep the insertion generations of the rows they keep. Incremental
persistence (storage/persist.py) reads the generation marks, the death marks and the *journal* of rows
whose death mark changed since the last save, so that an update's segment holds only what changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from deltalog.storage.deaths import ALIVE, RowDeaths, dead_part
from deltalog.storage.growable import GrowableArray
from deltalog.storage.index import SortedIndex
from deltalog.storage.tupleset import TupleSet
from deltalog.storage.uniques import sorted_unique


REVIVE_OWN_INDEX = 8
"""Rows deleted since a revival's generation get an index of their own below 1/8 of the relation."""


class RowHistory(RowDeaths):
    """Rollback, revival, compaction and the saved history of :class:`~deltalog.storage.relation.Relation`."""

    if TYPE_CHECKING:   # provided by Relation (the death state's attributes: RowDeaths)
        name: str
        arity: int
        tuples: TupleSet
        layout: int
        journal_overflow: bool
        _cols: list[GrowableArray]
        _generations: list[int]
        _ends: list[int]
        _max_id: int
        _died_journal: list[np.ndarray]
        _journal_rows: int
        _latest_death: int | None
        _width: int
        _indexes: dict[tuple[int, ...], SortedIndex]

        def _reset(self) -> None: ...
        def _rows_at(self, row_ids: np.ndarray) -> list[np.ndarray]: ...
        def _rows_revived(self, rows: np.ndarray) -> None: ...
        def _stamp(self, generation: int) -> None: ...
        def stored_columns(self, lo: int = 0, hi: int | None = None) -> list[np.ndarray]: ...
        def rows_for(self, since: int, until: int | None) -> tuple[int, int]: ...
        def index(self, positions: tuple[int, ...]) -> SortedIndex: ...

    # ---- reviving rows an update deleted (Relation.insert with ``revive_since``) ----------------

    def _revive(self, rows: list[np.ndarray], since: int) -> tuple[list[np.ndarray], int]:
        """Bring back rows deleted at generations >= since that equal batch rows; return the rest."""
        n = len(rows[0])
        probe_idx, found, exact = self._deleted_since(rows, since)
        if not exact:
            keep = np.logical_and.reduce([c[found] == r[probe_idx] for c, r in zip(self.stored_columns(), rows)])
            probe_idx, found = probe_idx[keep], found[keep]
        if found.size == 0:
            return rows, 0
        died = self.died()
        self._deaths.revived(died[found])
        died[found] = ALIVE
        if self._dead_bits is not None:
            self._dead_bits.mark(found, dead=False)
        self._journal(found)
        self._dead_exact = False
        self._deaths_changed()
        self.deleted_rows -= found.size
        self.tuples.record(self._rows_at(found), found)
        self._rows_revived(found)
        rest = np.ones(n, bool)
        rest[probe_idx] = False
        return [c[rest] for c in rows], int(found.size)

    def _deleted_since(self, rows: list[np.ndarray], since: int) -> tuple[np.ndarray, np.ndarray, bool]:
        """(batch row, stored row) pairs of batch rows that may equal a row deleted at a generation >=
        since, and whether the keys were compared exactly. Those rows are usually few against the
        relation (DRed re-adding what an update deleted), so they get an index of their own instead of
        a probe of the relation's full-key index per batch row (a random access into DAG-R's 22M-row
        index each: 0.35 s for 234k re-added pairs)."""
        dead, died = self.dead_rows(), self.died()
        if self._latest_death is None:   # revivals and rollbacks only lower it: kept until a rebuild
            self._latest_death = int(died[dead].max(initial=-1))
        recent = dead[died[dead] >= since] if self._latest_death >= since else dead[:0]
        if recent.size == 0:
            return np.empty(0, np.int64), np.empty(0, np.int64), True
        if recent.size * REVIVE_OWN_INDEX < len(self):
            index = SortedIndex(tuple(range(self._width)))
            index.refresh(self._rows_at(recent))
            probe_idx, at = index.probe(rows, 0, recent.size).expand(0, len(rows[0]))
            return probe_idx, recent[at], index.exact
        full = self.index(tuple(range(self._width)))
        probe_idx, found = full.probe(rows, 0, len(self)).expand(0, len(rows[0]))
        keep = (died[found] >= since) & (died[found] != ALIVE)
        return probe_idx[keep], found[keep], full.exact

    # ---- what a save reads ---------------------------------------------------------------------

    def generation_marks(self) -> tuple[list[int], list[int]]:
        """The generations that inserted rows, and the row count after each."""
        return list(self._generations), list(self._ends)

    def death_marks(self) -> np.ndarray | None:
        """Every row's death mark, or None while no row was ever deleted (for saving)."""
        return None if self._died is None else self._died.view()

    def _journal(self, rows: np.ndarray) -> None:
        """Remember rows whose death mark changed, until a save takes them (bounded by the relation's size:
        past it, the next save writes all death marks, which costs no more)."""
        if self.journal_overflow or rows.size == 0:
            return
        self._journal_rows += rows.size
        if self._journal_rows > max(len(self) // 4, 1024):
            self._died_journal, self._journal_rows, self.journal_overflow = [], 0, True
        else:
            self._died_journal.append(rows)

    def died_journal(self) -> tuple[np.ndarray | None, int]:
        """The rows whose death marks changed since the last :meth:`forget_journal` (None: unknown, take
        all), and a mark to pass to :meth:`forget_journal` once they are saved."""
        if self.journal_overflow:
            return None, -1
        rows = np.concatenate(self._died_journal) if self._died_journal else np.empty(0, np.int64)
        return sorted_unique(rows), len(self._died_journal)

    def forget_journal(self, mark: int) -> None:
        """The journal's first ``mark`` entries are saved (-1: an overflowed journal was saved whole)."""
        if mark < 0:
            self.journal_overflow = False
            self._died_journal, self._journal_rows = [], 0
            return
        del self._died_journal[:mark]
        self._journal_rows = sum(r.size for r in self._died_journal)

    # ---- undoing and forgetting --------------------------------------------------------------------

    def rollback(self, generation: int) -> None:
        """Undo everything done at generations >= ``generation``: drop the rows inserted since, and
        bring back the rows deleted since (an update that failed leaves no trace)."""
        keep_rows = self.rows_for(0, generation)[1]
        if keep_rows == len(self):
            self._revive_deleted_since(generation)
            return
        died = self.died()
        died[died >= generation] = ALIVE
        keep = np.zeros(len(self), bool)
        keep[:keep_rows] = True
        self._rebuild(keep, died)

    def _revive_deleted_since(self, generation: int) -> None:
        """Rollback when no row was appended since ``generation``: only deletion marks to undo, so the
        rows, their generations and the indexes stay as they are. An abandoned DRed run (auto's
        overdeletion budget) leaves exactly this; rebuilding the relation instead took 0.65 s of the
        bail-out on a 4,000-edge chain's 8M ``path`` rows, and the next update rebuilt the indexes."""
        if self._died is None or not self.deleted_rows:
            return
        died = self._died.view()
        dead = self.dead_rows()
        back = dead[died[dead] >= generation]
        if back.size == 0:
            return
        self._deaths.revived(died[back])
        died[back] = ALIVE
        if self._dead_bits is not None:
            self._dead_bits.mark(back, dead=False)
        self._journal(back)      # a saved store must learn that these rows live again
        self.tuples.record(self._rows_at(back), back)
        self._rows_revived(back)
        self.deleted_rows -= int(back.size)
        self._dead = [dead_part(dead[died[dead] != ALIVE], died)]
        self._dead_exact = True
        self._deaths_changed()

    def compact(self) -> None:
        """Forget deleted rows for good (keeping the insertion generations of the others).

        Kept rows are renumbered (new id = kept rows before it), a monotone map: the tuple set keeps its
        table and only renumbers the row ids it holds, each index keeps its sorted runs minus the dead
        rows (order preserved, no sort), so nothing is re-hashed or re-sorted. Rebuilding them instead
        cost Claros-like maintenance ~0.6 of a rematerialisation each ~9th update (docs/benchmarks.md,
        stop 19)."""
        died = self.died()
        keep = died == ALIVE
        if not self.deleted_rows or not self.tuples.renumberable():
            self._rebuild(keep, died)   # (no dead row: a new layout and no death marks, as saves expect)
            return
        # kept rows among the first i rows, and row i's new id (-1: dropped), 4 bytes a row when ids fit:
        # random gathers from it miss less, and one cumsum writes it (no int64 temporaries)
        kept_before = np.zeros(len(self) + 1, np.int32 if len(self) < 2**31 else np.int64)
        np.cumsum(keep, out=kept_before[1:])
        new_id = kept_before[1:] - 1
        new_id[~keep] = -1
        columns, kept = self.stored_columns(), np.flatnonzero(keep)
        marks = [(g, int(kept_before[end])) for g, end in zip(self._generations, self._ends)]
        tuples, indexes = self.tuples, self._indexes
        self._reset()
        for store, values in zip(self._cols, columns):
            store.extend_at(values, kept)
        rows = [store.view() for store in self._cols]
        for (generation, end), (_, before) in zip(marks, [(0, 0)] + marks[:-1]):
            if end > before:   # (a generation whose rows all died leaves no mark, as in _rebuild)
                self._generations.append(generation)
                self._ends.append(end)
        self._max_id = max((int(c.max()) for c in rows if c.size), default=-1)
        tuples.renumber(new_id)
        self.tuples = tuples
        for positions in list(indexes):   # each old index dropped once renumbered (a lower peak of memory)
            self._indexes[positions] = indexes.pop(positions).renumbered(new_id, kept_before)

    def _rebuild(self, keep: np.ndarray, died: np.ndarray) -> None:
        """Start afresh with the kept rows, their insertion generations and deletion marks."""
        rows = self.stored_columns()
        marks = list(zip(self._generations, [0] + self._ends[:-1], self._ends))
        self._reset()
        if (died[keep] != ALIVE).any():
            self._died = GrowableArray(np.int64)
        for generation, lo, hi in marks:
            part = np.flatnonzero(keep[lo:hi]) + lo
            if part.size == 0:
                continue
            for store, values in zip(self._cols, rows):
                store.extend(values[part])
            if self._died is not None:
                self._died.extend(died[part])
            self._stamp(generation)
        dead = np.empty(0, np.int64) if self._died is None else np.flatnonzero(self._died.view() != ALIVE)
        self.deleted_rows = int(dead.size)
        self._dead = [dead_part(dead, self.died())] if self.deleted_rows else []
        if self._died is not None:
            self._deaths.rebuild(dead, self._died.view()[dead])
        self._max_id = max((int(c.max()) for c in self.stored_columns() if c.size), default=-1)
        if len(self):
            live = np.flatnonzero(self.died() == ALIVE)
            self.tuples.rebuild([c[live] for c in self.stored_columns()], live, self._max_id)

