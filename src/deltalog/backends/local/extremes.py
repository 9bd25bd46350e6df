"""min and max of int values per group of one dense group column, by direct addressing (no sort): the
fast path of ``aggregate.aggregate_frame`` for pipeline-shaped aggregates (``min X : { edge(X, Y) }``)."""

from __future__ import annotations

import numpy as np

from deltalog.backends.local.decoded import decode_ints
from deltalog.backends.local.frame import Frame
from deltalog.storage.dictionary import Dictionary

DENSE_GROUP_SPAN, DENSE_GROUP_MIN = 4, 1 << 16
"""min/max address groups directly when their ids span at most 4x the rows plus 2^16 (as encode_ints)."""


def dense_extremes(rows: Frame, group: str, argument: str, function: str, output: str,
                    d: Dictionary) -> Frame | None:
    """min or max of int values per group of one column whose ids span a small range, by direct
    addressing: ``ufunc.at`` into an array over the span, then the id of any row holding its group's
    extreme (an int has one id), groups in id order as the sorting path gives them. None when the span
    is wide or a value is not an int. Pipeline's ``min X : { edge(X, Y) }`` over 0.5M rows: no sort of
    packed pairs, no unpacking (issue 15)."""
    keys, ids = rows.columns[group], rows.columns[argument]
    low = int(keys.min())
    span = int(keys.max()) - low + 1
    if span > DENSE_GROUP_SPAN * rows.length + DENSE_GROUP_MIN:
        return None
    at = keys - low if low else keys
    minimum = function == "min"
    if d.ints_ordered():   # ids order as their ints do (Dictionary.ints_ordered): the extreme id is the extreme's
        groups, extremes = group_extremes(at, ids, minimum, span)
        return Frame({group: groups + low, output: extremes}, groups.size)
    if (ints := decode_ints(ids, d)) is None:
        return None
    if (packed := value_and_id(ints, ids)) is not None:
        return packed_extremes(at, packed, minimum, span, group, low, output)
    extreme = np.full(span, np.iinfo(np.int64).max if minimum else np.iinfo(np.int64).min, np.int64)
    (np.minimum if minimum else np.maximum).at(extreme, at, ints)
    holding = np.flatnonzero(ints == extreme[at])
    holder = np.full(span, -1, np.int64)   # ids are >= 0; every group has a row holding its extreme
    holder[at[holding]] = ids[holding]
    groups = np.flatnonzero(holder >= 0)
    return Frame({group: groups + low, output: holder[groups]}, groups.size)


def value_and_id(ints: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, int] | None:
    """Each row's int value (offset by the least) and id packed into one int64, value high, and the id's
    bits: the extreme of the packed keys is the extreme value with its id (an int has one id, so equal
    values tie with equal ids). None when they do not fit 62 bits."""
    low = int(ints.min())
    id_bits = max(int(ids.max()), 1).bit_length()
    if (int(ints.max()) - low) >> (62 - id_bits):
        return None
    packed = ints   # (a fresh gather: packed in place, no second 8-byte-a-row array)
    packed -= low
    packed <<= id_bits
    packed |= ids
    return packed, id_bits


def packed_extremes(at: np.ndarray, packed: tuple[np.ndarray, int], minimum: bool, span: int, group: str,
                     low: int, output: str) -> Frame:
    """``dense_extremes`` over packed (value, id) keys: one ``ufunc.at`` gives each group's extreme value
    and its id together, where finding a row that holds the extreme took a gather, a comparison and a
    scatter over all rows (pipeline's ``min X : { edge(X, Y) }``, 1M rows: ~35 -> ~20 ms, stop 20)."""
    keys, id_bits = packed
    groups, ids = group_extremes(at, keys, minimum, span)
    ids &= (1 << id_bits) - 1
    return Frame({group: groups + low, output: ids}, groups.size)


def group_extremes(at: np.ndarray, keys: np.ndarray, minimum: bool, span: int) -> tuple[np.ndarray, np.ndarray]:
    """(the groups holding rows, in order; each one's least or greatest key) of keys >= 0 in groups ``at``
    (0..span - 1), by one ``ufunc.at``."""
    none = np.iinfo(np.int64).max if minimum else -1
    extreme = np.full(span, none, np.int64)
    (np.minimum if minimum else np.maximum).at(extreme, at, keys)
    groups = np.flatnonzero(extreme != none)
    return groups, extreme[groups]
