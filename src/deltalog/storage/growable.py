"""A numpy array that grows by appending, with amortised O(1) appends and zero-copy views."""

from __future__ import annotations

import numpy as np


LARGE_SIZE = 1 << 20   # values: a buffer that must hold more than this grows LARGE_GROWTH times, not twice
LARGE_GROWTH = 8
MAX_SPARE_BYTES = 1 << 30   # ... while the spare room it reserves stays under this much address space


class GrowableArray:
    """Append-only 1-d numpy buffer; ``view()`` returns the filled prefix without copying.

    >>> g = GrowableArray(np.int64)
    >>> g.extend(np.array([1, 2])); g.extend(np.array([3]))
    >>> g.view().tolist(), len(g)
    ([1, 2, 3], 3)
    """

    __slots__ = ("_data", "_size")

    def __init__(self, dtype, capacity: int = 16) -> None:
        self._data = np.empty(capacity, dtype=dtype)
        self._size = 0

    @classmethod
    def filled(cls, size: int, value, dtype) -> "GrowableArray":
        """``size`` copies of ``value``, written straight into a buffer with room for as many again (no
        temporary array: a relation's death marks, allocated at its first deletion, are 8 bytes a row)."""
        grown = cls(dtype, capacity=2 * size)
        grown._data[:size] = value
        grown._size = size
        return grown

    def __len__(self) -> int:
        return self._size

    def extend(self, values: np.ndarray) -> None:
        """Append values; a reallocation leaves earlier views valid (they keep the old buffer). A batch that
        outgrows the buffer gets room for as many rows again: a relation restored or given its death marks in
        one batch would otherwise copy all of it at its first append (DAG-R's 22.9M-row ``path``: ~0.1 s at
        the first update of a process; the spare room is address space only until rows are written to it)."""
        n = len(values)
        if self._size + n > self._data.size:   # (checked here: one Python call less an append, the usual case)
            self._grow(n)
        self._data[self._size : self._size + n] = values
        self._size += n

    def _grow(self, n: int) -> None:
        """A new buffer with room for ``n`` values more (``_capacity``), the values so far copied into it."""
        grown = np.empty(self._capacity(max(self._data.size, self._size + n)), dtype=self._data.dtype)
        grown[: self._size] = self._data[: self._size]
        self._data = grown

    def extend_at(self, values: np.ndarray, at: np.ndarray) -> None:
        """Append ``values[at]`` straight into the buffer: a compaction's columns are written once, not
        gathered into a temporary and copied."""
        if self._size + at.size > self._data.size:
            self._grow(at.size)
        np.take(values, at, out=self._data[self._size : self._size + at.size])
        self._size += at.size

    def _capacity(self, needed: int) -> int:
        """Twice ``needed``, or LARGE_GROWTH times for a large buffer: each reallocation copies every value
        so far into fresh memory, faulting its pages in again (the executor runs on 4 kB pages,
        backends/local/memory.py), while the spare room costs nothing until written. A relation growing
        to 6.4M rows (wl-sg-forest) then reallocates twice past 1M values instead of three times:
        page faults 146k -> 123k (sg-digraph 71k -> 45k), ~5% less CPU (docs/benchmarks.md, Stop 16)."""
        if needed <= LARGE_SIZE:
            return 2 * needed
        return max(2 * needed, min(LARGE_GROWTH * needed, needed + MAX_SPARE_BYTES // self._data.itemsize))

    def view(self) -> np.ndarray:
        return self._data[: self._size]
