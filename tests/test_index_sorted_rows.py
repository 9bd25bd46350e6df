"""An index over rows already in key order (storage/index.py ``nondecreasing``): a relation loaded from a file
stores its rows sorted by packed row, so an index on its first column(s) takes them as they lie, unsorted;
probes answer exactly as brute force does, in either regime (keys in order, keys in none)."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, strategies as st

from deltalog.storage import index as index_module
from deltalog.storage.index import SortedIndex, nondecreasing
from deltalog.storage.relation import Relation

rows_st = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=60)


def brute(stored: list[list[int]], positions: tuple[int, ...], probe: list[tuple[int, ...]], lo: int,
          hi: int) -> list[tuple[int, int]]:
    """(probe row, row id) of every stored row lo..hi whose columns at ``positions`` equal the probe row's."""
    return sorted((i, r) for i, key in enumerate(probe) for r in range(lo, hi)
                  if tuple(stored[p][r] for p in positions) == key)


@given(st.lists(rows_st, min_size=1, max_size=5), st.booleans(), st.sampled_from([(0,), (1,), (0, 1)]),
       st.lists(st.tuples(st.integers(-1, 42), st.integers(-1, 42)), max_size=8))
def test_probes_equal_brute_force_with_rows_in_order_or_not(batches, in_order, positions, probe):
    """Batches appended and refreshed one by one, each sorted (as ``add_new`` stores a load) or as drawn:
    every probe of every row range finds exactly the rows brute force finds."""
    stored: list[list[int]] = [[], []]
    index = SortedIndex(positions)
    for batch in batches:
        for row in sorted(batch) if in_order else batch:
            stored[0].append(row[0])
            stored[1].append(row[1])
        if stored[0]:
            index.refresh([np.array(c, np.int64) for c in stored])
    n = len(stored[0])
    if not n:
        return
    keys = [tuple(row[:len(positions)]) for row in probe]
    columns = [np.array([k[i] for k in keys], np.int64) for i in range(len(positions))]
    for lo, hi in ((0, n), (n // 3, n), (0, max(n // 2, 1))):
        found = index.probe(columns, lo, hi, len(keys)).expand(0, len(keys))
        assert sorted(zip(*(a.tolist() for a in found))) == brute(stored, positions, keys, lo, hi)


@given(st.lists(st.integers(-5, 5), max_size=3000))
def test_nondecreasing_is_the_order_of_the_keys(keys):
    array = np.array(keys, np.int64)
    assert nondecreasing(array) == (keys == sorted(keys))
    assert nondecreasing(np.sort(array))


def test_a_loaded_relations_index_on_its_first_column_sorts_nothing():
    """A relation stores a batch's new rows in packed-row order, so the join index on its first column
    is built without a sort (the sort is refused here)."""
    rng = np.random.default_rng(7)
    relation = Relation("edge", 2)
    relation.insert([rng.integers(0, 5000, 20_000), rng.integers(0, 5000, 20_000)], generation=0)
    with mock.patch.object(index_module, "sort_with_positions", side_effect=AssertionError("sorted again")):
        index = relation.index((0,))
    first = relation.columns()[0]
    probe = index.probe([np.array([0, 17, 4999])], 0, len(relation)).expand(0, 3)
    assert sorted(probe[1].tolist()) == np.flatnonzero(np.isin(first, [0, 17, 4999])).tolist()


def test_a_run_over_rows_in_order_holds_its_own_keys():
    """The run taken without a sort owns its keys: no view of the relation's column (which a later growth
    would leave pinned, and which the run must not share)."""
    relation = Relation("edge", 2)
    relation.insert([np.arange(1000) // 3, np.arange(1000) % 7], generation=0)
    index = relation.index((0,))
    assert not any(np.shares_memory(run.keys, column) for run in index.runs for column in relation.columns())
