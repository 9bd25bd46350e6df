"""Closure modules (003 sections 5-6): recognition by rule shape, 003's worked examples, cliques that
split and merge, and random closure programs under random updates: modules auto == modules none ==
the naive reference, for every maintenance algorithm (local backend)."""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from deltalog.analysis import analyse
from deltalog.analysis.modules import ModuleKind
from deltalog.api import Reasoner
from deltalog.modules import transitive
from deltalog.syntax.parser import parse
from reference import naive_materialise
from test_maintenance import python_rows
from strategies import DOMAIN, apply_update, rows, update_sequences
from test_differential import nonempty, with_facts

ALGORITHMS = ["dred", "dredc", "counting", "fbf", "bf", "remat", "auto"]


def kinds(text: str, modules: str = "auto") -> list[tuple[str, str]]:
    return [(c.kind.value, c.predicate) for s in analyse(parse(text), modules=modules).strata for c in s.modules]


# ---- recognition ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), p(Y,Z).", [("transitive", "p")]),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(Y,Z), p(X,Y).", [("transitive", "p")]),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z).", [("linear-transitive", "p")]),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- e(X,Y), p(Y,Z).", [("linear-transitive", "p")]),
    ("p(X,Y) :- e(X,Y). p(X,Y) :- f(X,Y). p(X,Z) :- p(X,Y), e(Y,Z). p(X,Z) :- p(X,Y), f(Y,Z).",
     [("linear-transitive", "p")]),
    ("s(X,Y) :- e(X,Y). s(X,Y) :- s(Y,X). s(X,Z) :- s(X,Y), s(Y,Z).", [("symmetric-transitive", "s")]),
    # a step whose relation has no base rule is not E⁺: seminaive
    ("p(X,Y) :- f(X,Y). p(X,Z) :- p(X,Y), e(Y,Z).", [("seminaive", "")]),
    # steps of both directions, a constant, a repeated variable, a filter: seminaive
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z). p(X,Z) :- e(X,Y), p(Y,Z).", [("seminaive", "")]),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), p(Y,Z), X = Z.", [("seminaive", "")]),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), p(Y,Z), X != Y.", [("seminaive", "")]),   # not the head's
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), p(Y,Z), X != Z, X != 1.", [("seminaive", "")]),
    # mixed filtered and unfiltered steps: not one shape
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z), X != Z. p(X,Z) :- p(X,Y), f(Y,Z). p(X,Y) :- f(X,Y).",
     [("seminaive", "")]),
    ("p(X,Y) :- e(X,Y). p(X,X) :- p(X,Y), p(Y,X).", [("seminaive", "")]),
    ("p(X,Y) :- e(X,Y). p(1,Z) :- p(1,Y), p(Y,Z).", [("seminaive", "")]),
])
def test_closure_shapes_are_recognised_exactly(text, expected):
    assert kinds(text) == expected
    assert {k for k, _ in kinds(text, modules="none")} == {"seminaive"}


@pytest.mark.parametrize("text, expected", [
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), p(Y,Z), X != Z.", "irreflexive transitive p: rule 1"),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(Y,Z), p(X,Y), Z != X.", "irreflexive transitive p: rule 1"),
    ("p(X,Y) :- e(X,Y). p(X,Y) :- p(Y,X). p(X,Y) :- p(X,Z), p(Z,Y), X != Y.",
     "irreflexive symmetric-transitive p: rule 2, rule 1"),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- p(X,Y), e(Y,Z), X != Z.", "irreflexive linear-transitive p over e: rule 1"),
    ("p(X,Y) :- e(X,Y). p(X,Z) :- e(X,Y), p(Y,Z), X != Z.",
     "irreflexive linear-transitive p over e (left steps): rule 1"),
])
def test_irreflexive_closure_shapes(text, expected):
    """RS1/RS2's transitivity with ``!=`` on the head's variables (003's closures minus the diagonal)."""
    assert [c.describe() for s in analyse(parse(text)).strata for c in s.modules] == [expected]


def test_other_rules_of_the_stratum_stay_seminaive():
    text = ("r(X,Y) :- e(X,Y). r(X,Y) :- q(X,Y). q(X,Y) :- r(X,Y), f(Y). r(X,Z) :- r(X,Y), r(Y,Z). "
            "s(X,Y) :- r(X,Y), X != Y.")
    stratum = next(s for s in analyse(parse(text)).strata if "r" in s.predicates)
    assert [c.kind for c in stratum.modules] == [ModuleKind.SEMINAIVE, ModuleKind.TRANSITIVE]
    assert sorted(str(r.rule) for r in stratum.modules[0].rules) == ["q(X, Y) :- r(X, Y), f(Y).",
                                                                     "r(X, Y) :- q(X, Y)."]


def test_graph_shows_the_modules(tmp_path, capsys):
    from deltalog.cli import main
    path = tmp_path / "p.dl"
    path.write_text("p(X,Y) :- e(X,Y).\np(X,Z) :- p(X,Y), p(Y,Z).\n")
    main(["graph", str(path)])
    assert "stratum 0 module transitive p: rule 1" in capsys.readouterr().out
    main(["graph", str(path), "--modules", "none"])
    assert "module" not in capsys.readouterr().out


# ---- 003's worked examples -----------------------------------------------------------------------

def state(text: str, modules: str) -> Reasoner:
    reasoner = Reasoner(text, modules=modules)
    reasoner.materialise()
    return reasoner


def rows_of(reasoner: Reasoner, predicate: str) -> set:
    return set(map(tuple, reasoner.relation(predicate).rows()))


def test_003_example_1_transitive_chain():
    """003 Example 1: R(c_i, c_{i+1}) axiomatised transitive gives every R(c_i, c_j), i < j."""
    n = 30
    text = "r(X,Z) :- r(X,Y), r(Y,Z).\n" + "".join(f"r({i},{i + 1}).\n" for i in range(1, n))
    for modules in ("auto", "none"):
        assert rows_of(state(text, modules), "r") == {(i, j) for i in range(1, n + 1) for j in range(i + 1, n + 1)}


def test_003_example_2_symmetric_transitive_connected_graph():
    """003 Example 2: a connected graph under symmetry and transitivity gives every R(c_i, c_j)."""
    n = 25
    text = "r(X,Y) :- r(Y,X).\nr(X,Z) :- r(X,Y), r(Y,Z).\n" + "".join(f"r({i},{i + 1}).\n" for i in range(1, n))
    for modules in ("auto", "none"):
        assert rows_of(state(text, modules), "r") == {(i, j) for i in range(1, n + 1) for j in range(1, n + 1)}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_cliques_split_and_merge(algorithm):
    text = "s(X,Y) :- e(X,Y). s(X,Y) :- s(Y,X). s(X,Z) :- s(X,Y), s(Y,Z). e(1,2). e(2,3). e(4,5). e(6,6)."
    auto, none = state(text, "auto"), state(text, "none")
    steps = [({"e": [(3, 4)]}, {}), ({}, {"e": [(2, 3)]}), ({"e": [(2, 3)]}, {"e": [(3, 4), (6, 6)]}),
             ({}, {"e": [(1, 2), (4, 5)]}), ({"e": [(5, 1), (6, 1)]}, {})]
    for add, delete in steps:
        for reasoner in (auto, none):
            reasoner.update(add=add, delete=delete, algorithm=algorithm)
        assert rows_of(auto, "s") == rows_of(none, "s")
    assert rows_of(auto, "s") == {(x, y) for c in ((2, 3), (1, 5, 6)) for x in c for y in c}


# ---- random closure programs under random updates --------------------------------------------------

SHAPES = {
    "nonlinear": "r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), r(Y,Z).",
    "linear": "r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), e(Y,Z).",
    "left": "r(X,Y) :- e(X,Y). r(X,Z) :- e(X,Y), r(Y,Z).",
    "two steps": "r(X,Y) :- e(X,Y). r(X,Y) :- d(X,Y). r(X,Z) :- r(X,Y), e(Y,Z). r(X,Z) :- r(X,Y), d(Y,Z).",
    "symmetric": "r(X,Y) :- e(X,Y). r(X,Y) :- r(Y,X). r(X,Z) :- r(X,Y), r(Y,Z).",
    "implied steps": "r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), r(Y,Z). r(X,Z) :- r(X,Y), e(Y,Z).",
    "irreflexive": "r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), r(Y,Z), X != Z.",
    "irreflexive symmetric": "r(X,Y) :- e(X,Y). r(X,Y) :- r(Y,X). r(X,Y) :- r(X,Z), r(Z,Y), X != Y.",
    "irreflexive linear": "r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), e(Y,Z), X != Z.",
    "irreflexive left": "r(X,Y) :- e(X,Y). r(X,Y) :- d(X,Y). r(X,Z) :- e(X,Y), r(Y,Z), Z != X. "
                        "r(X,Z) :- d(X,Y), r(Y,Z), X != Z.",
    "irreflexive implied steps": "r(X,Y) :- e(X,Y). r(X,Z) :- r(X,Y), r(Y,Z), X != Z. "
                                 "r(X,Z) :- r(X,Y), e(Y,Z), X != Z.",
}
EXTRAS = {
    "external": "r(X,Y) :- d(X,Y), !f(X).",                   # other rules feeding X_R, with negation
    "mutual": "q(X,Y) :- r(X,Y), f(Y). r(X,Y) :- q(Y,X).",     # same stratum, seminaive beside the module
    "filter": "t(X,Y) :- r(X,Y), X != Y.",                      # RS1's != above an STC
    "negation": "u(X,Y) :- e(X,Y), !r(Y,X).",
    "aggregate": "n(X,N) :- r(X,_), N = count Y : { r(X,Y) }.",
}


@st.composite
def closure_cases(draw):
    text = draw(st.sampled_from(sorted(SHAPES.values())))
    extras = draw(st.lists(st.sampled_from(sorted(EXTRAS.values())), unique=True, max_size=3))
    program = parse(" ".join([text, *extras]))
    domain = draw(st.sampled_from((4, 5, 6)))
    facts = {"e": draw(rows(2, 10, domain)), "d": draw(rows(2, 5, domain)), "f": draw(rows(1, 3, domain))}
    if draw(st.integers(0, 3)) == 0:
        facts["r"] = draw(rows(2, 3, domain))   # explicit facts of the closure predicate itself
    return program, facts, draw(update_sequences(facts, program, max_batches=4))


def engine_state(reasoner: Reasoner) -> dict[str, set]:
    return nonempty({p: reasoner.backend.typed_rows(relation=p) for p in reasoner.predicates()})


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@given(closure_cases())
def test_closure_modules_equal_seminaive_and_naive(algorithm, case):
    modules_agree_through_updates(*case, algorithm)


def modules_agree_through_updates(program, facts: dict, batches: list, algorithm: str) -> None:
    """modules auto == modules none == the naive reference after materialising and after each update."""
    note(str(with_facts(program, facts)))
    reasoners = {m: Reasoner(with_facts(program, facts), modules=m) for m in ("auto", "none")}
    for reasoner in reasoners.values():
        reasoner.materialise()
    expected = nonempty(naive_materialise(program, facts))
    assert {m: engine_state(r) for m, r in reasoners.items()} == {"auto": expected, "none": expected}
    for add, delete in batches:
        note(f"update: add {add}, delete {delete}")
        for reasoner in reasoners.values():
            reasoner.update(add={p: python_rows(r) for p, r in add.items() if r},
                            delete={p: python_rows(r) for p, r in delete.items() if r}, algorithm=algorithm)
        facts = apply_update(facts, add, delete)
        expected = nonempty(naive_materialise(program, facts))
        assert {m: engine_state(r) for m, r in reasoners.items()} == {"auto": expected, "none": expected}


@pytest.mark.parametrize("algorithm", ["dred", "dredc", "auto"])
@pytest.mark.parametrize("shape", ["irreflexive", "irreflexive symmetric", "irreflexive linear"])
def test_irreflexive_closure_with_equal_numbers(shape, algorithm):
    """1 != 1.0 is false although they are different constants: the simple-path argument of the
    irreflexive closure fails, and the module evaluates its rules seminaively instead."""
    text = SHAPES[shape] + " e(1, 2.0). e(2.0, 1.0). e(1.0, 2). e(2, 3). e(3, 3)."
    auto, none = state(text, "auto"), state(text, "none")
    assert rows_of(auto, "r") == rows_of(none, "r")
    for add, delete in [({"e": [(3, 1)]}, {}), ({}, {"e": [(2.0, 1.0)]}), ({"e": [(2.0, 1.0)]}, {"e": [(2, 3)]})]:
        for reasoner in (auto, none):
            reasoner.update(add=add, delete=delete, algorithm=algorithm)
        assert rows_of(auto, "r") == rows_of(none, "r")


def test_rs2_irreflexive_modules_equal_seminaive():
    """RS2 (examples/rs2): p11 (symmetric) and p12 are irreflexive closures; deletions and re-additions."""
    from pathlib import Path
    root = Path(__file__).parent.parent / "examples" / "rs2"
    reasoners = {m: Reasoner(root / "program.dl", modules=m) for m in ("auto", "none")}
    for reasoner in reasoners.values():
        reasoner.materialise()
    p1 = sorted(rows_of(reasoners["none"], "p1"))[::3]
    p2 = sorted(rows_of(reasoners["none"], "p2"))[1::3]
    for algorithm in ("dred", "dredc"):
        for add, delete in [({}, {"p1": p1, "p2": p2}), ({"p1": p1, "p2": p2}, {})]:
            for reasoner in reasoners.values():
                reasoner.update(add=add, delete=delete, algorithm=algorithm)
            assert {p: rows_of(reasoners["auto"], p) for p in ("p11", "p12", "p30", "p31")} == \
                {p: rows_of(reasoners["none"], p) for p in ("p11", "p12", "p30", "p31")}


assert DOMAIN   # the values facts are drawn from (strategies.py)


# ---- Del and Add of path modules as closure differences (ir.ClosureDifference, 003 section 4) --------

def facts_text(facts: dict[str, set]) -> str:
    return "".join(f"{p}({', '.join(map(str, row))}).\n" for p, rows in facts.items() for row in sorted(rows))


# a ring 0..5 (one SCC) with a tail 5 -> 6 -> 7, a second ring 10..12 joined to it, and a hub 20 that
# nodes 30..59 reach, with 20 -> 21 -> 22
GRAPH = ({(i, (i + 1) % 6) for i in range(6)} | {(5, 6), (6, 7), (10, 11), (11, 12), (12, 10), (7, 10)}
         | {(i, 20) for i in range(30, 60)} | {(20, 21), (21, 22), (35, 36)})
CHANGES = [
    ({}, {"e": [(2, 3)]}),                              # the ring opens: its SCC splits
    ({"e": [(2, 3)]}, {"e": [(0, 1), (12, 10)]}),       # closes, another opens, in one update
    ({"e": [(12, 5), (0, 1), (12, 10)]}, {}),           # the two rings merge
    ({}, {"e": [(20, 21)]}),                            # an edge whose tail has 30 ancestors
    ({"e": [(20, 21), (22, 30)]}, {"e": [(21, 22), (6, 7)]}),   # a new cycle through the hub
    ({}, {"e": [(22, 30), (20, 21), (5, 6)]}),
]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("shape", ["nonlinear", "linear", "left", "irreflexive", "irreflexive linear",
                                   "implied steps", "symmetric", "irreflexive symmetric"])
@pytest.mark.parametrize("extra", ["", "r(X,Y) :- d(X,Y), !f(X)."])
def test_closure_differences_under_scc_changes(shape, extra, algorithm):
    """Deleting edges inside an SCC, of a tail with many ancestors, deleting and adding in one update,
    with external facts from another rule (with negation): modules auto == none == rematerialised."""
    facts = {"e": set(GRAPH), "d": {(7, 40), (22, 6)}, "f": {(22,)}}
    auto, none = (state(SHAPES[shape] + extra + facts_text(facts), m) for m in ("auto", "none"))
    for add, delete in CHANGES + [({"f": [(22,)]}, {"f": [(22,)], "d": [(7, 40)]})]:
        for reasoner in (auto, none):
            reasoner.update(add=add, delete=delete, algorithm=algorithm)
        for p, gone in delete.items():
            facts[p] -= set(gone)
        for p, new in add.items():
            facts[p] |= set(new)
        fresh = state(SHAPES[shape] + extra + facts_text(facts), "none")
        assert rows_of(auto, "r") == rows_of(none, "r") == rows_of(fresh, "r")


@pytest.mark.parametrize("shape", ["symmetric", "irreflexive symmetric"])
def test_symmetric_del_is_the_split_only(shape):
    """STC Del is a closure difference over the inputs read both ways (modules/symmetric.py): deleting the
    bridge of two cliques overdeletes exactly the pairs between them, and re-adding it (the other way round)
    adds exactly those pairs again."""
    left, right = range(0, 20), range(20, 30)
    edges = {(i, i + 1) for i in left[:-1]} | {(i, i + 1) for i in right[:-1]} | {(19, 20), (3, 3)}
    auto, none = (state(SHAPES[shape] + facts_text({"e": edges}), m) for m in ("auto", "none"))
    lost = 2 * len(left) * len(right)
    deleted = auto.update(delete={"e": [(19, 20)]}, algorithm="dred")
    none.update(delete={"e": [(19, 20)]}, algorithm="dred")
    assert deleted.overdeleted["r"] == deleted.removed["r"].height == lost
    assert rows_of(auto, "r") == rows_of(none, "r")
    added = auto.update(add={"e": [(20, 19)]}, algorithm="dred")
    none.update(add={"e": [(20, 19)]}, algorithm="dred")
    assert added.added["r"].height == lost and rows_of(auto, "r") == rows_of(none, "r")


@pytest.mark.parametrize("shape", ["nonlinear", "linear", "irreflexive", "symmetric", "irreflexive symmetric"])
def test_deleted_inputs_the_closure_still_gives_stay(shape):
    """DRed's check before deleting asks the module (``holds``): an edge of a ring with chords deleted
    together with the ring's exit edge keeps r(ring edge) (the ring still closes over it), so DRed
    overdeletes exactly the pairs lost through the exit and nothing of the ring."""
    ring = {(i, (i + 1) % 6) for i in range(6)} | {(i, (i + 2) % 6) for i in range(6)}
    edges = ring | {(5, 6), (6, 7), (10, 10)}
    auto, none = (state(SHAPES[shape] + facts_text({"e": edges}), m) for m in ("auto", "none"))
    change = {"e": [(1, 2), (6, 7)]}
    deleted = auto.update(delete=change, algorithm="dred")
    none.update(delete=change, algorithm="dred")
    assert rows_of(auto, "r") == rows_of(none, "r")
    assert deleted.overdeleted["r"] == deleted.removed["r"].height > 0
    assert (1, 2) in rows_of(auto, "r")
    ring_only = auto.update(delete={"e": [(2, 3)]}, algorithm="dred")
    assert not ring_only.overdeleted.get("r") and (2, 3) in rows_of(auto, "r")


@pytest.mark.parametrize("algorithm", ["dred", "dredc", "fbf"])
@pytest.mark.parametrize("shape", ["linear", "left", "irreflexive linear"])
def test_linear_insertion_of_shortcut_steps(shape, algorithm):
    """Steps added that R already holds (shortcuts of old paths), alone and in an update that also deletes
    (then R may keep a pair only the new step gives, and its extensions must come back): modules auto ==
    none == rematerialised."""
    edges = {(1, 2), (2, 3), (3, 4), (5, 6), (6, 6)}
    auto, none = (state(SHAPES[shape] + facts_text({"e": edges}), m) for m in ("auto", "none"))
    for add, delete in (({"e": [(1, 3), (4, 5), (7, 1), (6, 6)]}, {}),
                        ({"e": [(2, 4), (8, 2)]}, {"e": [(3, 4)]}),
                        ({"e": [(1, 4)]}, {"e": [(2, 4), (1, 2)]})):
        for reasoner in (auto, none):
            reasoner.update(add=add, delete=delete, algorithm=algorithm)
        edges = (edges - set(delete.get("e", []))) | set(add["e"])
        fresh = state(SHAPES[shape] + facts_text({"e": edges}), "none")
        assert rows_of(auto, "r") == rows_of(none, "r") == rows_of(fresh, "r")


@pytest.mark.parametrize("threshold", [0, 2, 5])
@pytest.mark.parametrize("algorithm", ["dred", "dredc", "fbf", "auto"])
@pytest.mark.parametrize("extra", ["", "r(X,Y) :- d(X,Y), !f(X)."])
def test_transitive_insertion_from_seminaive_rounds_to_the_closure(threshold, extra, algorithm, monkeypatch):
    """A nonlinear TC's insertion runs seminaive rounds while the update's new R facts are at most
    ``SEMINAIVE_INSERT_FACTS``, then the closure difference from every input the update added: with
    low thresholds the switch happens inside updates, and the result is still exact."""
    monkeypatch.setattr(transitive, "SEMINAIVE_INSERT_FACTS", threshold)
    test_closure_differences_under_scc_changes("nonlinear", extra, algorithm)


# ---- exact Del: deleted at once, unchecked, never handed back to Del (Module.deletes_exactly) ---------

@pytest.mark.parametrize("algorithm", ["dred", "dredc"])
@pytest.mark.parametrize("shape, extra, exact", [
    ("symmetric", "", True), ("symmetric", "r(X,Y) :- d(X,Y), !f(X).", True),
    ("nonlinear", "", True), ("irreflexive symmetric", "", True), ("linear", "", True),
    ("symmetric", "q(X,Y) :- r(X,Y), f(Y). r(X,Y) :- q(Y,X).", False),   # X_R from the stratum: not exact
])
def test_exact_del_runs_once_and_is_not_checked(shape, extra, exact, algorithm, monkeypatch):
    """A module whose Del is exact (its inputs are final: explicit facts and rules over lower strata, a
    nonrecursive one with a negation included) has its Del run once per deletion, its facts deleted
    without ``holds`` being asked of them, and no second Del over them; with X_R from a rule of the
    stratum it is not exact and both run as before. Either way the result is the naive one."""
    from deltalog.modules.closure import ClosureModule
    calls = {"delete": 0, "holds": 0}
    for name in calls:
        def counted(self, *args, _name=name, _original=getattr(ClosureModule, name)):
            calls[_name] += 1
            yield from _original(self, *args)
        monkeypatch.setattr(ClosureModule, name, counted)
    left, right = range(0, 12), range(12, 20)
    edges = {(i, i + 1) for i in left[:-1]} | {(i, i + 1) for i in right[:-1]} | {(11, 12), (15, 12)}
    facts = {"e": edges, "d": {(3, 14)}, "f": {(3,), (14,)}}
    auto = state(SHAPES[shape] + extra + facts_text(facts), "auto")
    auto.update(delete={"e": [(11, 12), (15, 12)]}, algorithm=algorithm)
    facts["e"] -= {(11, 12), (15, 12)}
    fresh = state(SHAPES[shape] + extra + facts_text(facts), "none")
    assert {p: rows_of(auto, p) for p in ("r", "q") if p in auto.predicates()} == \
        {p: rows_of(fresh, p) for p in ("r", "q") if p in fresh.predicates()}
    if exact:   # one Del (of the deleted inputs), and the check of those inputs only (DRed)
        assert calls == {"delete": 1, "holds": 1 if algorithm == "dred" else 0}
    else:
        assert calls["delete"] > 1


@pytest.mark.parametrize("algorithm", ["dred", "dredc"])
@pytest.mark.parametrize("shape, extra, once", [
    ("symmetric", "", True), ("symmetric", "r(X,Y) :- d(X,Y), !f(X).", True),
    ("irreflexive symmetric", "", True),
    ("symmetric", "q(X,Y) :- r(X,Y), f(Y). r(X,Y) :- q(Y,X).", False),   # another module gives r too
])
def test_symmetric_insert_is_not_asked_about_its_own_facts(shape, extra, once, algorithm, monkeypatch):
    """An STC module's Add gives whole components (``inserts_exactly``): re-adding a bridge asks it once,
    not again about the pairs it gave. With another module of the stratum giving facts of r it may be
    asked again; the result is the naive one either way."""
    from deltalog.modules.closure import ClosureModule
    calls = []
    original = ClosureModule.insert

    def counted(self, update, deltas, generation, grown):
        calls.append(set(grown))
        yield from original(self, update, deltas, generation, grown)
    monkeypatch.setattr(ClosureModule, "insert", counted)
    left, right = range(0, 12), range(12, 20)
    edges = {(i, i + 1) for i in left[:-1]} | {(i, i + 1) for i in right[:-1]}
    facts = {"e": edges, "d": {(3, 14)}, "f": {(3,), (14,)}}
    auto = state(SHAPES[shape] + extra + facts_text(facts), "auto")
    calls.clear()
    auto.update(add={"e": [(11, 12)]}, algorithm=algorithm)
    facts["e"] |= {(11, 12)}
    fresh = state(SHAPES[shape] + extra + facts_text(facts), "none")
    assert {p: rows_of(auto, p) for p in ("r", "q") if p in auto.predicates()} == \
        {p: rows_of(fresh, p) for p in ("r", "q") if p in fresh.predicates()}
    if once:
        assert sum("r" in grown for grown in calls) == 1
