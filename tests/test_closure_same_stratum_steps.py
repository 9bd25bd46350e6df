"""Linear closure modules whose step relation is derived in R's own stratum (issue 13, stop 22): the step
``q`` a union of rules, some over lower relations and some over R itself (filtered, negated, renamed).
The module is chosen for these shapes, and modules auto == modules none == the naive reference under
random updates for every maintenance algorithm (local backend here; Spark: test_spark_closure.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deltalog.analysis import analyse
from deltalog.syntax.parser import parse
from strategies import rows, update_sequences
from test_closure_modules import ALGORITHMS, EXTRAS, kinds, modules_agree_through_updates, rows_of, state

STEP = "q(X,Y) :- e(X,Y). "   # the step's lower rule; the shapes add the rules over R
SHAPES = {
    "filtered": STEP + "q(X,Y) :- r(X,Y), f(X). r(X,Y) :- q(X,Y). r(X,Z) :- r(X,Y), q(Y,Z).",
    "comparison": STEP + "q(X,Y) :- r(X,Y), X != 1. r(X,Y) :- q(X,Y). r(X,Z) :- r(X,Y), q(Y,Z).",
    "negated": STEP + "q(X,Y) :- r(X,Y), !f(Y). r(X,Y) :- q(X,Y). r(X,Z) :- r(X,Y), q(Y,Z).",
    "reversed": STEP + "q(X,Y) :- r(Y,X), f(Y). r(X,Y) :- q(X,Y). r(X,Z) :- r(X,Y), q(Y,Z).",
    "left": STEP + "q(X,Y) :- r(X,Y), f(Y). r(X,Y) :- q(X,Y). r(X,Z) :- q(X,Y), r(Y,Z).",
    "through t": STEP + "t(X,Y) :- r(X,Y), f(Y). q(X,Y) :- t(Y,X). r(X,Y) :- q(X,Y). r(X,Z) :- r(X,Y), q(Y,Z).",
    "two steps": STEP + "q(X,Y) :- r(X,Y), f(Y). r(X,Y) :- q(X,Y). r(X,Y) :- d(X,Y). "
                        "r(X,Z) :- r(X,Y), q(Y,Z). r(X,Z) :- r(X,Y), d(Y,Z).",
    "irreflexive": STEP + "q(X,Y) :- r(X,Y), f(X). r(X,Y) :- q(X,Y). r(X,Z) :- r(X,Y), q(Y,Z), X != Z.",
    "other facts": STEP + "q(X,Y) :- r(X,Y), f(X). r(X,Y) :- q(X,Y). r(X,Y) :- d(Y,X), !f(X). "
                          "r(X,Z) :- r(X,Y), q(Y,Z).",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_linear_module_takes_a_step_of_its_own_stratum(shape):
    """Base refused the module here (stop 21): the stratum ran seminaive."""
    assert ("linear-transitive", "r") in kinds(SHAPES[shape])
    assert {k for k, _ in kinds(SHAPES[shape], modules="none")} == {"seminaive"}


def test_graph_and_stats_show_the_module(tmp_path, capsys):
    from deltalog.cli import main
    path = tmp_path / "p.dl"
    path.write_text(SHAPES["comparison"].replace(". ", ".\n") + "\ne(1, 2).\ne(2, 3).\n")
    main(["graph", str(path)])
    assert "module linear-transitive r over q: rule 3" in capsys.readouterr().out
    stratum = next(s for s in analyse(parse(SHAPES["comparison"])).strata if "r" in s.predicates)
    assert [c.describe() for c in stratum.modules] == ["seminaive: rule 1, rule 2",
                                                        "linear-transitive r over q: rule 3"]


@st.composite
def cases(draw):
    text = draw(st.sampled_from(sorted(SHAPES.values())))
    extras = draw(st.lists(st.sampled_from(sorted(EXTRAS.values())), unique=True, max_size=2))
    program = parse(" ".join([text, *extras]))
    domain = draw(st.sampled_from((4, 5, 6)))
    facts = {"e": draw(rows(2, 10, domain)), "d": draw(rows(2, 5, domain)), "f": draw(rows(1, 3, domain))}
    if draw(st.integers(0, 3)) == 0:
        facts["q"] = draw(rows(2, 3, domain))   # explicit facts of the step
    if draw(st.integers(0, 3)) == 0:
        facts["r"] = draw(rows(2, 3, domain))   # and of the closure predicate
    return program, facts, draw(update_sequences(facts, program, max_batches=4))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@given(cases())
def test_same_stratum_steps_equal_seminaive_and_naive(algorithm, case):
    modules_agree_through_updates(*case, algorithm)


def facts_text(edges: set, marks: set) -> str:
    return "".join(f"e({a}, {b}). " for a, b in sorted(edges)) + "".join(f"f({a}). " for (a,) in sorted(marks))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("shape", ["filtered", "left", "through t"])
def test_same_stratum_steps_at_scale(shape, algorithm):
    """A random graph of 300 nodes (cycles included) under deletions and re-additions of a tenth of its
    edges and some marks: modules auto == none == a fresh materialisation of the final facts."""
    rng = random.Random(13)
    edges = {(rng.randrange(300), rng.randrange(300)) for _ in range(450)}
    marks = {(rng.randrange(300),) for _ in range(60)}
    auto, none = (state(SHAPES[shape] + facts_text(edges, marks), m) for m in ("auto", "none"))
    gone = set(rng.sample(sorted(edges), 45))
    lost = set(rng.sample(sorted(marks), 10))
    for add, delete in (({}, {"e": sorted(gone), "f": sorted(lost)}), ({"e": sorted(gone)}, {}),
                        ({"f": sorted(lost)}, {"e": sorted(gone)[:20]})):
        for reasoner in (auto, none):
            reasoner.update(add=add, delete=delete, algorithm=algorithm)
        edges = (edges - set(delete.get("e", []))) | set(add.get("e", []))
        marks = (marks - set(delete.get("f", []))) | set(add.get("f", []))
        fresh = state(SHAPES[shape] + facts_text(edges, marks), "none")
        for p in ("r", "q"):
            assert rows_of(auto, p) == rows_of(none, p) == rows_of(fresh, p)


def test_later_adds_emit_only_new_pairs(monkeypatch):
    """Materialisation: after the first closure, the module's Add reacts to its inputs only (R's facts
    from ``r(X,Y) :- q(X,Y)`` are pairs it holds already), and shortcut steps ``q(X,Y) :- r(X,Y), f(X)``
    give no pair through them that the earlier inputs' closure lacks: the later Adds' plans emit nothing
    (they recomputed the affected sources' whole closures, every pair a duplicate)."""
    from deltalog.modules.closure import ClosureModule
    emitted: list[int] = []
    grown = ClosureModule.grown

    def spy(self, reasoning, changed, before):
        plan = grown(self, reasoning, changed, before)
        emitted.append(reasoning.backend.evaluate(plan=plan).height)
        return plan

    monkeypatch.setattr(ClosureModule, "grown", spy)
    chain = "".join(f"e({i}, {i + 1}). " for i in range(30))
    reasoner = state(SHAPES["filtered"] + chain + "f(3). f(10). f(20).", "auto")
    assert emitted and set(emitted) == {0}
    assert rows_of(reasoner, "r") == {(i, j) for i in range(31) for j in range(i + 1, 31)}


@pytest.mark.parametrize("algorithm", ["dred", "dredc", "auto"])
def test_a_kept_pair_on_a_step_the_update_adds(algorithm):
    """Deleting e(3, 9) and e(0, 3) while adding e(3, 0): Del keeps r(3, 4) (the grounded steps 3 -> 0 -> 4,
    from the added e(3, 0)) while ``r(X, Y) :- q(X, Y)`` deletes r(3, 9); q(3, 0) is stored only by the
    insertion phase, where r(3, 0) is no new fact, so Red must read the grounded steps too to give
    r(3, 9) back (found by the property above)."""
    text = SHAPES["reversed"] + " q(X,Y) :- r(X,Y), f(Y). r(X,Y) :- q(Y,X). "
    edges = {(4, 9), (0, 4), (0, 1), (0, 3), (3, 9), (0, 2), (0, 0), (3, 3)}
    auto = state(text + facts_text(edges, set()), "auto")
    auto.update(add={"e": [(3, 0)]}, delete={"e": [(3, 9), (0, 3)]}, algorithm=algorithm)
    fresh = state(text + facts_text((edges - {(3, 9), (0, 3)}) | {(3, 0)}, set()), "none")
    assert (3, 9) in rows_of(fresh, "r")
    assert rows_of(auto, "r") == rows_of(fresh, "r") and rows_of(auto, "q") == rows_of(fresh, "q")
