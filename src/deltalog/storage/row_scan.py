"""Rows of a large relation found by one scan instead of an index, while the index would not pay yet.

A relation's indexes are built when first needed: the full-row index to locate the rows a deletion
removes, a join index on the columns a join probes. Materialisation often never builds them, so the
first update of a process pays for them: on DAG-R's 22.9M-row ``path`` a sort of every row's key,
~0.3-0.4 s of user time plus as much again, or more, in the kernel zeroing the new arrays' pages,
against 1.0 s to rematerialise, for an update that deletes or adds 10 edges (a ``deltalog update``
of a store is such a process). A scan packs every row's key once and tests it against the few keys
sought through a small bit table (cache-resident), then checks the few candidates exactly, a chunk of
rows at a time: 28-40 ms in process for one column of ``path``, 50-70 ms for both.

Scan or build is the rent-or-buy (ski rental) choice: each scan is rent, the index is bought once the
rent paid on these columns would reach its price, so a process that makes a few small updates never
builds it, and a session of many pays at most about twice what knowing the future would have cost
(:class:`ScanBudget`; docs/design.md, "first updates on a large store").

>>> import numpy as np
>>> stored = [np.array([0, 1, 2, 1]), np.array([5, 6, 7, 6])]
>>> probe = scan_probe(stored, (0, 1), [np.array([1, 9, 2]), np.array([6, 9, 8])], 0, 4, max_id=7)
>>> probe.expand(0, 3)[1].tolist()
[1, 3]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from deltalog.storage.index import SortedIndex
from deltalog.storage.probe import Probe
from deltalog.storage.sorted_run import Run
from deltalog.storage.row_order import SortedStretches, search_cost_in_rows
from deltalog.storage.tupleset import pack, packs, radix_for
from deltalog.storage.uniques import sorted_unique

SCAN_MIN_ROWS = 1 << 23
"""Relations from this many rows on may be scanned. Below, an index is bought at once: it costs under ~0.15 s
(Claros-like's 4.9M-row relations: ~0.1 s against 6 ms a scan), and renting around it only spread that over
a session's first updates (their medians rose from 0.08 to 0.28 s CPU, docs/benchmarks.md, stop 15)."""
SCAN_MAX_SHARE = 64
"""A probe of more than 1/64 as many rows as the relation builds the index (it pays for itself at once)."""
KEY_COST_IN_ROWS = 256
"""What a key sought adds to a scan, in rows scanned: on ``path`` a deletion of 261k rows (of 1,000 edges)
scans in 0.195 s against ~0.05 s for a few keys (its bit table is 8 MB, out of cache, and more candidates
pass it), ~0.55 us a key, ~250 rows at ~2.3 ns a row."""
SCAN_CHUNK = 1 << 18
"""Rows packed and screened at a time: one pass over ``path`` in 178 MB temporaries costs up to 0.5 s of
page faults, in 256k-row chunks 30-60 ms (docs/benchmarks.md, stop 15)."""
BUILD_IN_SCANS = 16
"""The price of an index in scans of the same rows, measured in process on DAG-R's ``path`` (22.9M rows;
docs/benchmarks.md, stop 15): the join index on one column 0.7 s CPU (0.26-0.32 s user, the rest the kernel
zeroing its new arrays) against a 28-40 ms scan, the full-row index ~1.0 s against 50-70 ms: 16-25 scans.
16, the low end: a session of many updates buys the index a little early rather than late."""


def may_scan(rows: int) -> bool:
    """Whether a relation of this many rows is large enough for its indexes to be worth scanning instead."""
    return rows >= SCAN_MIN_ROWS


class ScanBudget:
    """The rent-or-buy account of one index not built yet, in rows' worth of scanning: a scan costs the
    rows it reads and ``KEY_COST_IN_ROWS`` per key sought (in the share of the relation it reads);
    scans are allowed while their costs, this one's included, stay within ``BUILD_IN_SCANS`` scans of
    the whole relation (the index's price); the first probe past it builds the index. A large probe
    builds at once (``SCAN_MAX_SHARE``). ``order``: the stretches of rows found sorted on the index's
    positions (storage/row_order.py), searched instead of scanned: a probe is charged what it cost
    (the rows it learnt and scanned, its keys' searches), but allowed only while a whole scan would
    still fit in the budget (a cautious estimate: most keys may fall outside the stretches)."""

    def __init__(self) -> None:
        self.spent = 0
        self.order = SortedStretches()

    def allows(self, rows: int, probe_rows: int) -> bool:
        return (may_scan(rows) and probe_rows * SCAN_MAX_SHARE <= rows
                and self.spent + rows + KEY_COST_IN_ROWS * probe_rows <= BUILD_IN_SCANS * rows)

    def spend(self, rows: int, probe_rows: int = 0) -> None:
        """Charge ``rows`` rows' worth and ``KEY_COST_IN_ROWS`` per key of ``probe_rows``."""
        self.spent += rows + KEY_COST_IN_ROWS * probe_rows


def _matching(columns: list[np.ndarray], radix: int, wanted: np.ndarray,
              offset: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(positions + ``offset``, packed keys) of the rows whose key is among ``wanted`` (sorted, distinct, few): a bit
    table of the wanted keys' low bits (~1/32 full) screens every key, the few that pass are looked up
    among the wanted keys by binary search (``np.isin`` would sort them again for every chunk). Rows are
    packed ``SCAN_CHUNK`` at a time, so the temporaries stay small and are reused."""
    if wanted.size == 0 or len(columns[0]) == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    mask = (1 << min(max(16, 5 + int(wanted.size).bit_length()), 24)) - 1
    table = np.zeros(mask + 1, bool)
    table[wanted & mask] = True
    positions, keys_found = [], []
    for lo in range(0, len(columns[0]), SCAN_CHUNK):
        keys = pack([c[lo:lo + SCAN_CHUNK] for c in columns], radix)
        candidates = np.flatnonzero(table[keys & mask])
        if candidates.size:
            at = np.minimum(np.searchsorted(wanted, keys[candidates]), wanted.size - 1)
            candidates = candidates[wanted[at] == keys[candidates]]
            positions.append(candidates + lo + offset)
            keys_found.append(keys[candidates])
    if not positions:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(positions), np.concatenate(keys_found)


def _packed_inside(columns: list[np.ndarray], radix: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys of the rows (0 where a value is outside [0, radix): no stored row holds it), and which are inside."""
    inside = np.ones(len(columns[0]), bool)
    for column in columns:
        inside &= (column >= 0) & (column < radix)
    return pack([np.where(inside, c, 0) for c in columns], radix), inside


def scan_probe(stored: list[np.ndarray], positions: tuple[int, ...], key_columns: list[np.ndarray],
               row_lo: int, row_hi: int, max_id: int, order: SortedStretches | None = None) -> Probe | None:
    """The probe of rows row_lo..row_hi on ``positions`` by these keys that the relation's index would
    answer, found by a scan: one-run indexes over just the rows whose key is sought (sorted by key,
    then row, as the index's runs are). With ``order`` (what is known of the rows' order on these
    positions, storage/row_order.py), the stretches already sorted are binary-searched instead of
    scanned. None when keys do not pack into 62 bits exactly as the index's would, so that a lookup
    reports exactness the same way whichever answered it."""
    return _scan(stored, positions, key_columns, row_lo, row_hi, max_id, order)[0]


def _scan(stored: list[np.ndarray], positions: tuple[int, ...], key_columns: list[np.ndarray], row_lo: int,
          row_hi: int, max_id: int, order: SortedStretches | None) -> tuple[Probe | None, int]:
    """``scan_probe``, and what it cost in rows' worth (``ScanBudget``): the rows learnt and scanned, the
    keys' cost in the scanned rows' share of the relation, ``search_cost_in_rows`` a key searched."""
    radix = max(max_id, 0) + 1
    if not positions or not packs(radix_for(max_id), len(positions)):
        return None, 0
    keys, inside = _packed_inside(key_columns, radix)
    wanted, runs, cost = sorted_unique(keys[inside]), [], 0
    searched: list[tuple[int, int, int, int]] = []
    if order is not None:
        cost += order.learn(stored, positions, radix)
        searched = SortedStretches.searched(stored, positions, order.spans(row_lo, row_hi), wanted, radix)
    if searched and order is not None:
        found_keys, found = order.matches(stored, positions, searched, wanted, radix)
        runs.append(Run.build(row_lo, row_hi, found_keys, found, None))
        cost += search_cost_in_rows(len(positions)) * sum(last - first for _, _, first, last in searched)
    gaps = _gaps([(a, b) for a, b, _, _ in searched], row_lo, row_hi)
    found, found_keys = _matching_in(stored, positions, gaps, radix, wanted)
    runs.append(SortedIndex.run_of(found_keys, found, row_lo, row_hi))
    scanned = sum(hi - lo for lo, hi in gaps)
    cost += scanned + KEY_COST_IN_ROWS * wanted.size * scanned // max(len(stored[0]), 1)
    return Probe(keys, inside, runs, row_lo, row_hi), cost


def _matching_in(stored: list[np.ndarray], positions: tuple[int, ...], ranges: list[tuple[int, int]], radix: int,
                 wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_matching`` over the rows of some (ascending) row ranges: row ids ascending, and their keys."""
    parts = [_matching([stored[p][lo:hi] for p in positions], radix, wanted, lo) for lo, hi in ranges]
    if not parts:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _gaps(spans: list[tuple[int, int]], row_lo: int, row_hi: int) -> list[tuple[int, int]]:
    """Rows row_lo..row_hi outside the (ascending, disjoint) spans."""
    bounds = [row_lo] + [x for span in spans for x in span] + [row_hi]
    return [(a, b) for a, b in zip(bounds[::2], bounds[1::2]) if b > a]


class ScanningIndex:
    """What a keyed view of a large relation probes while its index on ``positions`` is not built: each
    probe the budget allows is answered by a scan (``scan_probe``), the first it does not builds the
    index (``build``: the relation's own), which answers from then on."""

    def __init__(self, stored: list[np.ndarray], positions: tuple[int, ...], max_id: int, budget: ScanBudget,
                 build: Callable[[], SortedIndex]) -> None:
        self.stored, self.positions, self.max_id, self.budget, self.build = stored, positions, max_id, budget, build
        self.built: SortedIndex | None = None

    @property
    def exact(self) -> bool:
        """Scans compare exact keys (``scan_probe``); a built index says for itself."""
        return True if self.built is None else self.built.exact

    def probe(self, key_columns: list[np.ndarray], row_lo: int, row_hi: int, n: int | None = None) -> Probe:
        if self.built is None and self.budget.allows(len(self.stored[0]), len(key_columns[0])):
            found, cost = _scan(self.stored, self.positions, key_columns, row_lo, row_hi, self.max_id,
                                self.budget.order)
            if found is not None:
                self.budget.spend(cost)
                return found
        if self.built is None:
            self.built = self.build()
        return self.built.probe(key_columns, row_lo, row_hi, n)
