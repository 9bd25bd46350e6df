"""``ClosureDifference`` for a few sources: their reachable sets searched directly, no condensation.

003 section 4 maintains a transitive closure under deletion by recomputing what the affected sources
(the ancestors of the deleted edges' tails) reach and comparing it with what they reached before.
``closure_diff.closure_difference`` does it with bitset rows over the strongly connected components of
both graphs, which pays when the sources are many (DAG-R: 30-40% of the nodes). When they are a handful
(LUBM-like ``subOrganizationOf``: 2-3 sources among 5k nodes, 4k edges a graph) that costs ~1 ms of
fixed work a call (two condensations, topological levels, column blocks), whatever it then finds; a
frontier search from the sources over (source, node) pairs costs a few array calls a level.

The search is used while ``sources x nodes`` fits ``PAIR_SPACE`` (a byte per pair: what has been
reached) and gives up after ``reach.FRONTIER_LEVELS`` levels (a deep graph: a round of array calls a
level), leaving the pairs to the condensed kernel.
"""

from __future__ import annotations

import numpy as np

from deltalog.backends.local.ranges import expand_ranges, group_offsets
from deltalog.backends.local import reach
from deltalog.storage.uniques import sorted_unique

PAIR_SPACE = 1 << 20
"""Largest sources x nodes searched pair by pair (a byte each)."""


def fits(sources: int, nodes: int) -> bool:
    return sources * nodes <= PAIR_SPACE


def difference(s: np.ndarray, d: np.ndarray, other_s: np.ndarray, other_d: np.ndarray, n: int,
               sources: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(source positions, node positions) of the pairs (x, z), x in ``sources`` (node positions), with a
    path of one or more edges from x to z over ``s -> d`` but none over ``other_s -> other_d``; None if a
    search went deeper than ``FRONTIER_LEVELS``."""
    mine = reached(s, d, n, sources)
    if mine is None or mine[1].size == 0:
        return None if mine is None else (np.empty(0, np.int64), np.empty(0, np.int64))
    other = reached(other_s, other_d, n, sources)
    if other is None:
        return None
    keys = mine[1][~other[0][mine[1]]]
    owner, node = np.divmod(keys, n)
    return sources[owner], node


def reached(s: np.ndarray, d: np.ndarray, n: int, sources: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """R+ of each source, as pairs i * n + z (z reached from sources[i] by one or more edges): a flag per
    pair (``sources.size * n``) and the pairs reached. One frontier search over (source, node) pairs: a
    level's pairs are expanded along their nodes' edges, and the pairs not reached before become the
    next frontier. None past ``FRONTIER_LEVELS`` levels."""
    seen = np.zeros(sources.size * n, bool)
    if s.size == 0:
        return seen, np.empty(0, np.int64)
    order = np.argsort(s, kind="stable")
    targets, offsets = d[order], group_offsets(s[order], n)
    owner, node = np.arange(sources.size, dtype=np.int64), sources
    found: list[np.ndarray] = []
    for _ in range(reach.FRONTIER_LEVELS):
        degree = offsets[node + 1] - offsets[node]
        keys = np.repeat(owner, degree) * n + targets[expand_ranges(offsets[node], degree)]
        keys = sorted_unique(keys[~seen[keys]])
        if keys.size == 0:
            return seen, np.concatenate(found) if found else keys
        seen[keys] = True
        found.append(keys)
        owner, node = np.divmod(keys, n)
    return None
