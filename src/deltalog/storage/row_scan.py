"""The rows of a large relation equal to a few given rows, found by one scan instead of a full-row index.

Deleting facts from a relation locates their rows through an index on all its columns. Built for
the first time on a large relation, that index costs far more than the deletion: a sort of every
row's key, ~1.6 s on DAG-R's 22.9M-row ``path``, paid by the first update of every process that
loads the relation (a ``deltalog update`` of a store is such a process), where rematerialising costs
1.0 s. A scan packs every row's key once and tests it against the few keys deleted through a small
bit table (cache-resident), then checks the few candidates exactly. ``Relation.delete`` scans for
the first deletions from a large relation and builds the index once deletions keep coming
(docs/design.md, "first deletions from a large relation").

>>> import numpy as np
>>> stored = [np.array([0, 1, 2, 1]), np.array([5, 6, 7, 6])]
>>> rows_equal_to(stored, [np.array([1, 9, 2]), np.array([6, 9, 8])], max_id=7).tolist()
[1, 3]
"""

from __future__ import annotations

import numpy as np

from deltalog.storage.tupleset import pack, packs, unique_sorted

SCAN_MIN_ROWS = 1 << 20
"""Relations from this many rows on are scanned for their first deletions (below, the index is cheap)."""
SCANS_BEFORE_INDEX = 1
"""Deletions located by scanning before the index is built: the first one (a process that makes one update,
as `deltalog update` of a store does, never builds it; a session builds it at its second deletion)."""
SCAN_MAX_SHARE = 64
"""A deletion of more than 1/64 of the relation's rows builds the index (it pays for itself at once)."""


def rows_equal_to(stored: list[np.ndarray], batch: list[np.ndarray], max_id: int) -> np.ndarray | None:
    """Ids (ascending) of the stored rows, live or not, equal to some batch row; None when the rows'
    keys do not pack into 62 bits (the caller's index then uses fingerprints)."""
    radix = max(max_id, 0) + 1
    if not packs(radix, len(stored)):
        return None
    inside = np.ones(len(batch[0]), bool)
    for column in batch:
        inside &= (column >= 0) & (column < radix)   # a value no stored row holds: no row equals it
    wanted = unique_sorted(pack([c[inside] for c in batch], radix))
    if wanted.size == 0:
        return np.empty(0, np.int64)
    mask = (1 << min(max(16, 4 + int(wanted.size).bit_length()), 24)) - 1
    table = np.zeros(mask + 1, bool)
    table[wanted & mask] = True
    keys = pack(stored, radix)
    candidates = np.flatnonzero(table[keys & mask])
    return candidates[np.isin(keys[candidates], wanted)]
