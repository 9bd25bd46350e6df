"""Which values a relation's live rows hold, kept as counts (storage/livekeys.py): the half of
:class:`~deltalog.storage.relation.Relation` that answers "does some live (or, for an old state, some
not-yet-deleted) row hold this value here?" without an index, and keeps the counts current as rows die
and revive.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from deltalog.storage.growable import GrowableArray
from deltalog.storage.livekeys import MAX_DEAD, MAX_ROWS, LiveKeyCounts
from deltalog.storage.tupleset import radix_for

_NO_ROWS = np.empty(0, np.int64)


class _Rows(Protocol):
    """What the live-value half asks of the row half."""

    def __len__(self) -> int: ...
    def dead_in(self, lo: int, hi: int, deleted: tuple[int, int | None]) -> tuple[list[np.ndarray], int]: ...

    arity: int
    deleted_rows: int
    _cols: list[GrowableArray]
    _died: GrowableArray | None
    _max_id: int
    _live_keys: dict[int, LiveKeyCounts]


class LiveValues:
    """Live counts per value and the rows lost since a generation, for semi- and anti-joins keyed on one
    column (backends/local/exists.py); its methods run on a :class:`_Rows`."""

    def holds_live(self: _Rows, position: int, values: np.ndarray, visible: int | None = None) -> np.ndarray | None:
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
            dead, n = self.dead_in(0, len(self), (visible + 1, None))
            if n > MAX_DEAD:
                return None
            if n:
                found |= np.isin(values, dead[position])
        return found

    def lost_since(self: _Rows, visible: int) -> list[np.ndarray] | None:
        """The rows that died after generation ``visible`` (``dead_in``, remembered until rows die or revive),
        None past ``MAX_DEAD`` of them (the view's own scan then costs about as much)."""
        if not self.deleted_rows:
            return [_NO_ROWS] * self.arity
        dead, n = self.dead_in(0, len(self), (visible + 1, None))
        return None if n > MAX_DEAD else dead

    def _keys_changed(self: _Rows, rows: np.ndarray, by: int) -> None:
        """Rows died (``by`` -1) or revived (+1): each kept count follows; a relation grown past ``MAX_ROWS``
        drops its counts here at once (``holds_live`` would at its next question: until then every death
        and revival paid for counts nobody reads)."""
        if not self._live_keys:
            return
        if len(self) > MAX_ROWS:
            self._live_keys.clear()
            return
        for position, counts in self._live_keys.items():
            counts.changed(self._cols[position].view(), rows, by)
