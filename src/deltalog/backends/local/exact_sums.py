"""Exact numeric group reductions for ``sum``, ``avg`` and ``median`` (docs/semantics.md, Aggregates).

A group is a set, so its sum must not depend on the order its values happen to be stored in: a float
sum is the *exactly rounded* sum (what ``math.fsum`` gives), an int sum is exact (no result only when
the true sum leaves 64 bits), and an int mean (``avg``, the ``median`` of an even count) is the true
quotient rounded once. Each is computed set-at-a-time; a group goes through Python only when a cheap
certificate cannot settle it: float sums within rounding distance of a tie or with cancellation,
int sums near 2^63, int means beyond 2^53 (a few groups in practice).
"""

from __future__ import annotations

import math

import numpy as np

_EXACT_DOUBLE = 2.0**53
"""Every int of at most this magnitude is a double exactly."""
_INT_RISK = 2.0**62
"""An int group whose float-estimated sum stays below this cannot have overflowed 64 bits."""
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def float_sums(x: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The exactly rounded sum of each group of float64 ``x`` (``math.fsum`` of each group).

    Sums are taken in extended precision (``np.longdouble``) with an error bound of
    ``n * eps * sum|x|`` plus one unit in the last place; when the whole interval around the
    extended sum rounds to one double, that double is the exactly rounded sum. Other groups
    (near a tie, or heavy cancellation; all groups where longdouble is no wider than a double)
    are summed by ``math.fsum``."""
    if starts.size == 0:
        return np.zeros(0)
    with np.errstate(over="ignore", invalid="ignore"):
        sums = np.add.reduceat(x.astype(np.longdouble), starts)
        # sum|x| in doubles is within a factor 1 + n * 2^-53 of itself: 2 * eps covers it
        magnitude = np.add.reduceat(np.abs(x), starts).astype(np.longdouble)
        bound = magnitude * (counts * (2 * np.finfo(np.longdouble).eps)) + np.spacing(sums)
        low, high = (sums - bound).astype(np.float64), (sums + bound).astype(np.float64)
        out = sums.astype(np.float64)
    for g in np.flatnonzero(low != high).tolist():
        out[g] = _fsum(x[starts[g]:starts[g] + counts[g]].tolist())
    return out


def _fsum(values: list[float]) -> float:
    try:
        return math.fsum(values)
    except OverflowError:   # an intermediate infinity: the sum is no finite float (no result)
        return math.inf


def int_sums(i: np.ndarray, starts: np.ndarray, counts: np.ndarray, estimate: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Exact sums of int64 groups, and whether each fits in 64 bits (0 where it does not).

    ``estimate`` is any float sum of the same groups: int64 addition wraps, but a group whose
    estimate stays below 2^62 in magnitude has a true sum inside 64 bits, hence the wrapped one
    (a double sum errs by at most n * 2^-53 * n * 2^63, below 2^62 for n < 2^26 values)."""
    with np.errstate(over="ignore"):
        sums = np.add.reduceat(i, starts) if starts.size else np.zeros(0, np.int64)
    fits = np.ones(sums.size, bool)
    for g in np.flatnonzero(~(np.abs(estimate) < _INT_RISK)).tolist():
        exact = sum(i[starts[g]:starts[g] + counts[g]].tolist())
        fits[g] = _INT64_MIN <= exact <= _INT64_MAX
        sums[g] = exact if fits[g] else 0
    return sums, fits


def int_means(i: np.ndarray, starts: np.ndarray, counts: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """The mean of each int64 group, the exact quotient rounded once to a double."""
    sums, fits = int_sums(i, starts, counts, estimate)
    means = sums.astype(np.float64) / np.maximum(counts, 1)
    for g in np.flatnonzero(~fits | (np.abs(sums) > _EXACT_DOUBLE)).tolist():
        means[g] = sum(i[starts[g]:starts[g] + counts[g]].tolist()) / int(counts[g])
    return means


def pair_means(low_i: np.ndarray, high_i: np.ndarray, low_f: np.ndarray, high_f: np.ndarray,
               both_int: np.ndarray) -> np.ndarray:
    """(a + b) / 2 of two middle values: doubles add with one rounding (halving is exact), and so do
    two ints when both are doubles exactly; larger int pairs are added exactly in Python."""
    with np.errstate(over="ignore", invalid="ignore"):
        means = (low_f + high_f) / 2
    wide = both_int & ((np.abs(low_f) > _EXACT_DOUBLE) | (np.abs(high_f) > _EXACT_DOUBLE))
    for g in np.flatnonzero(wide).tolist():
        means[g] = (int(low_i[g]) + int(high_i[g])) / 2
    return means
