"""Indexes built over rows stored in a few sorted pieces (storage/index.py ``sorted_pieces``): a closure
module's relation holds its explicit facts, then the closure's chunks, each stored sorted by packed row
(``add_new``), so its first column's index merges those pieces instead of sorting them; probes answer as
brute force does."""

from __future__ import annotations

from unittest import mock

import numpy as np
import polars as pl
from hypothesis import given, strategies as st

from deltalog.api import Reasoner
from deltalog.storage import index as index_module
from deltalog.storage.index import MERGED_PIECES, SortedIndex, sorted_pieces

STC = """\
related(X, Y) :- related(Y, X).
related(X, Z) :- related(X, Y), related(Y, Z).
"""


@given(st.lists(st.lists(st.integers(0, 9), max_size=40), max_size=MERGED_PIECES + 3))
def test_sorted_pieces_counts_the_nondecreasing_pieces(parts):
    """Concatenated sorted parts: the count of maximal nondecreasing pieces (0 past ``MERGED_PIECES``)."""
    keys = np.array([k for part in parts for k in sorted(part)], np.int64)
    pieces = 1 + sum(int(b < a) for a, b in zip(keys[:-1].tolist(), keys[1:].tolist()))
    assert sorted_pieces(keys) == (pieces if pieces <= MERGED_PIECES else 0)


@given(st.lists(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=30),
                min_size=1, max_size=5), st.sampled_from([(0,), (1,), (0, 1)]))
def test_an_index_over_sorted_pieces_probes_as_brute_force(batches, positions):
    """Rows appended as sorted batches, indexed at once (one run over several pieces): every key's rows."""
    rows = [row for batch in batches for row in sorted(batch)]
    stored = [np.array(c, np.int64) for c in zip(*rows)]
    index = SortedIndex(positions)
    index.refresh(stored)
    (run,) = index.runs
    assert run.rows.tolist() == sorted(range(len(rows)), key=lambda r: (tuple(rows[r][p] for p in positions), r))
    keys = sorted({tuple(row[p] for p in positions) for row in rows}) + [tuple(31 for _ in positions)]
    probe = [np.array([k[i] for k in keys], np.int64) for i in range(len(positions))]
    found = index.probe(probe, 0, len(rows), len(keys)).expand(0, len(keys))
    brute = sorted((i, r) for i, k in enumerate(keys) for r, row in enumerate(rows)
                   if tuple(row[p] for p in positions) == k)
    assert sorted(zip(*(a.tolist() for a in found))) == brute


def test_a_closure_modules_relation_is_indexed_on_its_first_column_without_a_sort():
    """Chains of places over more nodes than the dense kernel takes: the closure's pairs (one chunk) are
    stored sorted after the explicit facts, so the index on the first column is built without the packed
    sort (refused here), probes find every row, and every place's related places are those of its chain."""
    rng = np.random.default_rng(3)
    places = rng.permutation(900)
    chains = np.array_split(places, 12)
    edges = [(int(a), int(b)) for chain in chains for a, b in zip(chain[:-1], chain[1:])]
    reasoner = Reasoner(STC, modules="auto")
    reasoner.load_tables({"related": pl.DataFrame({"c0": [a for a, _ in edges], "c1": [b for _, b in edges]})})
    reasoner.materialise()
    relation = reasoner.backend._relations["related"]
    first = relation.columns()[0]
    assert sorted_pieces(first) == 2   # the explicit facts, then the closure's one chunk
    with mock.patch.object(index_module, "sort_with_positions", side_effect=AssertionError("sorted again")):
        index = relation.index((0,))
    first, second = (c.tolist() for c in relation.columns())
    probe = np.array(sorted(set(first)), np.int64)
    at, rows = index.probe([probe], 0, len(relation)).expand(0, probe.size)
    assert sorted(zip(probe[at].tolist(), rows.tolist())) == sorted((k, r) for r, k in enumerate(first))
    pairs = set(zip(reasoner.relation("related")["c0"].to_list(), reasoner.relation("related")["c1"].to_list()))
    assert pairs == {(int(a), int(b)) for chain in chains for a in chain for b in chain}

