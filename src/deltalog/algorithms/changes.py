"""The frames of an update's result (``UpdateResult.added`` / ``removed``), made when first read.

An update reads its changes off the store while they are there to read (the next update changes the
store), but a caller often never looks at the frames: a 1,000-fact LUBM-like deletion changes ~30
predicates, and building their Polars frames took ~1 ms of its ~22 (docs/benchmarks.md, stop 19).
Where the backend can (``DeferredDecoding``), the rows are taken now, as ids, and decoded into frames
the first time any frame is read; everything that reads a frame (indexing, ``get``, ``items``,
``values``, copies, comparisons, ``dict(changes)``) sees only real frames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

from deltalog.errors import UnknownPredicateError

if TYPE_CHECKING:   # polars stays out of the algorithm layer's imports (the backends return its frames)
    import polars as pl

_UNSET: Any = object()


class Changes(dict):
    """Frames of the facts an update added (or removed) per predicate. A predicate that did not change
    reads as an empty frame when ``empty(predicate)`` knows it (``result.added["path"]`` always works for
    the program's predicates); iterating shows only the changed ones. ``defer`` holds a predicate whose
    frame is made when a frame is first read (every pending one then)."""

    def __init__(self, *args, empty: Callable[[str], pl.DataFrame | None] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.empty = empty
        self._pending: dict[str, tuple[Callable[[], pl.DataFrame], int]] = {}   # predicate -> (frame, its rows)

    def defer(self, predicate: str, frame: Callable[[], pl.DataFrame], rows: int) -> None:
        """Hold ``predicate``, whose frame of ``rows`` rows ``frame()`` makes when one is read."""
        super().__setitem__(predicate, None)
        self._pending[predicate] = frame, rows

    def counts(self) -> dict[str, int]:
        """Facts per changed predicate, read without making any frame (``deltalog update`` prints and records
        only these: no frame, and so no Polars import, for an update of numbers; docs/benchmarks.md, stop 22)."""
        pending = self.__dict__.get("_pending") or {}
        return {p: pending[p][1] if p in pending else dict.__getitem__(self, p).height for p in dict.keys(self)}

    def _made(self) -> "Changes":
        """Every pending frame made (once)."""
        if pending := self.__dict__.get("_pending"):   # (absent while a copy or an unpickling fills it)
            self._pending = {}
            for predicate, (frame, _) in pending.items():
                super().__setitem__(predicate, frame())
        return self

    def __missing__(self, predicate: str) -> pl.DataFrame:
        frame = self.empty(predicate) if self.empty is not None else None
        if frame is None:
            raise UnknownPredicateError(f"unknown predicate {predicate!r}")
        return frame

    def __getitem__(self, predicate: str) -> pl.DataFrame:
        return super(Changes, self._made()).__getitem__(predicate)

    def __setitem__(self, predicate: str, frame: pl.DataFrame) -> None:
        if pending := self.__dict__.get("_pending"):
            pending.pop(predicate, None)
        super().__setitem__(predicate, frame)

    def __iter__(self) -> Iterator[str]:   # (overridden, so dict(changes) and {**changes} read frames by key)
        return super().__iter__()

    def __repr__(self) -> str:
        return super(Changes, self._made()).__repr__()

    def __eq__(self, other: object) -> bool:
        return super(Changes, self._made()).__eq__(other._made() if isinstance(other, Changes) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None   # (a dict is not hashable)

    def __or__(self, other):
        return dict(self._made()) | other

    def __ror__(self, other):
        return other | dict(self._made())

    def __reduce_ex__(self, protocol):   # copy, deepcopy, pickle
        return super(Changes, self._made()).__reduce_ex__(protocol)

    def get(self, predicate, default=None):
        return super(Changes, self._made()).get(predicate, default)

    def items(self):
        return super(Changes, self._made()).items()

    def values(self):
        return super(Changes, self._made()).values()

    def copy(self) -> dict:
        return dict(self._made())

    def pop(self, predicate, default=_UNSET):
        self._made()
        return super().pop(predicate) if default is _UNSET else super().pop(predicate, default)

    def popitem(self):
        return super(Changes, self._made()).popitem()

    def setdefault(self, predicate, default=None):
        return super(Changes, self._made()).setdefault(predicate, default)
