"""Vectorised helpers over int64 arrays: distinct values, group offsets, concatenated ranges.

>>> expand_ranges(np.array([5, 0]), np.array([2, 3])).tolist()
[5, 6, 0, 1, 2]
>>> group_offsets(np.array([0, 0, 2]), 3).tolist()
[0, 2, 2, 3]
>>> slices_by_weight(np.array([3, 3, 3, 1]), 6)
[(0, 2), (2, 4)]
>>> sorted_unique(np.array([4, 1, 4, 2])).tolist()
[1, 2, 4]
"""

from __future__ import annotations

import numpy as np

from deltalog.storage.uniques import sorted_unique


def group_offsets(labels: np.ndarray, groups: int) -> np.ndarray:
    """``off`` of length groups + 1 such that, ``labels`` sorted, group g is ``labels[off[g]:off[g+1]]``."""
    off = np.zeros(groups + 1, np.int64)
    np.cumsum(np.bincount(labels, minlength=groups), out=off[1:])
    return off


def expand_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``range(starts[i], starts[i] + lengths[i])`` over i."""
    lengths = np.asarray(lengths, np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, np.int64)
    before = np.cumsum(lengths) - lengths
    return np.arange(total, dtype=np.int64) + np.repeat(np.asarray(starts, np.int64) - before, lengths)


def slices_by_weight(weights: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Consecutive slices of items whose weights add up to about ``limit`` each (less than ``limit``
    plus the heaviest item)."""
    n = weights.size
    total = int(weights.sum()) if n else 0
    if total <= limit:
        return [(0, n)] if n else []
    ends = np.cumsum(weights)
    cuts = np.searchsorted(ends, np.arange(limit, total, limit), "right")
    bounds = sorted_unique(np.concatenate([[0], np.clip(cuts, 1, n), [n]]))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
