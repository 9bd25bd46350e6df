"""The ``auto`` policy (algorithms/auto.py): additions never rematerialise, and a DRed run whose
overdeletion passes its budget is rolled back and replaced by a rematerialisation, all or nothing.

Every result is compared with a fresh materialisation of the new explicit facts."""

from __future__ import annotations

import functools

import polars as pl
import pytest
from hypothesis import event, given, note, settings

from deltalog.algorithms import auto, dred, maintain, seminaive
from deltalog.algorithms.update import Update, UpdateViews
from deltalog.api import Reasoner
from reference import naive_materialise
from strategies import apply_update, programs_facts_and_updates
from test_differential import nonempty, with_facts
from test_maintenance import engine_state, python_rows

TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"
"""Transitive closure: ``path`` is generative, so every change of ``edge`` feeds generative recursion."""

WITH_NEGATION = TC + "node(X) :- edge(X, Y).\nnode(Y) :- edge(X, Y).\nunreached(X) :- node(X), not path(0, X).\n"


def chain(n: int, start: int = 0) -> list[tuple[int, int]]:
    """Edges start -> start+1 -> ... -> start+n."""
    return [(i, i + 1) for i in range(start, start + n)]


def edges(rows: list[tuple[int, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"a": pl.Int64, "b": pl.Int64}, orient="row")


def materialised(program: str, rows: list[tuple[int, int]], modules: str = "auto") -> Reasoner:
    reasoner = Reasoner(program, modules=modules)
    reasoner.load_tables({"edge": edges(rows)})
    reasoner.materialise()
    return reasoner


def frames(reasoner: Reasoner) -> dict[str, pl.DataFrame]:
    """Every predicate's facts, sorted: comparable with ``equals`` (sets of Python tuples are too slow
    for the millions of facts of a long chain)."""
    return {p: reasoner.relation(p).sort(by=reasoner.relation(p).columns) for p in sorted(reasoner.predicates())}


def assert_same_facts(reasoner: Reasoner, expected: Reasoner) -> None:
    got, want = frames(reasoner), frames(expected)
    assert got.keys() == want.keys()
    for predicate in want:
        assert got[predicate].height == want[predicate].height, predicate
        assert got[predicate].equals(want[predicate]), predicate


def budget_of(reasoner: Reasoner) -> int:
    """The overdeletion budget ``auto`` gives DRed on this materialisation."""
    update = Update(reasoner.reasoning, UpdateViews(reasoner.reasoning.tick()))
    return max(auto.MIN_OVERDELETION_BUDGET,
               int(auto.OVERDELETION_BUDGET_FRACTION * auto.rematerialisation_size(update)))


# ---- additions never rematerialise ----------------------------------------------------------

@pytest.mark.parametrize("program", [TC, WITH_NEGATION])
@pytest.mark.parametrize("modules", ["auto", "none"])
def test_small_additions_run_dred_past_the_deletion_thresholds(program, modules):
    """Adding 2 edges to 200 (1% of the explicit facts, all feeding the closure) would rematerialise
    as a deletion (0.1% rule by rule); additions have their own break-even (ADD_REMAT_FRACTION, 2%)."""
    reasoner = materialised(program, chain(200), modules)
    added = chain(2, start=1_000)
    result = reasoner.update(add={"edge": edges(added)}, algorithm="auto")
    assert result.algorithm == "dred" and not result.abandoned
    assert result.added["path"].height == 3
    assert engine_state(reasoner, reasoner.predicates()) == \
        engine_state(materialised(program, chain(200) + added, modules), reasoner.predicates())


@pytest.mark.parametrize("program", [TC, WITH_NEGATION])
def test_large_additions_rematerialise(program):
    """Adding 60 edges to 40 (60% of the explicit facts after the update): inserting costs more per
    fact than deriving from scratch, so past ADD_REMAT_FRACTION ``auto`` rematerialises."""
    reasoner = materialised(program, chain(40))
    added = chain(60, start=100)
    result = reasoner.update(add={"edge": edges(added)}, algorithm="auto")
    assert result.algorithm == "remat" and not result.abandoned
    assert result.added["path"].height == 60 * 61 // 2 and not result.removed
    assert engine_state(reasoner, reasoner.predicates()) == \
        engine_state(materialised(program, chain(40) + added), reasoner.predicates())


def test_additions_with_only_ignored_deletions_are_additions():
    """Deleting a fact that is not there deletes nothing: the update is judged as one that only adds
    (as one that deletes, 1% feeding rule-by-rule recursion would rematerialise)."""
    reasoner = materialised(TC, chain(200), modules="none")
    result = reasoner.update(add={"edge": edges(chain(2, start=1_000))}, delete={"edge": edges([(7, 3)])},
                             algorithm="auto")
    assert result.algorithm == "dred" and result.ignored_deletions == {"edge": 1}


def test_deletions_past_the_threshold_still_rematerialise():
    """The other half of the policy is unchanged: deleting 1 of 40 edges (2.5%) rematerialises upfront
    when DRed evaluates the closure rule by rule (generative recursion: 0.1%)."""
    reasoner = materialised(TC, chain(40), modules="none")
    result = reasoner.update(delete={"edge": edges([(20, 21)])}, algorithm="auto")
    assert result.algorithm == "remat" and not result.abandoned


def test_deletions_upstream_of_a_closure_module_have_their_own_threshold():
    """With the closure a module (modules auto), its Del/Add maintain it: 1 of 40 edges (2.5%) runs
    DRed, 3 of 40 (7.5%) is past MODULE_REMAT_FRACTION (5%); both end where a rematerialisation does."""
    for deleted, algorithm in (([(20, 21)], "dred"), ([(5, 6), (20, 21), (30, 31)], "remat")):
        reasoner = materialised(WITH_NEGATION, chain(40))
        result = reasoner.update(delete={"edge": edges(deleted)}, algorithm="auto")
        assert result.algorithm == algorithm and not result.abandoned
        kept = [e for e in chain(40) if e not in deleted]
        assert engine_state(reasoner, reasoner.predicates()) == \
            engine_state(materialised(WITH_NEGATION, kept), reasoner.predicates())


STC = "linked(X, Y) :- link(X, Y).\nlinked(X, Y) :- linked(Y, X).\nlinked(X, Z) :- linked(X, Y), linked(Y, Z).\n"


def test_a_closure_module_deleting_past_two_percent_is_not_abandoned():
    """100 chains of 100 places closed into cliques (1M pairs); cutting 10 chains in the middle loses
    50,000 pairs (5% of the materialisation, past the 2% budget counted fact for fact): the STC
    module's Del is a closure difference, weighed CLOSURE_DELETION_WEIGHT, so DRed runs through."""
    rows = [(c * 1_000 + i, c * 1_000 + i + 1) for c in range(100) for i in range(99)]
    cut = [(c * 1_000 + 49, c * 1_000 + 50) for c in range(10)]
    frame = pl.DataFrame(rows, schema={"a": pl.Int64, "b": pl.Int64}, orient="row")
    reasoner = Reasoner(STC)
    reasoner.load_tables({"link": frame})
    result = reasoner.update(delete={"link": edges(cut)}, algorithm="auto")
    assert result.algorithm == "dred" and not result.abandoned
    assert result.removed["linked"].height == 10 * 5_000 > budget_of(reasoner)
    expected = Reasoner(STC)
    expected.load_tables({"link": edges([r for r in rows if r not in set(cut)])})
    assert_same_facts(reasoner, expected)


# ---- a runaway overdeletion is abandoned ----------------------------------------------------

def test_auto_abandons_a_runaway_overdeletion_on_a_long_chain():
    """Deleting the middle edge of a 3,000-edge chain deletes 1,501 x 1,500 of its 4.5M paths; one
    edge is 0.03% of the explicit facts, so ``auto`` starts DRed, which overdeletes past its budget
    (5% of the paths), gives up and rematerialises."""
    n, middle = 3_000, (1_500, 1_501)
    reasoner = materialised(TC, chain(n))
    budget = budget_of(reasoner)
    result = reasoner.update(delete={"edge": edges([middle])}, algorithm="auto")
    assert result.algorithm == "remat"
    assert result.abandoned.startswith("dred: overdeleted")
    spent = int(result.abandoned.split("overdeleted ")[1].split(" facts")[0].replace(",", ""))
    assert spent > budget   # DRed did run, and gave up
    assert result.removed["path"].height == 1_501 * 1_500 and not result.added
    assert_same_facts(reasoner, materialised(TC, [e for e in chain(n) if e != middle]))


def test_explicit_dred_runs_to_completion():
    """The same kind of update with ``dred`` asked for by name: no budget, DRed overdeletes far past it."""
    n, middle = 1_200, (600, 601)
    reasoner = materialised(TC, chain(n))
    budget = budget_of(reasoner)
    result = reasoner.update(delete={"edge": edges([middle])}, algorithm="dred")
    assert result.algorithm == "dred" and not result.abandoned
    assert result.overdeleted["path"] == 601 * 600 > budget
    assert_same_facts(reasoner, materialised(TC, [e for e in chain(n) if e != middle]))


def test_auto_abandons_the_same_update():
    n, middle = 1_200, (600, 601)
    reasoner = materialised(TC, chain(n))
    result = reasoner.update(delete={"edge": edges([middle])}, algorithm="auto")
    assert result.algorithm == "remat" and result.abandoned
    assert_same_facts(reasoner, materialised(TC, [e for e in chain(n) if e != middle]))


def test_a_small_overdeletion_stays_with_dred():
    """Deleting the last edge overdeletes 1,201 paths: far below the budget."""
    reasoner = materialised(TC, chain(1_200))
    result = reasoner.update(delete={"edge": edges([(1_199, 1_200)])}, algorithm="auto")
    assert result.algorithm == "dred" and not result.abandoned
    assert_same_facts(reasoner, materialised(TC, chain(1_199)))


# ---- all or nothing -------------------------------------------------------------------------

class Boom(RuntimeError):
    pass


def test_a_failure_inside_the_fallback_leaves_the_state_unchanged(monkeypatch):
    n = 1_200
    reasoner = materialised(TC, chain(n))
    before = frames(reasoner)
    real = seminaive.materialise

    def materialise_then_fail(*args, **kwargs):
        real(*args, **kwargs)
        raise Boom("after rematerialising")

    monkeypatch.setattr(seminaive, "materialise", materialise_then_fail)
    with pytest.raises(Boom):
        reasoner.update(delete={"edge": edges([(600, 601)])}, add={"edge": edges([(5_000, 5_001)])},
                        algorithm="auto")
    assert frames(reasoner).keys() == before.keys()
    assert all(frames(reasoner)[p].equals(before[p]) for p in before)
    monkeypatch.undo()
    result = reasoner.update(delete={"edge": edges([(600, 601)])}, algorithm="auto")   # still usable
    assert result.algorithm == "remat" and result.abandoned
    assert_same_facts(reasoner, materialised(TC, [e for e in chain(n) if e != (600, 601)]))


def test_other_failures_under_auto_are_not_turned_into_rematerialisations(monkeypatch):
    """Only the budget signal falls back: any other error in DRed propagates, state unchanged."""
    reasoner = materialised(TC, chain(1_200))
    before = frames(reasoner)

    def fail(*args, **kwargs):
        raise Boom("in DRed")

    monkeypatch.setattr(dred, "rederive", fail)
    with pytest.raises(Boom):
        reasoner.update(delete={"edge": edges([(1_199, 1_200)])}, algorithm="auto")
    assert all(frames(reasoner)[p].equals(before[p]) for p in before)


@settings(max_examples=60)
@given(programs_facts_and_updates())
def test_every_overdeletion_falling_back_still_equals_rematerialisation(case):
    """With a zero budget, every ``auto`` update that overdeletes anything (through negation and
    aggregates too, additions included) is rolled back and rematerialised: random stratified
    programs, compared with the naive evaluator after every batch."""
    program, facts, batches = case
    reasoner = Reasoner(with_facts(program, facts))
    reasoner.materialise()
    note(str(with_facts(program, facts)))
    zero = functools.partial(auto.OverdeletionBudget, fraction=0.0, floor=0)
    # patched by hand: Hypothesis runs the body many times per function-scoped monkeypatch fixture
    original, maintain.OverdeletionBudget = maintain.OverdeletionBudget, zero
    try:
        for add, delete in batches:
            note(f"update: add {add}, delete {delete}")
            result = reasoner.update(add={p: python_rows(r) for p, r in add.items() if r},
                                     delete={p: python_rows(r) for p, r in delete.items() if r}, algorithm="auto")
            event("fell back to remat" if result.abandoned else f"ran {result.algorithm}")
            assert not result.abandoned or (result.algorithm == "remat" and not result.overdeleted)
            facts = apply_update(facts, add, delete)
            expected = nonempty(naive_materialise(program, facts))
            assert engine_state(reasoner, expected.keys() | reasoner.analysed.arities.keys()) == expected
    finally:
        maintain.OverdeletionBudget = original
