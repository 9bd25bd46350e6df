"""Scans instead of unbuilt indexes (storage/row_scan.py): a keyed view answered by a scan gives what the
relation's index gives, and the rent-or-buy budget ends in the index once scans have cost its price."""

from __future__ import annotations

from functools import partial
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, note, strategies as st

from deltalog.storage import row_order, row_scan
from deltalog.storage.index import SortedIndex
from deltalog.storage.relation import Relation
from deltalog.storage.tupleset import packs, radix_for
from strategies import programs_facts_and_updates
from test_maintenance import assert_updates_equal_rematerialisation
from test_storage import ops, run_ops


def scans_forced(budget: int = 10**9):
    """Every relation counts as large, every probe as small and free; ``budget`` scans an index is worth."""
    return mock.patch.multiple(row_scan, SCAN_MIN_ROWS=0, SCAN_MAX_SHARE=0, KEY_COST_IN_ROWS=0, BUILD_IN_SCANS=budget)


def stretches_forced(on: bool = True, dense: bool = True):
    """Every sorted run of rows, however short, is a stretch that every probe searches (storage/row_order.py),
    by its keys' offsets once it is closed if its key is one column and ``dense`` (the offsets take a slot
    per possible key: not for wide ids); ``on`` False: the defaults."""
    return mock.patch.multiple(row_order, MIN_STRETCH_ROWS=1 if on else row_order.MIN_STRETCH_ROWS,
                               SEARCH_COST_IN_ROWS=0 if on else row_order.SEARCH_COST_IN_ROWS,
                               BISECT_COST_IN_ROWS=0 if on else row_order.BISECT_COST_IN_ROWS,
                               DENSE_ROWS_PER_KEY=0 if on and dense else row_order.DENSE_ROWS_PER_KEY)


def answers(probe, n: int, alive) -> tuple:
    """Everything a lookup reads of a probe: its pairs, which rows match (at all, and live), and the
    matches ranked newest first (a rank counts rows outside the window when the index's runs reach past
    it, so only the union over all ranks is compared, and not the counts, an upper bound then)."""
    pairs = sorted(zip(*(a.tolist() for a in probe.expand(0, n))))
    top = int(probe.counts.max(initial=0))
    ranked = sorted(zip(*(a.tolist() for a in probe.expand_ranks(np.arange(n), 0, top))))
    return pairs, ranked, probe.any_match().tolist(), probe.any_alive(alive).tolist()


@given(ops, st.sampled_from([1, 10**6, 2**40]), st.sampled_from([(0,), (1,), (0, 1), (1, 0)]),
       st.lists(st.tuples(st.integers(-1, 41), st.integers(0, 41)), max_size=8), st.integers(0, 12),
       st.integers(0, 12), st.booleans())
def test_a_scan_answers_probes_as_the_index_does(batches, scale, positions, keys, since, span, stretched):
    """Over any row window of a relation with deleted rows (their rows stay, as in the index), for keys
    present, absent or out of range; wide ids (2**40) do not pack, and the index answers instead.
    ``stretched``: the rows' sorted runs binary-searched (learnt as rows come, probe after probe)."""
    relation = Relation("r", 2)
    key_columns = [np.array([k[i] * scale for k in keys], np.int64) for i in range(len(positions))]
    with scans_forced(), stretches_forced(stretched, dense=scale == 1):
        for _ in run_ops(relation, batches, scale):   # deletions scanned too: no full-row index
            pass
        if len(relation) == 0:
            return
        lo, hi = relation.rows_for(since, since + span)
        scanning = relation.probed_by(positions)
        alive = partial(relation.death_mask, visible=None, deleted=None)
        got = answers(scanning.probe(key_columns, lo, hi, len(keys)), len(keys), alive)
    index = SortedIndex(positions)
    index.refresh(relation.stored_columns())
    note(f"window {lo}..{hi}, {type(scanning).__name__}")
    assert got == answers(index.probe(key_columns, lo, hi, len(keys)), len(keys), alive)
    assert scanning.exact == index.exact
    if packs(radix_for(relation.max_id), len(positions)):
        assert isinstance(scanning, row_scan.ScanningIndex) and scanning.built is None


@pytest.mark.parametrize("budget, scans", [(0, 0), (1, 1), (3, 2), (4, 3)])
def test_scans_stop_once_they_have_cost_the_index(budget, scans):
    """Rent or buy: probes are scanned while the rows read stay within ``BUILD_IN_SCANS`` relations, then
    the index is built, and every later view probes it. The first scan reads the relation twice: once
    to learn where its rows are sorted (storage/row_order.py; here in runs of 37, none searched)."""
    relation = Relation("r", 2)
    relation.insert([np.arange(1000) % 37, np.arange(1000)], generation=1)
    with scans_forced(budget):
        for probe in range(scans + 2):
            keyed = relation.probed_by((0,))
            found = keyed.probe([np.array([probe])], 0, len(relation))
            rows = found.expand(0, 1)[1]
            assert sorted(relation.columns()[1][rows].tolist()) == list(range(probe, 1000, 37))
            assert ((0,) in relation._indexes) == (probe >= scans)
    assert isinstance(relation.probed_by((0,)), SortedIndex)


@pytest.mark.parametrize("algorithm", ["dred", "auto"])
@given(programs_facts_and_updates())
def test_updates_with_scans_equal_rematerialisation(algorithm, case):
    """The maintenance property (tests/test_maintenance.py) with every relation's lookups and deletions
    answered by scans for the first two relations' worth, then by indexes."""
    with scans_forced(2):
        assert_updates_equal_rematerialisation(*case, algorithm=algorithm)


@given(programs_facts_and_updates())
def test_updates_with_searched_stretches_equal_rematerialisation(case):
    """The same with every lookup and deletion answered by scans whose rows' sorted runs, however short,
    are binary-searched (learnt as each relation grows, across updates)."""
    with scans_forced(), stretches_forced():
        assert_updates_equal_rematerialisation(*case, algorithm="dred")


def naive_stretches(keys: list[tuple[int, ...]], min_rows: int) -> list[tuple[int, int]]:
    """The maximal runs of non-decreasing keys holding at least ``min_rows`` rows, one row at a time."""
    runs, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] < keys[i - 1]:
            if i - start >= min_rows:
                runs.append((start, i))
            start = i
    return runs


@given(st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=9), max_size=5),
       st.integers(1, 4), st.sampled_from([(0,), (1,), (0, 1), (1, 0)]), st.integers(1, 4))
def test_stretches_are_the_sorted_runs_of_rows_appended_in_batches(batches, min_rows, positions, chunk):
    """Learnt batch after batch, ``chunk`` rows at a time, the stretches are the rows' maximal sorted
    runs (on ``positions``, lexicographically) of ``min_rows`` rows or more."""
    stretches, rows = row_order.SortedStretches(min_rows), []
    with mock.patch.object(row_order, "LEARN_CHUNK", chunk):
        for batch in batches:
            rows += batch
            stored = [np.array([r[i] for r in rows], np.int64) for i in range(2)]
            assert stretches.learn(stored, positions, 4) == len(batch)
            keys = [tuple(r[p] for p in positions) for r in rows]
            assert stretches.spans(0, len(rows)) == naive_stretches(keys, min_rows)


def test_a_scan_costs_its_rows_and_its_keys():
    """The budget charges a scan its rows and ``KEY_COST_IN_ROWS`` per key sought, against
    ``BUILD_IN_SCANS`` scans of the relation; a probe of more than 1/``SCAN_MAX_SHARE`` of it never scans."""
    with mock.patch.multiple(row_scan, SCAN_MIN_ROWS=100, SCAN_MAX_SHARE=4, KEY_COST_IN_ROWS=10, BUILD_IN_SCANS=4):
        budget = row_scan.ScanBudget()
        assert not budget.allows(99, 1) and not budget.allows(100, 26) and budget.allows(100, 25)
        budget.spend(100, 20)          # 300 rows' worth
        assert budget.allows(100, 0) and not budget.allows(100, 1)
