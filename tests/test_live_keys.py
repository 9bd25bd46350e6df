"""Live counts per value (storage/livekeys.py): they follow a relation's rows through appends, deletions,
revivals, rollbacks and compactions, and DRed's checks that read them give the naive evaluator's results."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, note, settings, strategies as st

from deltalog.api import Reasoner
from deltalog.backends.local import execute  # noqa: F401  (imports exists in its order)
from deltalog.backends.local import exists
from deltalog.storage import livekeys
from deltalog.storage.relation import Relation
from deltalog.syntax.parser import parse
from reference import naive_materialise
from strategies import apply_update, programs_facts_and_updates
from test_differential import nonempty, with_facts
from test_maintenance import engine_state, python_rows, recursive_aggregates

VALUES = 40


def live_rows(relation: Relation) -> set[tuple[int, int]]:
    died = relation.died()
    columns = relation.columns()
    return {(int(a), int(b)) for a, b, d in zip(*columns, died) if d == np.iinfo(np.int64).max}


def check_counts(relation: Relation, model: set[tuple[int, int]], scale: int, generation: int) -> None:
    """Live values against the model; values of rows not deleted by the end of each earlier generation
    against the death marks."""
    probe = np.arange(-1, VALUES + 2, dtype=np.int64) * scale
    died, columns = relation.died(), relation.columns()
    for position in (0, 1):
        found = relation.holds_live(position, probe)
        assert found is not None
        held = {t[position] for t in model}
        assert found.tolist() == [int(v) in held for v in probe]
        for visible in range(generation + 1):
            held = {int(v) for v, d in zip(columns[position], died) if d > visible}
            found = relation.holds_live(position, probe, visible)
            assert found is not None and found.tolist() == [int(v) in held for v in probe]


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "del", "revive", "rollback", "compact", "ask"]),
                          st.lists(st.tuples(st.integers(0, VALUES), st.integers(0, VALUES)), max_size=10),
                          st.integers(0, 4)), max_size=30),
       st.sampled_from([1, 1000]))
def test_live_counts_follow_the_rows(steps, scale):
    """Asked at any point (the counts are made at the first question, then follow the rows): which values
    a live row holds at each column, against a model of the live tuples, and which a row alive at the end
    of each earlier generation holds."""
    with mock.patch.object(livekeys, "MIN_ROWS", 0):
        relation, model, generation, states, revivals, asked = Relation("r", 2), set(), 0, {}, [], False
        compacted = 0   # a rollback goes back no further than the last compaction (it forgot the dead rows)
        for kind, rows, back in steps:
            generation += 1
            states[generation] = set(model)
            tuples = {(a * scale, b * scale) for a, b in rows}
            cols = [np.array([t[i] for t in tuples], np.int64) for i in range(2)]
            if kind == "rollback":   # to the start of an update: no revival since went back past it
                cut = max(1, generation - back, compacted + 1)
                while (earlier := [since for g, since in revivals if g >= cut and since < cut]):
                    cut = min(earlier)
                if cut <= compacted:
                    continue
                relation.rollback(cut)
                model = states[cut]
                states.update({g: set(model) for g in range(cut, generation + 1)})
            elif kind == "compact":
                relation.compact()
                compacted = generation
            elif kind == "del":
                relation.delete(cols, generation=generation)
                model -= tuples
            elif kind == "ask":
                asked = True
            elif tuples:
                since = max(1, generation - back) if kind == "revive" else None
                revivals.extend([(generation, since)] if since is not None else [])
                relation.insert(cols, generation=generation, revive_since=since)
                model |= tuples
            assert live_rows(relation) == model
            if asked and len(relation):
                check_counts(relation, model, scale, generation)


def test_a_relation_too_sparse_for_its_rows_keeps_no_counts():
    relation = Relation("r", 1)
    relation.insert([np.arange(0, 300 * 10**6, 10**6)], generation=1)   # 300 rows over 3e8 ids
    assert relation.holds_live(0, np.array([0])) is None
    dense = Relation("d", 1)
    dense.insert([np.arange(300)], generation=1)
    assert dense.holds_live(0, np.array([0, 299, 300])).tolist() == [True, True, False]


RULES = """
student(X) :- undergraduate(X).
person(X) :- student(X).
person(X) :- member(X, D).
student(X) :- person(X), takes(X, C), course(C).
course(C) :- takes(X, C).
"""
FACTS = {("undergraduate", ("s",)), ("takes", ("s", "c1")), ("takes", ("s", "c2")), ("takes", ("t", "c1")),
         ("takes", ("u", "c3")), ("member", ("t", "d")), ("member", ("u", "d"))}


def program_text(facts) -> str:
    return RULES + "".join(f"{p}({', '.join(args)}).\n" for p, args in sorted(facts))


def test_dred_checks_a_projected_atom_by_its_live_counts(monkeypatch):
    """``course(C) :- takes(X, C)`` and ``person(X) :- member(X, D)`` check their candidates by the live
    values of one column of ``takes`` and ``member``: the counts answer, and the results are the naive
    evaluator's after each deletion and re-addition."""
    monkeypatch.setattr(livekeys, "MIN_ROWS", 0)
    answered = []
    original = exists.live_values_check

    def spy(right, on, ctx):
        check = original(right, on, ctx)
        answered.extend([right.relation] if check is not None else [])
        return check
    monkeypatch.setattr(exists, "live_values_check", spy)
    r = Reasoner(program_text(FACTS))
    r.materialise()
    facts = set(FACTS)
    for gone in ({("takes", ("t", "c1")), ("takes", ("u", "c3"))}, {("member", ("t", "d"))},
                 {("takes", ("s", "c2"))}):
        batch: dict[str, list] = {}
        for p, args in gone:
            batch.setdefault(p, []).append(args)
        for step in ("delete", "add"):
            r.update(**{step: batch}, algorithm="dred")
            facts = facts - gone if step == "delete" else facts | gone
            expected = nonempty(naive_materialise(parse(program_text(facts))))
            assert engine_state(r, expected.keys() | {"course", "person", "student"}) == expected
    assert {"takes", "member"} <= set(answered)


@settings(max_examples=60, deadline=None)
@given(programs_facts_and_updates())
def test_dred_with_live_counts_everywhere_agrees_with_the_naive_evaluator(case):
    """Random programs and updates, every relation keeping live counts from its first row on."""
    program, facts, batches = case
    with mock.patch.object(livekeys, "MIN_ROWS", 0):
        r = Reasoner(with_facts(program, facts))
        r.materialise()
        note(str(with_facts(program, facts)))
        if recursive_aggregates(r):
            return
        for add, delete in batches:
            changes = {"add": {p: python_rows(x) for p, x in add.items() if x},
                       "delete": {p: python_rows(x) for p, x in delete.items() if x}}
            r.update(**changes, algorithm="dred")
            facts = apply_update(facts, add, delete)
            expected = nonempty(naive_materialise(program, facts))
            assert engine_state(r, expected.keys() | r.analysed.arities.keys()) == expected
