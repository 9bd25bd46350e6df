"""Distinct values of int arrays, sorted, and where values stand among them: the one implementation
the dictionary, the tuple sets, the indexes and the closure kernels share (``np.unique`` is far slower
on large int64 arrays than a SIMD sort and a compare, and slower still than flags over a small span)."""

from __future__ import annotations

import numpy as np

DENSE_UNIQUE_MIN = 1 << 12   # sorted_unique: from this many values on, a small span is read by flags


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique's result, by flags over the values' span when that is small against their number (ids of
    a few thousand nodes in a large column: no sort), else by sort and compare (np.unique is far slower
    here on large int arrays)."""
    if values.size < 2:
        return values.copy()
    if values.size >= DENSE_UNIQUE_MIN:
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 4 * values.size:
            flags = np.zeros(hi - lo + 1, bool)
            flags[values - lo] = True
            return (np.flatnonzero(flags) + lo).astype(values.dtype, copy=False)
    ordered = np.sort(values)
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def positions_of(ids: np.ndarray, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The positions in ``ids`` (sorted, distinct, not empty) of values that are there: a lookup table
    when the ids are dense enough (node ids of a dictionary usually are), else binary searches."""
    span = int(ids[-1]) - int(ids[0]) + 1   # Python ints: the difference of two int64 may not fit one
    if span > 8 * ids.size + 4096:
        return [np.searchsorted(ids, a) for a in arrays]
    table = np.empty(span, np.int64)
    table[ids - ids[0]] = np.arange(ids.size)
    return [table[a - ids[0]] for a in arrays]


def unique_inverse(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct ids and each id's position among them (``positions_of``).

    >>> [a.tolist() for a in unique_inverse(np.array([5, 2, 5, 9]))]
    [[2, 5, 9], [1, 0, 1, 2]]
    """
    unique = sorted_unique(ids)
    if unique.size == 0:
        return unique, np.empty(0, np.int64)
    return unique, positions_of(unique, [ids])[0]
