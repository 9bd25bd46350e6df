"""Membership in a stored relation's rows as an update's old state sees them (``visible``), for semi/anti-joins
matched on every column (``exists.visible_tuples_check``): the live tuples and those of the rows deleted since
(``Relation.lost_since``), instead of the view's rows materialised and sorted."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from deltalog.api import Reasoner
from deltalog.backends.local import execute
from deltalog.plan import ir
from deltalog.storage.relation import Relation
from deltalog.syntax.parser import parse
from reference import naive_materialise
from test_differential import nonempty
from test_maintenance import engine_state

VALUES = 12


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "del", "revive"]),
                          st.lists(st.tuples(st.integers(0, VALUES), st.integers(0, VALUES)), max_size=8)),
                max_size=20))
def test_live_and_lost_tuples_are_the_rows_not_deleted_by_then(steps):
    relation, generation = Relation("r", 2), 0
    for kind, rows in steps:
        generation += 1
        columns = [np.array([a for a, _ in rows], np.int64), np.array([b for _, b in rows], np.int64)]
        if kind == "del":
            relation.delete(columns, generation=generation)
        else:
            relation.insert(columns, generation=generation, revive_since=0 if kind == "revive" else None)
    probe = [np.repeat(np.arange(-1, VALUES + 2), VALUES + 3), np.tile(np.arange(-1, VALUES + 2), VALUES + 3)]
    died, stored = relation.died() if len(relation) else np.empty(0, np.int64), relation.columns()
    for visible in range(generation + 1):
        lost = relation.lost_since(visible)
        assert lost is not None
        held = {(int(a), int(b)) for a, b, d in zip(*stored, died) if d > visible}
        found = relation.contains(probe) | np.isin(probe[0] * 100 + probe[1], lost[0] * 100 + lost[1])
        assert found.tolist() == [(int(a), int(b)) in held for a, b in zip(*probe)]


TC = """
sub(X, Z) :- sub(X, Y), sub(Y, Z).
"""
"""A transitive closure over its explicit facts (LUBM-like ``subOrganizationOf``)."""


def test_a_closure_deletion_reads_no_old_edges_whole(monkeypatch):
    """Deleting an edge: the closure module's semi-joins with the old explicit edges probe them, and no Distinct
    of a scan of the old state is materialised."""
    edges = [(i, i + 1) for i in range(30)] + [(0, 5), (7, 20)]
    text = TC + "".join(f"sub({a}, {b}).\n" for a, b in edges)
    r = Reasoner(text)
    r.materialise()
    distincts = []
    original = execute._distinct

    def spy(node, ctx):
        if isinstance(node.input, ir.Scan) and node.input.visible is not None:
            distincts.append(node)
        return original(node, ctx)
    monkeypatch.setitem(execute.stream.handlers, ir.Distinct, spy)
    r.update(delete={"sub": [(3, 4), (7, 20)]}, algorithm="dred")
    assert distincts == []
    kept = [e for e in edges if e not in ((3, 4), (7, 20))]
    expected = nonempty(naive_materialise(parse(TC + "".join(f"sub({a}, {b}).\n" for a, b in kept))))
    assert engine_state(r, expected.keys()) == expected


@pytest.mark.parametrize("algorithm", ["dred", "dredc", "counting", "fbf", "bf", "auto"])
@settings(max_examples=20, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=14),
       st.lists(st.tuples(st.sets(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=4), st.booleans()),
                min_size=1, max_size=3))
def test_closures_of_explicit_facts_maintained_as_the_naive_evaluator(algorithm, edges, steps):
    r = Reasoner(TC + "".join(f"sub({a}, {b}).\n" for a, b in sorted(edges)))
    r.materialise()
    for rows, delete in steps:
        rows = (rows & edges or set(sorted(edges)[:1])) if delete else rows - edges
        if not rows:
            continue
        r.update(**{"delete" if delete else "add": {"sub": sorted(rows)}}, algorithm=algorithm)
        edges = edges - rows if delete else edges | rows
        expected = nonempty(naive_materialise(parse(TC + "".join(f"sub({a}, {b}).\n" for a, b in sorted(edges)))))
        assert engine_state(r, ["sub"]) == expected
