"""The stored-relation interface: everything the local executor and backend may ask of a relation.

A relation is stored by a *representation* (Soufflé's per-relation storage schemes: btree, brie,
eqrel): ``rows`` (storage/relation.py, append-only columns whose generation windows are row
ranges) or ``set`` (storage/plainset.py, one record per tuple). The executor reads through
:class:`View`\\ s, the generation windows and death conditions of ``ir.Scan``, and never through
row ranges, so a representation that is not append-only answers the same plans (docs/design.md,
"Stored relations").

Row ids are private to a representation: they appear only between :meth:`StoredRelation.keyed`
and the :class:`KeyedView` it returns (probe results index its ``columns``).
"""

from __future__ import annotations

from typing import Callable, Iterator, NamedTuple, Protocol, runtime_checkable

import numpy as np

from deltalog.storage.index import Prober, SortedIndex
from deltalog.storage.probe import Probe

Chunk = tuple[list[np.ndarray], int]
"""Some rows of a view: its columns (one per relation column; none for arity 0) and how many rows."""


class View(NamedTuple):
    """Which rows a read sees: inserted at generations ``since <= g < until``, and not deleted
    (``visible`` None), not deleted by the end of generation ``visible``, or deleted at generations
    ``deleted[0] <= d < deleted[1]`` (``deleted`` given; ``visible`` is then ignored). See ``ir.Scan``.
    An ``ir.Scan`` has the same four fields and is passed as its own view: the executor builds no
    View per scan (a named tuple here: a count builds one, and a frozen dataclass costs ten times as much)."""

    since: int = 0
    until: int | None = None
    visible: int | None = None
    deleted: tuple[int, int | None] | None = None


WHOLE = View()
"""Every live row."""


class ViewSpec(Protocol):
    """What a relation reads of a view: the fields of :class:`View`, which an ``ir.Scan`` has too."""

    @property
    def since(self) -> int: ...
    @property
    def until(self) -> int | None: ...
    @property
    def visible(self) -> int | None: ...
    @property
    def deleted(self) -> tuple[int, int | None] | None: ...


class KeyedView:
    """The rows of a view, indexed on some column positions: ``probe`` gives (probe row, row id) pairs,
    row ids index ``columns``, and ``alive`` filters matched row ids by the view's death conditions
    (``None``: every match counts). ``exact``: keys are compared exactly (else by fingerprint, and the
    caller compares the keyed positions value by value)."""

    __slots__ = ("columns", "index", "lo", "hi", "alive")

    def __init__(self, columns: list[np.ndarray], index: Prober, lo: int, hi: int,
                 alive: Callable[[np.ndarray], np.ndarray | None] = lambda rows: None) -> None:
        self.columns, self.index, self.lo, self.hi, self.alive = columns, index, lo, hi, alive

    @classmethod
    def over(cls, columns: list[np.ndarray], positions: tuple[int, ...], n: int) -> "KeyedView":
        """A fresh index over rows held in arrays (a materialised plan, a small relation's snapshot)."""
        index = SortedIndex(positions)
        index.refresh(columns or [np.zeros(n, np.int64)])
        return cls(columns or [np.zeros(n, np.int64)], index, 0, n)

    @property
    def exact(self) -> bool:
        return self.index.exact

    def probe(self, keys: list[np.ndarray], n: int) -> Probe:
        return self.index.probe(keys, self.lo, self.hi, n)


@runtime_checkable
class StoredRelation(Protocol):
    """One relation of dictionary ids, stamped with the generations that inserted and deleted its rows."""

    name: str
    arity: int
    representation: str

    @property
    def deleted_rows(self) -> int:
        """Deleted rows still kept (readable through views with ``visible``/``deleted``)."""

    def scan(self, view: ViewSpec, chunk_rows: int | None = None) -> Iterator[Chunk]:
        """The rows of a view in chunks of at most ``chunk_rows`` rows (None: one chunk, possibly none
        when the view is empty); columns may be views of storage, valid until the next change."""

    def keyed(self, view: ViewSpec, positions: tuple[int, ...]) -> KeyedView:
        """The rows of a view, probed by the values at ``positions``."""

    def covers_live(self, view: ViewSpec) -> bool:
        """Does the view read exactly the live tuples (so that :meth:`contains` answers membership in it)?"""

    def contains(self, columns: list[np.ndarray]) -> np.ndarray:
        """Which batch rows are live tuples."""

    def holds_live(self, position: int, values: np.ndarray, visible: int | None = None) -> np.ndarray | None:
        """Which values some live tuple holds at ``position`` (with ``visible``: some tuple not deleted by the
        end of that generation; None: not kept, ask an index)."""

    def lost_since(self, visible: int) -> list[np.ndarray] | None:
        """The tuples of the rows deleted after generation ``visible`` (not revived), as columns: with ``contains``,
        membership in a view of every row not deleted by the end of ``visible`` (None: not kept, scan the view)."""

    def count_view(self, view: ViewSpec) -> int:
        """How many rows the view reads."""

    def distinct_estimate(self, positions: tuple[int, ...]) -> int:
        """Distinct values of the columns at ``positions`` among the rows (an estimate, for planning)."""

    def insert(self, columns: list[np.ndarray], *, generation: int, revive_since: int | None = None) -> int:
        """Store the batch rows not live yet, stamped ``generation``; a row deleted at a generation
        >= ``revive_since`` comes back with its old insertion generation instead. Return how many."""

    def delete(self, columns: list[np.ndarray], *, generation: int) -> int:
        """Mark the live rows equal to batch rows deleted at ``generation``; return how many."""

    def rollback(self, generation: int) -> None:
        """Undo every insert and delete made at generations >= ``generation``."""

    def compact(self) -> None:
        """Forget deleted rows for good."""

    def nbytes(self) -> int:
        """Bytes held (rows, sets, indexes)."""


def scan_all(relation: StoredRelation, view: ViewSpec = WHOLE) -> Chunk:
    """All rows of a view as one chunk (for reads and exports)."""
    chunks = list(relation.scan(view))
    if len(chunks) == 1:
        return chunks[0]
    width = relation.arity
    if not chunks:
        return [np.empty(0, np.int64) for _ in range(width)], 0
    return [np.concatenate([c[i] for c, _ in chunks]) for i in range(width)], sum(n for _, n in chunks)
