"""A store's relations are opened without their tuple sets (storage/tupleset.py ``defer``): a query hashes
nothing, and whatever first changes a relation (insert, delete, rollback, compaction) builds its set from
the rows live at the open, so updates after an open answer as a fresh materialisation does."""

from __future__ import annotations

from unittest import mock

import numpy as np
import polars as pl
from hypothesis import given, settings, strategies as st

from deltalog.api import Reasoner
from deltalog.storage import hashmap, hashset, tupleset
from deltalog.storage.deaths import ALIVE
from deltalog.storage.relation import Relation

PROGRAM = """\
related(X, Y) :- related(Y, X).
related(X, Z) :- related(X, Y), related(Y, Z).
reach(X, Y) :- edge(X, Y).
reach(X, Z) :- reach(X, Y), edge(Y, Z).
linked(X) :- related(X, Y), reach(X, Y).
"""

pairs = st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=25, unique=True)


def frame(rows: list[tuple[int, int]]) -> pl.DataFrame:
    return pl.DataFrame({"c0": [a for a, _ in rows], "c1": [b for _, b in rows]},
                        schema={"c0": pl.Int64, "c1": pl.Int64})


def facts(reasoner: Reasoner) -> dict[str, set]:
    return {p: set(reasoner.relation(p).iter_rows()) for p in ("related", "reach", "linked")}


def test_a_query_on_an_opened_store_hashes_no_relation(tmp_path):
    reasoner = Reasoner(PROGRAM)
    reasoner.load_tables({"related": frame([(1, 2), (2, 3)]), "edge": frame([(1, 2), (2, 3), (3, 1)])})
    reasoner.save(tmp_path / "store")
    with mock.patch.object(tupleset.TupleSet, "rebuild", side_effect=AssertionError("a tuple set was built")):
        opened = Reasoner.open(tmp_path / "store")
        assert set(opened.query("linked(X)").iter_rows()) == {(1,), (2,), (3,)}


@settings(deadline=None, max_examples=25)
@given(pairs, pairs, pairs, pairs, st.sampled_from(["auto", "dred", "remat"]))
def test_updates_after_an_open_equal_a_fresh_materialisation(tmp_path_factory, related, edge, delete, add, algorithm):
    """Save, open, delete and add (each after a fresh open), against the same facts materialised afresh."""
    store = tmp_path_factory.mktemp("s") / "store"
    first = Reasoner(PROGRAM)
    first.load_tables({"related": frame(related), "edge": frame(edge)})
    first.save(store)
    gone = [r for r in delete if r in set(related)]
    for change in ({"delete": {"related": frame(gone), "edge": frame(delete)}}, {"add": {"edge": frame(add)}}):
        with Reasoner.open(store, writable=True) as opened:
            opened.update(**change, algorithm=algorithm)
            opened.save(store)
    expected = Reasoner(PROGRAM)
    kept = [r for r in related if r not in set(gone)]
    edges = [r for r in edge if r not in set(delete)] + [r for r in add if r not in set(edge) - set(delete)]
    expected.load_tables({"related": frame(kept), "edge": frame(sorted(set(edges)))})
    expected.materialise()
    assert facts(Reasoner.open(store)) == facts(expected)


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=40, unique=True),
       st.sets(st.integers(0, 39)), st.sets(st.integers(0, 39)))
def test_a_restored_relation_rolled_back_before_its_set_is_built_holds_its_live_rows(rows, early, late):
    """Rows deleted at generation 1 (saved), then more at generation 2: a rollback to 2 right after the
    restore (the set still deferred) revives the second ones, and the set holds exactly the live rows."""
    relation = Relation("r", 2)
    relation.insert([np.array(c, np.int64) for c in zip(*rows)], generation=0)
    for generation, picked in ((1, early), (2, late - early)):
        gone = [rows[i] for i in sorted(picked) if i < len(rows)]
        if gone:
            relation.delete([np.array(c, np.int64) for c in zip(*gone)], generation=generation)
    died = relation.died() if relation.deleted_rows else None
    restored = Relation.restore("r", 2, [c.copy() for c in relation.columns()], relation._generations,
                                relation._ends, None if died is None else died.copy())
    restored.rollback(2)
    stored = list(zip(*(c.tolist() for c in restored.columns())))
    live = restored.died() == ALIVE if restored.deleted_rows else np.ones(len(restored), bool)
    alive = {row for row, up in zip(stored, live.tolist()) if up}
    assert alive == set(rows) - {rows[i] for i in early if i < len(rows)}
    columns = [np.array(c, np.int64) for c in zip(*rows)]
    assert restored.contains(columns).tolist() == [row in alive for row in rows]


@settings(deadline=None, max_examples=25)
@given(pairs, pairs, st.lists(st.tuples(st.sampled_from(["add", "delete"]), pairs), min_size=1, max_size=5),
       st.sampled_from(["auto", "dred", "remat"]))
def test_updates_on_sorted_first_batches_after_opens_equal_a_fresh_materialisation(tmp_path_factory, related, edge,
                                                                                   changes, algorithm):
    """Every hash set a sorted first batch (``SORTED_RUN_MIN`` 1): each update on a freshly opened store takes
    its sets over in key order and pops from them without a table (storage/hashmap.py ``_pop_sorted``),
    then adds; each result equals the same facts materialised afresh."""
    store = tmp_path_factory.mktemp("s") / "store"
    with mock.patch.object(hashset, "SORTED_RUN_MIN", 1), mock.patch.object(hashmap, "SORTED_RUN_MIN", 1):
        first = Reasoner(PROGRAM)
        first.load_tables({"related": frame(related), "edge": frame(edge)})
        first.save(store)
        now = {"related": set(related), "edge": set(edge)}
        for kind, rows in changes:
            with Reasoner.open(store, writable=True) as opened:
                if kind == "delete":
                    opened.update(delete={"related": frame(rows), "edge": frame(rows)}, algorithm=algorithm)
                    now = {p: facts - set(rows) for p, facts in now.items()}
                else:
                    opened.update(add={"edge": frame(rows)}, algorithm=algorithm)
                    now["edge"] |= set(rows)
                opened.save(store)
        expected = Reasoner(PROGRAM)
        expected.load_tables({p: frame(sorted(rows)) for p, rows in now.items() if rows})
        expected.materialise()
        assert facts(Reasoner.open(store)) == facts(expected)
