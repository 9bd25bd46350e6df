"""A numpy array that grows by appending, with amortised O(1) appends and zero-copy views."""

from __future__ import annotations

import numpy as np


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

    def __len__(self) -> int:
        return self._size

    def extend(self, values: np.ndarray) -> None:
        """Append values; a reallocation leaves earlier views valid (they keep the old buffer)."""
        n = len(values)
        if self._size + n > self._data.size:
            grown = np.empty(max(self._data.size * 2, self._size + n), dtype=self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : self._size + n] = values
        self._size += n

    def view(self) -> np.ndarray:
        return self._data[: self._size]
