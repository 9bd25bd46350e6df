"""Merging two sorted runs of an index (storage/sorted_run.py ``Run.merged``): by their offsets when both have
them, else by a stable sort; either way the run a sort of all their rows builds."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, strategies as st

from deltalog.storage import index as index_module
from deltalog.storage.index import SortedIndex
from deltalog.storage.sorted_run import Run


def built(keys: list[int], lo: int, space: int | None) -> Run:
    """A run of rows lo.. with these keys, as a refresh builds it (by key, then row)."""
    order = np.argsort(np.array(keys, np.int64), kind="stable")
    return Run.build(lo, lo + len(keys), np.array(keys, np.int64)[order], (np.arange(len(keys)) + lo)[order], space)


@given(st.lists(st.lists(st.integers(0, 30)), min_size=1, max_size=4), st.sampled_from([31, 64, None]))
def test_merged_runs_are_the_run_of_all_their_rows(keys, space):
    """Up to four runs of consecutive rows, keys from a space of 31 or 64 (runs of up to 4x fewer rows get
    offsets) or none (no offsets): merged, the run a sort of all their rows builds."""
    starts = np.cumsum([0] + [len(k) for k in keys])
    runs = [built(k, int(lo), space) for k, lo in zip(keys, starts)]
    merged = Run.merged(runs, space)
    whole = built([key for k in keys for key in k], 0, space)
    assert merged.keys.tolist() == whole.keys.tolist() and merged.rows.tolist() == whole.rows.tolist()
    assert (merged.row_lo, merged.row_hi, merged.distinct) == (whole.row_lo, whole.row_hi, whole.distinct)
    if all(r.offsets is not None for r in runs):
        assert merged.offsets is not None and whole.offsets is not None
        assert merged.offsets.tolist() == whole.offsets.tolist()


@given(st.lists(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=40), max_size=12),
       st.lists(st.integers(0, 21), max_size=6), st.sampled_from([1, 1 << 16]), st.integers(2, 12))
def test_an_index_refreshed_batch_by_batch_answers_as_one_built_at_once(batches, probe, tier_rows, max_runs):
    """Runs added and merged as rows come (dense ones by offsets, in tiers of 4 when every run counts as
    large, ``tier_rows`` 1) answer every probe as a single run, and never number more than ``MAX_RUNS``."""
    stored: list[list[int]] = [[], []]
    index = SortedIndex((0,))
    with mock.patch.multiple(index_module, TIER_MIN_ROWS=tier_rows, MAX_RUNS=max_runs):
        for batch in batches:
            for row in batch:
                stored[0].append(row[0])
                stored[1].append(row[1])
            if stored[0]:
                index.refresh([np.array(c, np.int64) for c in stored])
                assert len(index.runs) <= max_runs
    if not stored[0]:
        return
    once = SortedIndex((0,))
    once.refresh([np.array(c, np.int64) for c in stored])
    keys = [np.array(probe, np.int64)]
    got = index.probe(keys, 0, len(stored[0])).expand(0, len(probe))
    want = once.probe(keys, 0, len(stored[0])).expand(0, len(probe))
    assert sorted(zip(*(a.tolist() for a in got))) == sorted(zip(*(a.tolist() for a in want)))


def test_four_large_dense_runs_of_similar_size_merge_at_once():
    """The tier rule: three runs of similar size stay apart, the fourth merges them all; runs of unlike sizes
    (or sparse ones) follow the pairwise rule."""
    index = SortedIndex((0,))
    stored = [np.zeros(0, np.int64)]
    with mock.patch.multiple(index_module, TIER_MIN_ROWS=4):
        for n, runs in [(40, 1), (10, 2), (12, 3), (9, 4), (11, 2)]:
            stored = [np.concatenate([stored[0], np.arange(n) % 7])]
            index.refresh(stored)
            assert len(index.runs) == runs
    assert index.runs[-1].keys.tolist() == sorted(stored[0][40:].tolist())
