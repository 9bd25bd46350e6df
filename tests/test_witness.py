"""The rederivation check that stops at the first witness (``ir.Witnessed``, backends/local/witness.py)
and DRed's one-check settling of strata that read only lower strata (algorithms/lowerbound.py).

The executor's answer is compared with a brute-force enumeration of the body in Python (long
bodies, negation, comparisons, repeated variables, constants, views with deleted rows, tiny
chunks), and whole updates with rematerialisation."""

from __future__ import annotations

import itertools

import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from deltalog.api import Reasoner
from deltalog.backends.local import witness
from deltalog.backends.local.backend import LocalBackend
from deltalog.plan import ir
from deltalog.plan.rules import View, rule_plan
from deltalog.plan.rule_rewrites import HeadIn, NegationsIn, WitnessOnly
from deltalog.syntax.ast import Constant

DOMAIN = range(5)
pairs = st.sets(st.tuples(st.sampled_from(DOMAIN), st.sampled_from(DOMAIN)), max_size=14)

# h(X, W) :- e(X, Y), f(Y, Z), g(Z, W), not n(Y, W), X != Z.   (rule 0)
# h(X, X) :- e(X, Y), e(Y, 3), f(Y, Y).                         (rule 1)
PROGRAM = """\
h(X, W) :- e(X, Y), f(Y, Z), g(Z, W), not n(Y, W), X != Z.
h(X, X) :- e(X, Y), e(Y, 3), f(Y, Y).
"""


def brute_force(rule: int, state: dict[str, set], candidates: set) -> set:
    """The candidates the rule derives in ``state``, by enumerating every instance."""
    e, f, g, n = (state[p] for p in "efgn")
    if rule == 0:
        return {(x, w) for (x, y), (y2, z), (z2, w) in itertools.product(e, f, g)
                if y == y2 and z == z2 and (y, w) not in n and x != z and (x, w) in candidates}
    return {(x, x) for (x, y), (y2, c), (y3, y4) in itertools.product(e, e, f)
            if y == y2 and c == 3 and y == y3 == y4 and (x, x) in candidates}


def engine(relations: dict[str, set], gone: dict[str, set], candidates: set, chunk_rows: int):
    """A reasoner over the relations, then ``gone`` deleted from them (rows kept, marked deleted)."""
    reasoner = Reasoner(PROGRAM, backend=LocalBackend(chunk_rows=chunk_rows), extra_arities={"cand": 2})
    tables = {p: pl.DataFrame(sorted(rows) or None, schema=["a", "b"], orient="row") for p, rows in relations.items()}
    reasoner.load_tables({**tables, "cand": pl.DataFrame(sorted(candidates) or None, schema=["a", "b"],
                                                         orient="row")})
    backend, generation = reasoner.backend, reasoner.reasoning.tick()
    for p, rows in gone.items():
        if rows:
            values = tuple((Constant(a, "int"), Constant(b, "int")) for a, b in sorted(rows))
            backend.delete(relation=p, plan=ir.Values(("c0", "c1"), values), generation=generation)
    return reasoner, generation


def evaluate(reasoner: Reasoner, rule: int, view: View, witnessed: bool) -> set:
    info = reasoner.analysed.rules[rule]
    plan = rule_plan(info, [view] * len(info.positive), reasoner.reasoning,
                     NegationsIn((view,) * len(info.negative)), HeadIn(View(relation="cand")))
    frame = reasoner.backend.evaluate(plan=ir.Witnessed(plan) if witnessed else plan)
    return {tuple(row) for row in frame.rows()}


@settings(max_examples=120)
@given(e=pairs, f=pairs, g=pairs, n=pairs, candidates=pairs, data=st.data(),
       chunk_rows=st.sampled_from([1, 3, 1 << 18]), windows=st.booleans())
def test_witnessed_finds_exactly_the_derived_candidates(e, f, g, n, candidates, data, chunk_rows, windows):
    """``windows``: every Join expands by rank windows (else joins of few matches a row expand at once)."""
    saved = witness.ONE_WINDOW
    witness.ONE_WINDOW = 0 if windows else saved
    try:
        check_witnessed(e, f, g, n, candidates, data, chunk_rows)
    finally:
        witness.ONE_WINDOW = saved


dense = st.sets(st.tuples(st.sampled_from(range(7)), st.sampled_from(range(7))), min_size=10, max_size=40)


@settings(max_examples=60, deadline=None)
@given(e=dense, f=dense, g=dense, n=pairs, candidates=dense, data=st.data(), chunk_rows=st.sampled_from([2, 1 << 18]))
def test_the_last_window_prunes_exactly(e, f, g, n, candidates, data, chunk_rows):
    """Rows with several matches a join: with one window before the rest, most searches reach the last
    window, where the rows a later atom rules out are dropped first (``necessary_checks``)."""
    saved = witness.WINDOWS, witness.ONE_WINDOW
    witness.WINDOWS, witness.ONE_WINDOW = 1, 0
    try:
        check_witnessed(e, f, g, n, candidates, data, chunk_rows)
    finally:
        witness.WINDOWS, witness.ONE_WINDOW = saved


def check_witnessed(e, f, g, n, candidates, data, chunk_rows):
    relations = {"e": e, "f": f, "g": g, "n": n}
    gone = {p: data.draw(st.sets(st.sampled_from(sorted(rows)), max_size=len(rows)) if rows else st.just(set()))
            for p, rows in relations.items()}
    reasoner, generation = engine(relations, gone, candidates, chunk_rows)
    now = {p: rows - gone[p] for p, rows in relations.items()}
    for rule in (0, 1):
        for view, state in ((View(), now), (View(visible=generation - 1), relations)):
            expected = brute_force(rule, state, candidates)
            got = evaluate(reasoner, rule, view, witnessed=True)
            assert got == expected
            assert evaluate(reasoner, rule, view, witnessed=False) == expected


def test_a_candidate_with_many_witnesses_is_reported_once_and_stops_early():
    """400 Y per (X, Z), as p30 of RS2: one output row per candidate, few instances enumerated."""
    e = {(0, y) for y in range(400)} | {(1, y) for y in range(400)}
    f = {(y, 9) for y in range(400)}
    reasoner, _ = engine({"e": e, "f": f, "g": {(9, 0), (9, 1)}, "n": set()}, {}, {(0, 0), (1, 1), (0, 1)}, 1 << 18)
    info = reasoner.analysed.rules[0]
    plan = rule_plan(info, [View()] * 3, reasoner.reasoning, HeadIn(View(relation="cand")), label="r0")
    metrics: dict[str, int] = {}
    frames = list(reasoner.backend.evaluate(plan=ir.Witnessed(plan)).rows())
    assert sorted(frames) == [(0, 0), (0, 1), (1, 1)]
    reasoner.backend.insert(relation="cand", plan=ir.Witnessed(plan), generation=99, metrics=metrics)
    assert metrics["r0"] == 3   # one instance per candidate, not 1,200


# j(X, Y) :- e(Y, X), not n(X, Y), X != Y.   (rule 0)
# j(X, X) :- e(X, 3).                         (rule 1)
JOIN_FREE = """\
j(X, Y) :- e(Y, X), not n(X, Y), X != Y.
j(X, X) :- e(X, 3).
"""


@settings(max_examples=60, deadline=None)
@given(e=pairs, n=pairs, candidates=pairs, gone=pairs, chunk_rows=st.sampled_from([1, 3, 1 << 18]))
def test_a_witness_check_without_a_join_streams_its_plan(e, n, candidates, gone, chunk_rows):
    """With the head bound to the candidates, a one-atom rule's check is semi- and anti-joins: each
    candidate gives at most one row, so the plan is streamed as it is (no ``Search``), with the same
    rows as a brute-force check and one instance counted per witnessed candidate."""
    saved, witness.Search = witness.Search, None   # any search would fail
    try:
        check_join_free(e, n, candidates, gone, chunk_rows)
    finally:
        witness.Search = saved


def check_join_free(e, n, candidates, gone, chunk_rows):
    relations = {"e": e, "n": n}
    deleted = {"e": e & gone, "n": n & gone}
    reasoner = Reasoner(JOIN_FREE, backend=LocalBackend(chunk_rows=chunk_rows), extra_arities={"cand": 2})
    tables = {p: pl.DataFrame(sorted(rows) or None, schema=["a", "b"], orient="row") for p, rows in relations.items()}
    reasoner.load_tables({**tables, "cand": pl.DataFrame(sorted(candidates) or None, schema=["a", "b"],
                                                         orient="row")})
    generation = reasoner.reasoning.tick()
    for p, rows in deleted.items():
        if rows:
            values = tuple((Constant(a, "int"), Constant(b, "int")) for a, b in sorted(rows))
            reasoner.backend.delete(relation=p, plan=ir.Values(("c0", "c1"), values), generation=generation)
    for view, state in ((View(), {p: rows - deleted[p] for p, rows in relations.items()}),
                        (View(visible=generation - 1), relations)):
        expected = ({(x, y) for y, x in state["e"] if (x, y) not in state["n"] and x != y} & candidates,
                    {(x, x) for x, c in state["e"] if c == 3} & candidates)
        for rule, derived in enumerate(expected):
            info = reasoner.analysed.rules[rule]
            plan = ir.Witnessed(rule_plan(info, [view], reasoner.reasoning, NegationsIn((view,) * len(info.negative)),
                                          HeadIn(View(relation="cand")), label="r"))
            assert {tuple(row) for row in reasoner.backend.evaluate(plan=plan).rows()} == derived
            metrics: dict[str, int] = {}
            reasoner.backend.create_relation(relation="out", arity=2)
            reasoner.backend.insert(relation="out", plan=plan, generation=generation + 1, metrics=metrics)
            assert metrics.get("r", 0) == len(derived)
            reasoner.backend.drop(relation="out")


# ---- DRed on strata that read only lower strata, against rematerialisation -----------------------

CASES = {
    "long body and duplicate witnesses": (
        "t(X, W) :- a(X, Y), b(Y, Z), c(Z, V), d(V, W).",
        {"a": [(1, 2), (1, 3)], "b": [(2, 4), (3, 4)], "c": [(4, 5), (4, 6)], "d": [(5, 7), (6, 7)]},
        [({}, {"a": [(1, 2)]}), ({}, {"c": [(4, 5)], "d": [(6, 7)]}), ({"a": [(1, 2)], "d": [(6, 7)]}, {})]),
    "a witness deleted in the same update": (
        "t(X) :- a(X, Y), b(Y).\nu(X) :- t(X), not s(X).\ns(X) :- c(X).",
        {"a": [(1, 2), (1, 3), (2, 3)], "b": [(2,), (3,)], "c": [(2,)]},
        [({}, {"a": [(1, 2)], "b": [(3,)]}), ({"b": [(3,)]}, {"c": [(2,)]}), ({"c": [(1,)]}, {"b": [(2,)]})]),
    "negation becoming true and false": (
        "t(X, Y) :- a(X, Y), not b(Y), X < Y.\nv(X) :- t(X, Y), t(Y, Z).",
        {"a": [(1, 2), (2, 3), (1, 3), (3, 4)], "b": []},
        [({"b": [(3,)]}, {}), ({}, {"b": [(3,)]}), ({"b": [(2,), (4,)]}, {"a": [(1, 3)]})]),
    "explicit facts of a derived predicate": (
        "t(X) :- a(X).\nw(X) :- t(X), a(X).",
        {"a": [(1,), (2,)], "t": [(1,)]},
        [({}, {"a": [(1,), (2,)]}), ({}, {"t": [(1,)]}), ({"a": [(1,)], "t": [(2,)]}, {})]),
    "aggregate": (
        "n(X, C) :- a(X, _), C = count Y : { a(X, Y) }.\nm(X) :- n(X, C), C > 1.",
        {"a": [(1, 2), (1, 3), (2, 3)]},
        [({}, {"a": [(1, 2)]}), ({"a": [(1, 2), (2, 4)]}, {}), ({}, {"a": [(2, 3), (2, 4)]})]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_dred_equals_rematerialisation(case):
    program, facts, updates = CASES[case]
    tables = {p: pl.DataFrame(rows or None, schema=[f"c{i}" for i in range(len(rows[0]) if rows else 1)],
                              orient="row") for p, rows in facts.items()}
    reasoners = {}
    for algorithm in ("dred", "remat"):
        reasoners[algorithm] = Reasoner(program)
        reasoners[algorithm].load_tables({p: t for p, t in tables.items() if t.height})
        reasoners[algorithm].materialise()
    for add, delete in updates:
        for algorithm, reasoner in reasoners.items():
            reasoner.update(add=add, delete=delete, algorithm=algorithm)
        dred, remat = reasoners["dred"], reasoners["remat"]
        for p in remat.predicates():
            assert dred.backend.typed_rows(relation=p) == remat.backend.typed_rows(relation=p), (case, p)


def test_witness_plans_expand_a_join_rather_than_evaluate_the_group_apart():
    """Each candidate needs one match, so a join of 1,000 matches a row no longer loses to a 1M-row
    group evaluated on its own and semi-joined (what made p30's check enumerate p22 ⋈ p21 in full)."""
    from deltalog.plan.walk import walk
    from test_plans import FixedStats, rule
    info = rule("h(X, Z) :- a(X, Y), b(Y, Z).")
    stats = FixedStats({"a": 1000, "b": 1000, "cand": 100_000}, selectivity=1000)
    full = rule_plan(info, [View()] * 2, stats, HeadIn(View(relation="cand")))
    witness = rule_plan(info, [View()] * 2, stats, HeadIn(View(relation="cand")), WitnessOnly())
    assert any(isinstance(n, ir.Distinct) for n in walk(full))
    assert isinstance(witness, ir.Witnessed) and not any(isinstance(n, ir.Distinct) for n in walk(witness))


def test_a_candidate_a_later_atom_rules_out_is_not_expanded(monkeypatch):
    """Candidate (7, 0) has no e(7, Y) left, so no witness, however many g(Z, 0) the search joins first:
    it is dropped before the last window expands all of them (``necessary_checks``), as RS2's p25(a, Z)
    once node a lost every p11 fact."""
    g = {(z, 0) for z in range(400)} | {(z, w) for z, w in zip(range(3000, 5000), range(1, 2001))}
    f = {(y, z) for y in range(3) for z in range(400)}
    e = {(x, y) for x in range(10, 200) for y in range(10)} | {(1, 0), (7, 2)}
    reasoner, _ = engine({"e": e, "f": f, "g": g, "n": set()}, {"e": {(7, 2)}}, {(1, 0), (7, 0)}, 1 << 18)
    info = reasoner.analysed.rules[0]
    plan = rule_plan(info, [View()] * 3, reasoner.reasoning, HeadIn(View(relation="cand")))
    assert str(plan).index("Scan g") < str(plan).index("Scan e")   # the planner joins g(Z, W) first
    expanded: list[int] = []
    joined = witness.Search.joined
    monkeypatch.setattr(witness.Search, "joined", lambda *a: expanded.append((out := joined(*a)).length) or out)
    assert sorted(reasoner.backend.evaluate(plan=ir.Witnessed(plan)).rows()) == [(1, 0)]
    assert sum(expanded) < 200   # not the 400 g(Z, 0) and their f(Y, Z) of candidate (7, 0)
