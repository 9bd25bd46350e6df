"""How many live rows of a relation hold each value of one column: a semi- or anti-join keyed on that column
alone against the relation's live rows is then one gather per probe row.

DRed's check before deleting asks, for each rule that projects a body atom away (``course(C) :-
teacherOf(X, C)``, ``person(X) :- advisor(X, Y)``), whether some live row of the atom's relation holds the
candidate at the head's column (backends/local/exists.py). Through the relation's index that is a refresh
of its sorted runs with the rows the last re-add appended, a binary search per run and a check of the
matched rows' death marks, rank by rank: 50-270 us whatever the candidates (a 1,000-fact LUBM-like
deletion asks ~14 such checks; docs/benchmarks.md, stop 22). Here the answer is kept current instead: a
count per value, lowered when rows die, raised when they revive, and raised for appended rows at the next
read (rows below ``covered`` are counted as they live now, later ones when read).

Counts are kept only where the values' space is small against the relation (``fits``): 4 bytes a value.
"""

from __future__ import annotations

import numpy as np

from deltalog.storage.deaths import ALIVE

MIN_ROWS = 256
"""Smaller relations keep no counts (their index is cheap to probe)."""
SMALL_SPACE = 1 << 20
"""A space of values up to this size (4 MB of counts) is counted for any relation of ``MIN_ROWS`` rows."""
DENSITY = 4
"""Larger spaces are counted when they hold at most this many values per row of the relation (16 bytes a row,
as a sorted index's run)."""
MAX_SPACE = 1 << 24
"""Largest space of values counted (64 MB)."""
MAX_ROWS = 1 << 20
"""Larger relations keep no counts: keeping them costs a scatter per row changed, and a large relation's
updates change many rows (Claros-like ``relatedPlaces``: 4.8M rows, ~700k dying and reviving an update,
31 ms of counts against a few index probes of ~8k values)."""
MAX_DEAD = 1 << 16
"""The old state (``visible``) is answered while at most this many rows died since (else the index)."""


class LiveKeyCounts:
    """Live rows per value of one column, over rows ``0..covered``."""

    def __init__(self, space: int) -> None:
        self.counts = np.zeros(space, np.int32)
        self.covered = 0

    @staticmethod
    def fits(space: int, rows: int) -> bool:
        return MIN_ROWS <= rows <= MAX_ROWS and space <= MAX_SPACE and (space <= SMALL_SPACE or space <= DENSITY * rows)

    def changed(self, column: np.ndarray, rows: np.ndarray, by: int) -> None:
        """Rows died (``by`` -1) or revived (+1): the counted ones (below ``covered``) change their values'
        counts; later rows are counted as they live when read."""
        rows = rows[rows < self.covered]
        if rows.size * 8 >= self.counts.size:
            self.counts += by * np.bincount(column[rows], minlength=self.counts.size).astype(np.int32)
        elif rows.size:
            np.add.at(self.counts, column[rows], by)

    def holds(self, column: np.ndarray, died: np.ndarray | None, values: np.ndarray) -> np.ndarray:
        """Per value: does a live row hold it (``column``: the relation's column, ``died``: its death marks,
        None while no row died)? Rows appended since the last read are counted first."""
        self._catch_up(column, died)
        counts = self.counts
        inside = (values >= 0) & (values < counts.size)
        return (counts[np.where(inside, values, 0)] > 0) & inside

    def _catch_up(self, column: np.ndarray, died: np.ndarray | None) -> None:
        rows = column.size
        if self.covered == rows:
            return
        values = column[self.covered:rows]
        if died is not None:
            values = values[died[self.covered:rows] == ALIVE]
        self.covered = rows
        if values.size == 0:
            return
        top = int(values.max())
        if top >= self.counts.size:   # new values past the space: room for them, and headroom
            grown = np.zeros(max(top + 1, self.counts.size + self.counts.size // 4), np.int32)
            grown[:self.counts.size] = self.counts
            self.counts = grown
        if values.size * 8 >= self.counts.size:
            self.counts += np.bincount(values, minlength=self.counts.size).astype(np.int32)
        else:
            np.add.at(self.counts, values, 1)
