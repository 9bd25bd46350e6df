"""A closure module's output in key order (backends/local/closure.py ``component_pairs``) and indexes built over
rows stored in a few sorted pieces (storage/index.py ``sorted_pieces``): the symmetric-transitive closure's
pairs arrive sorted by (x, y), the relation stores them so (after its explicit facts), and its first column's
index merges the two pieces instead of sorting them; probes answer as brute force does."""

from __future__ import annotations

from unittest import mock

import networkx as nx
import numpy as np
import polars as pl
from hypothesis import given, settings, strategies as st

from deltalog.api import Reasoner
from deltalog.backends.local import closure, dense_closure
from deltalog.storage import index as index_module, uniques
from deltalog.storage.index import MERGED_PIECES, SortedIndex, sorted_pieces

STC = """\
related(X, Y) :- related(Y, X).
related(X, Z) :- related(X, Y), related(Y, Z).
"""


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=80),
       st.none() | st.lists(st.integers(0, 62), max_size=6), st.integers(1, 9), st.booleans())
def test_component_pairs_come_sorted_by_x_then_y(edges, nodes, chunk, dense):
    """Every chunk size, the dense kernel and the components one: the pairs are networkx's cliques, each
    once, in (x, y) order."""
    src, dst = (np.array(c, np.int64) for c in zip(*edges))
    with mock.patch.object(dense_closure, "DENSE_NODES", dense_closure.DENSE_NODES if dense else 0):
        x, y = closure.collect(closure.component_pairs(
            src, dst, None if nodes is None else np.array(nodes, np.int64), chunk=chunk))
    pairs = list(zip(x.tolist(), y.tolist()))
    assert pairs == sorted(set(pairs))
    expected = {(a, b) for comp in nx.connected_components(nx.Graph(edges))
                if nodes is None or comp & set(nodes) for a in comp for b in comp}
    assert set(pairs) == expected


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
    """Chains of places over more nodes than the dense kernel takes: the closure's pairs are stored in key
    order after the explicit facts, so the index on the first column is built without the packed sort
    (refused here), and every place's related places are those of its chain."""
    rng = np.random.default_rng(3)
    places = rng.permutation(900)
    chains = np.array_split(places, 12)
    edges = [(int(a), int(b)) for chain in chains for a, b in zip(chain[:-1], chain[1:])]
    reasoner = Reasoner(STC, modules="auto")
    reasoner.load_tables({"related": pl.DataFrame({"c0": [a for a, _ in edges], "c1": [b for _, b in edges]})})
    reasoner.materialise()
    relation = reasoner.backend._relations["related"]
    first = relation.columns()[0]
    assert sorted_pieces(first) == 2   # the explicit facts, then the closure's pairs
    with mock.patch.object(index_module, "sort_with_positions", side_effect=AssertionError("sorted again")):
        index = relation.index((0,))
    first, second = (c.tolist() for c in relation.columns())
    probe = np.array(sorted(set(first)), np.int64)
    at, rows = index.probe([probe], 0, len(relation)).expand(0, probe.size)
    assert sorted(zip(probe[at].tolist(), rows.tolist())) == sorted((k, r) for r, k in enumerate(first))
    pairs = set(zip(reasoner.relation("related")["c0"].to_list(), reasoner.relation("related")["c1"].to_list()))
    assert pairs == {(int(a), int(b)) for chain in chains for a in chain for b in chain}


@given(st.lists(st.integers(-2**40, 2**40), max_size=9000), st.booleans())
def test_sorted_unique_is_np_unique_and_takes_distinct_sorted_values_without_a_sort(values, presorted):
    """``sorted_unique`` equals ``np.unique``; values already strictly increasing over a wide span (a closure's
    chunk of packed pairs) are copied, not sorted (``np.sort`` refused)."""
    array = np.array(sorted(set(values)) if presorted else values, np.int64)
    assert uniques.sorted_unique(array).tolist() == np.unique(array).tolist()
    wide = np.cumsum(np.arange(1, 5000, dtype=np.int64) * 1000)   # 4,999 values, span far past 4x their number
    with mock.patch.object(uniques.np, "sort", side_effect=AssertionError("sorted again")):
        assert uniques.sorted_unique(wide).tolist() == wide.tolist()
