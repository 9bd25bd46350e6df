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
import itertools

import numpy as np

from deltalog.storage.deathcounts import DeadBits, DeathCounts
from deltalog.storage.growable import GrowableArray
from deltalog.storage.deaths import ALIVE, DeadPart, dead_part
from deltalog.storage.history import RowHistory
from deltalog.storage.index import Prober, SortedIndex
from deltalog.storage.livekeys import MAX_DEAD, MAX_ROWS, LiveKeyCounts
from deltalog.storage.row_scan import ScanBudget, ScanningIndex, may_scan
from deltalog.storage.rowmap import RowMap
from deltalog.storage.tupleset import TupleSet, pack, packs, radix_for
from deltalog.storage.uniques import sorted_unique
from deltalog.storage.windows import RowWindows

__all__ = ["ALIVE", "Relation"]

_LAYOUTS = itertools.count(1)
_NO_ROWS = np.empty(0, np.int64)
ROW_MAP_MAX_ROWS = 1 << 20
"""Relations in byte or bit maps (a hash set gives rows itself: ``TupleSet.take_rows``) up to this many rows find
the rows a deletion removes through a RowMap (storage/rowmap.py: one probe, no search of the full-row index's runs);
larger ones keep the index (or scans, row_scan.py): a map costs 32-64 bytes a row against the index's 16."""


class Relation(RowWindows, RowHistory):
    """Rows of one predicate (arity 0 is stored as one hidden all-zero column); the ``rows``
    representation of storage/stored.py (its views: storage/windows.py; rollback, compaction and
    what saves read: storage/history.py; which rows are dead, as views and counts see them:
    storage/deaths.py)."""

    def __init__(self, name: str, arity: int) -> None:
        self.name, self.arity = name, arity
        self._reset()

    def _reset(self) -> None:
        """Empty, with a new layout (storage/history.py renumbers rows by starting afresh)."""
        arity = self.arity
        self._width = max(arity, 1)
        self._cols = [GrowableArray(np.int64) for _ in range(self._width)]
        self._died: GrowableArray | None = None   # per row: the generation that deleted it, ALIVE if none
        # (allocated at the first delete: relations that never lose rows pay nothing for it)
        self.deleted_rows = 0
        self._dead: list[DeadPart] = []          # row ids deleted so far (revived ones are filtered out)
        self._dead_exact = True                  # no revived row hides in _dead (a revive clears it)
        self._deaths = DeathCounts()             # dead rows per death generation (counts without death marks)
        self._dead_bits: DeadBits | None = None  # a bit per row, built at the first scan of live rows
        self._latest_death: int | None = None    # at least the latest generation a live-now-dead row died at
        self._counts: dict[tuple, int] = {}      # count() answers since the last deletion or revival
        self._dead_windows: dict[tuple, tuple[list[np.ndarray], int]] = {}   # dead_in() answers, as long
        self._generations: list[int] = []
        self._ends: list[int] = []
        self._max_id = -1
        self.tuples = TupleSet(self._width, self._rows_at)
        self._indexes: dict[tuple[int, ...], SortedIndex] = {}
        self._budgets: dict[tuple[int, ...], ScanBudget] = {}   # scans instead of unbuilt indexes (row_scan.py)
        self._sampled: dict[tuple[int, ...], tuple[int, int]] = {}   # positions -> (rows, distinct estimate)
        self._row_map: RowMap | None = None   # packed row -> its row id, for rows 0.._mapped (and revivals)
        self._row_map_radix = 0
        self._mapped = 0
        self._live_keys: dict[int, LiveKeyCounts] = {}   # position -> live rows per value (livekeys.py)
        # Incremental persistence (storage/persist.py) writes only what changed since a save: rows past
        # the saved length, and the death marks of the rows a delete or revive touched (the journal).
        # ``layout`` changes whenever row ids are renumbered (compaction, rollback: _reset runs again),
        # which makes the next save write the relation whole.
        self.layout = next(_LAYOUTS)
        self._died_journal: list[np.ndarray] = []
        self._journal_rows = 0
        self.journal_overflow = False    # the journal outgrew the relation: save every death mark instead

    @property
    def max_id(self) -> int:
        """The largest constant id stored (-1 when empty; the hidden column of arity 0 holds zeros)."""
        return self._max_id

    def __len__(self) -> int:
        return self._cols[0]._size   # (not len(): ~500 calls a small update, each one Python call less)

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
        generations = self._generations
        if until is None and (not generations or since <= generations[0]):   # every row: most views, no search
            return 0, self._cols[0]._size
        lo = bisect.bisect_left(generations, since)
        row_lo = self._ends[lo - 1] if lo > 0 else 0
        if until is None:
            return row_lo, len(self)
        hi = bisect.bisect_left(self._generations, until)
        return row_lo, max(row_lo, self._ends[hi - 1] if hi > 0 else 0)

    def last_generation(self) -> int:
        return self._generations[-1] if self._generations else -1

    def insert(self, columns: list[np.ndarray], *, generation: int, revive_since: int | None = None) -> int:
        """Store the batch rows that are not live yet; return their number. A row deleted at a
        generation >= ``revive_since`` comes back to life instead of being appended again (so that
        "the facts of the old state that are still there" stays one scan); the others are appended,
        stamped with ``generation``."""
        columns = self._internal(columns)
        if len(columns[0]) == 0:
            return 0
        self._ensure_capacity(columns)
        reviving = revive_since is not None and self.deleted_rows > 0
        recorded = None if reviving else self.tuples.add_new(columns)
        rows = self.tuples.new_rows(columns) if recorded is None else recorded
        revived = 0
        if revive_since is not None and reviving and len(rows[0]):
            rows, revived = self._revive(rows, revive_since)
        added = len(rows[0])
        if added == 0:
            return revived
        start = len(self)
        for store, values in zip(self._cols, rows):
            store.extend(values)
        if self._died is not None:
            self._died.extend(np.full(added, ALIVE, np.int64))
        if self._dead_bits is not None:
            self._dead_bits.grow(len(self))
        if recorded is None:
            self.tuples.record(rows, np.arange(start, start + added))
        self._stamp(generation)
        return added + revived

    def _internal(self, columns: list[np.ndarray]) -> list[np.ndarray]:
        if self.arity == 0:
            return [np.zeros(len(columns[0]) if columns else 0, np.int64)]
        return [np.asarray(c, np.int64) for c in columns]

    def _ensure_capacity(self, columns: list[np.ndarray]) -> None:
        batch_max = max(int(c.max()) for c in columns)
        self._max_id = max(self._max_id, batch_max)
        if self.tuples.needs_rebuild(columns):
            if len(self) == 0:   # a new relation (an update's scratch relations: ~40 a small deletion)
                self.tuples.rebuild([], _NO_ROWS, self._max_id, expected_rows=len(columns[0]))
                return
            live, rows = self._live_rows()
            self.tuples.rebuild(rows, live, self._max_id, expected_rows=live.size + len(columns[0]))

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
        died = self.died(allocate=True)
        rows = self.tuples.take_rows(columns, self._live_rows)
        if rows is None:   # a byte or bit map: the rows are found by their keys or an index
            rows = self._live_rows_equal_to(columns, died)
            self.tuples.discard(self._rows_at(rows))
        died[rows] = generation
        self._deaths.died(generation, rows)
        self._keys_changed(rows, -1)
        if self._dead_bits is not None:
            self._dead_bits.mark(rows, dead=True)
        if self._latest_death is not None:
            self._latest_death = max(self._latest_death, generation)
        self._journal(rows)
        self._deaths_changed()
        self.deleted_rows += rows.size
        self._dead.append((generation, generation, rows))
        return int(rows.size)

    def _live_rows(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """The ids of the live rows and their columns (the stored columns themselves while no row is dead:
        a first deletion's map of row ids gathers no copy of them)."""
        if not self.deleted_rows:
            return np.arange(len(self)), self.stored_columns()
        live = (self.died() == ALIVE).nonzero()[0]
        return live, self._rows_at(live)

    def _live_rows_equal_to(self, columns: list[np.ndarray], died: np.ndarray) -> np.ndarray:
        """The live rows equal to some batch row, ascending."""
        rows, exact = self._rows_equal_to(columns)
        rows = sorted_unique(rows[died[rows] == ALIVE])
        return rows if exact else rows[self._same_as_some(rows, columns)]

    def _rows_equal_to(self, columns: list[np.ndarray]) -> tuple[np.ndarray, bool]:
        """Stored rows equal to some batch row, and whether exactly (else by fingerprint): the rows the
        RowMap gives, or a probe of the full-row index, answered by a scan for small deletions from a
        large relation until the index pays (``probed_by``, row_scan.py)."""
        if (row_map := self._current_row_map()) is not None:
            radix = self._row_map_radix
            inside = np.logical_and.reduce([(c >= 0) & (c < radix) for c in columns])
            rows = row_map.rows_of(pack([np.where(inside, c, 0) for c in columns], radix))
            return rows[inside & (rows >= 0)], True
        prober = self.probed_by(tuple(range(self._width)))
        rows = prober.probe(columns, 0, len(self)).expand(0, len(columns[0]))[1]
        return rows, prober.exact

    def _current_row_map(self) -> RowMap | None:
        """The RowMap, covering every row (None for a relation past ROW_MAP_MAX_ROWS, or whose rows do not
        pack into one int64 key): made at the first deletion, made again when ids outgrow its radix."""
        if len(self) > ROW_MAP_MAX_ROWS:
            self._row_map = None
            return None
        if self._row_map is None or self._max_id >= self._row_map_radix:
            radix = radix_for(self._max_id)
            if not packs(radix, self._width):
                return None
            self._row_map, self._row_map_radix, self._mapped = RowMap(), radix, 0
        if self._mapped < len(self):
            self._map_rows(self._row_map, self._mapped, len(self))
        return self._row_map

    def _map_rows(self, row_map: RowMap, lo: int, hi: int) -> None:
        """Map the keys of rows lo..hi: from row 0, of the live rows (distinct tuples; a dead row maps to
        nothing a deletion wants); past rows already mapped, each key to the last row that holds it (the
        map's ``assign`` keeps a repeated key's last row: no row in between was revived, since a revival
        maps its rows at once, so that row is the one made live last, and a dead one shadows no live row)."""
        radix = self._row_map_radix
        if lo == 0:
            live = (self.died()[:hi] == ALIVE).nonzero()[0] if self.deleted_rows else np.arange(hi)
            row_map.assign(pack(self._rows_at(live), radix), live)
        else:
            row_map.assign(pack(self.stored_columns(lo, hi), radix), np.arange(lo, hi))
        self._mapped = hi

    def _rows_revived(self, rows: np.ndarray) -> None:
        """Revived rows hold their tuples again: the RowMap, if any, maps their keys back to them, and the
        live counts of values count them again."""
        self._keys_changed(rows, 1)
        if self._row_map is not None and (row_map := self._current_row_map()) is not None:
            row_map.assign(pack(self._rows_at(rows), self._row_map_radix), rows)

    def _same_as_some(self, rows: np.ndarray, columns: list[np.ndarray]) -> np.ndarray:
        """For fingerprint indexes: which candidate rows really equal a batch row."""
        probe = TupleSet(self._width, lambda ids: [c[ids] for c in columns])
        probe.rebuild(columns, np.arange(len(columns[0])), max(self._max_id, 0))
        return probe.contains(self._rows_at(rows))

    @classmethod
    def restore(cls, name: str, arity: int, columns: list[np.ndarray], generations: list[int],
                ends: list[int], died: np.ndarray | None = None) -> "Relation":
        """A relation from saved rows, generation marks and (if any row is deleted) death marks
        (see storage/persist.py)."""
        relation = cls(name, arity)
        for store, values in zip(relation._cols, columns):
            store.extend(values)
        if len(columns[0]) != (ends[-1] if ends else 0) or any(len(c) != len(columns[0]) for c in columns):
            raise ValueError(f"relation {name}: {len(columns[0])} rows, but generation marks end at "
                             f"{ends[-1] if ends else 0}")
        relation._generations, relation._ends = list(generations), list(ends)
        relation._max_id = max((int(c.max()) for c in columns if c.size), default=-1)
        live = np.arange(len(relation))
        if died is not None and (died != ALIVE).any():
            if len(died) != len(relation):
                raise ValueError(f"relation {name}: {len(died)} death marks for {len(relation)} rows")
            relation._died = GrowableArray(np.int64)
            relation._died.extend(died)
            dead = (died != ALIVE).nonzero()[0]
            relation._dead = [dead_part(dead, died)]
            relation.deleted_rows = int(dead.size)
            relation._deaths.rebuild(dead, died[dead])
            live = (died == ALIVE).nonzero()[0]
        if len(relation):   # (the tuple set at its first use: a query never asks it)
            relation.tuples.defer(live, relation._max_id)
        return relation

    def holds_live(self, position: int, values: np.ndarray, visible: int | None = None) -> np.ndarray | None:
        """Which values some live row holds at ``position``, from counts kept current (storage/livekeys.py), or
        with ``visible``, some row not deleted by the end of that generation: the live ones and the few an
        update deleted since (``dead_in``, remembered until rows die or revive). None where the relation keeps
        no counts (too few rows or too many, too many ids for its rows) or, for ``visible``, too many rows died
        since."""
        if len(self) > MAX_ROWS:   # (grown past the size that pays: no more counts)
            self._live_keys.clear()
            return None
        counts = self._live_keys.get(position)
        if counts is None:   # made at the first question that fits (the counts then follow the rows)
            space = radix_for(self._max_id)
            if not LiveKeyCounts.fits(space, len(self)):
                return None
            counts = self._live_keys[position] = LiveKeyCounts(space)
        values = np.asarray(values, np.int64)
        found = counts.holds(self._cols[position].view(), self._died.view() if self._died is not None else None,
                             values)
        if visible is not None and self.deleted_rows:
            if (dead := self.lost_since(visible)) is None:
                return None
            if dead[position].size:
                found |= np.isin(values, dead[position])
        return found

    def lost_since(self, visible: int) -> list[np.ndarray] | None:
        """The rows that died after generation ``visible`` (``dead_in``, remembered until rows die or revive),
        None past ``MAX_DEAD`` of them (the view's own scan then costs about as much)."""
        if not self.deleted_rows:
            return [_NO_ROWS] * self.arity
        dead, n = self.dead_in(0, len(self), (visible + 1, None))
        return None if n > MAX_DEAD else dead

    def _keys_changed(self, rows: np.ndarray, by: int) -> None:
        for position, counts in self._live_keys.items():
            counts.changed(self._cols[position].view(), rows, by)

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

    def probed_by(self, positions: tuple[int, ...]) -> Prober:
        """What a keyed view on these positions probes: the index, or scans while it would not pay yet."""
        if positions in self._indexes or not positions or not may_scan(len(self)):
            return self.index(positions)
        return ScanningIndex(self.stored_columns(), positions, self._max_id,
                             self._budgets.setdefault(positions, ScanBudget()), lambda: self.index(positions))

    def nbytes(self) -> int:
        rows = sum(c.view().nbytes for c in self._cols)
        mapped = self._row_map.nbytes() if self._row_map is not None else 0
        return rows + self.tuples.nbytes() + sum(i.nbytes() for i in self._indexes.values()) + mapped
