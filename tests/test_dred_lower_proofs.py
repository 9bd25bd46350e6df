"""DRed keeps the overdeletion candidates that are explicit or derived from lower strata
(algorithms/lowerbound.py): the results stay exact, and it deletes a subset of what DRed without
the check (every candidate overdeleted, then rederived one step rule by rule) deletes."""

from __future__ import annotations

import pytest
import polars as pl
from hypothesis import given, note, settings, strategies as st

import deltalog.algorithms.dred as dred
import deltalog.algorithms.lowerbound as lowerbound
from deltalog.algorithms.strategies import STRATEGIES, StratumByStratum
from deltalog.api import Reasoner
from deltalog.backends.local.backend import LocalBackend
from deltalog.syntax.parser import parse
from reference import naive_materialise
from strategies import apply_update, programs_facts_and_updates
from test_differential import nonempty, with_facts
from test_maintenance import engine_state, python_rows, recursive_aggregates

CLASSES = """
student(X) :- undergraduate(X).
person(X) :- student(X).
person(X) :- member(X, D).
student(X) :- person(X), takes(X, C), course(C).
chair(X) :- person(X), heads(X, D).
course(C) :- takes(X, C).
undergraduate(s). takes(s, c1). takes(s, c2). takes(t, c1). member(t, d). heads(t, d). course(c2).
"""


def rows(frame) -> set:
    return set(frame.rows())


def test_a_candidate_derived_from_a_lower_stratum_is_not_overdeleted(backend_name):
    """The LUBM-like case: deleting takes(s, c2) takes a derivation from student(s), which keeps
    student :- undergraduate(s), so nothing is deleted (DRed without the check overdeletes course(c2),
    student(s) and person(s) and rederives them). Deleting takes(t, c1) takes student(t)'s only derivation;
    person(t) keeps person :- member(t, d), so chair(t) is not touched either."""
    r, plain = Reasoner(CLASSES, backend=backend_name), Reasoner(CLASSES, backend=backend_name)
    r.materialise()
    plain.materialise()
    everything = {"course": 1, "student": 1, "person": 1}   # course(c): explicit, or derived by takes(s, c1)
    for fact, overdeleted, unchecked in ((("s", "c2"), {}, everything),
                                         (("t", "c1"), {"student": 1}, everything)):
        result = r.update(delete={"takes": [fact]}, algorithm="dred")
        with plain_dred():
            assert plain.update(delete={"takes": [fact]}, algorithm="dred").overdeleted == unchecked
        assert result.overdeleted == overdeleted
    assert rows(result.removed["student"]) == {("t",)} and set(result.removed) == {"takes", "student"}
    assert rows(r.relation("person")) == rows(plain.relation("person")) == {("s",), ("t",)}
    assert rows(r.relation("chair")) == {("t",)} and rows(r.relation("student")) == {("s",)}


CHECKED_IN_TURN = """
p(X) :- a(X).
p(X) :- b(X).
p(X) :- d(X).
p(X) :- q(X).
q(X) :- p(X), c(X).
p(u). a(v). b(w). d(v). c(u). c(v). c(w). c(x). q(u). q(v). q(w). q(x).
"""


def test_candidates_explicit_derived_or_neither(backend_name):
    """One round's candidates p(u), p(v), p(w), p(x): p(u) is explicit, p(v) and p(w) are derived by
    rules over lower strata, p(x) by none: only p(x) (and q(x)) are deleted. Of q's candidates, q(u),
    q(v) and q(w) are kept by q :- p, c unfolded into p's explicit facts and renaming rules
    (algorithms/unfolding.py): only q(x) is overdeleted."""
    r = Reasoner(CHECKED_IN_TURN, backend=backend_name)
    r.materialise()
    result = r.update(delete={"q": [("u",), ("v",), ("w",), ("x",)]}, algorithm="dred")
    assert rows(result.removed["p"]) == {("x",)} and rows(result.removed["q"]) == {("x",)}
    assert result.overdeleted == {"q": 1, "p": 1}
    assert rows(r.relation("p")) == rows(r.relation("q")) == {("u",), ("v",), ("w",)}


def test_the_checks_stop_once_every_candidate_is_witnessed(backend_name, monkeypatch):
    """Candidates q(u), q(v), q(w) are witnessed by q :- p, c unfolded into p's explicit facts and its first
    two renaming rules (algorithms/unfolding.py): the third (p :- d) is not evaluated, and d, which holds
    d(v), is never read."""
    r = Reasoner(CHECKED_IN_TURN, backend=backend_name)
    r.materialise()
    read = reads_of(monkeypatch) if backend_name == "local" else set()
    third = next(info for info in r.reasoning.program.rules if str(info.rule).startswith("p(X) :- d(X)"))
    before = r.reasoning.stats.rule(third).evaluations, r.reasoning.stats.rule(third).instances
    result = r.update(delete={"q": [("u",), ("v",), ("w",)]}, algorithm="dred")
    assert not result.removed and result.overdeleted == {}   # q(u), q(v), q(w) kept by q :- p, c unfolded
    assert (r.reasoning.stats.rule(third).evaluations, r.reasoning.stats.rule(third).instances) == before
    assert rows(r.relation("p")) == {("u",), ("v",), ("w",), ("x",)}
    assert backend_name != "local" or {"a", "b"} <= read and "d" not in read


def reads_of(monkeypatch) -> set[str]:
    """The names of the stored relations the local executor reads from now on (scans, probes, membership)."""
    from deltalog.storage.relation import Relation
    read: set[str] = set()
    for name in ("scan", "keyed", "contains"):
        method = getattr(Relation, name)

        def logged(self, *args, _method=method, **kwargs):
            read.add(self.name)
            return _method(self, *args, **kwargs)
        monkeypatch.setattr(Relation, name, logged)
    return read


def test_the_checks_run_inside_the_deletion(monkeypatch):
    """A predicate's candidates are checked and deleted by one statement, the candidates anti-joined with
    each check in turn (``lowerbound.unwitnessed``): no relation of witnessed candidates is filled and
    counted per check. Here p's round deletes p(x) in one ``delete`` and inserts nothing."""
    r = Reasoner(CHECKED_IN_TURN)
    r.materialise()
    calls: list[tuple[str, str]] = []
    for name in ("insert", "delete"):
        method = getattr(LocalBackend, name)

        def logged(self, *, relation, _method=method, _name=name, **kwargs):
            calls.append((_name, relation))
            return _method(self, relation=relation, **kwargs)
        monkeypatch.setattr(LocalBackend, name, logged)
    result = r.update(delete={"q": [("u",), ("v",), ("w",), ("x",)]}, algorithm="dred")
    assert rows(result.removed["p"]) == {("x",)}
    assert ("delete", "p") in calls and not [c for c in calls if c[1].startswith("W:")]


UNFOLDED = """
student(X) :- undergraduate(X).
person(X) :- student(X).
person(X) :- member(X, D).
student(X) :- person(X), takes(X, C), course(C).
course(C) :- takes(X, C).
undergraduate(s). member(s, d). takes(s, c). undergraduate(v). member(v, d). takes(v, c). takes(t, c).
"""


def test_a_candidate_derived_through_a_renaming_rule_of_its_stratum_is_not_overdeleted(backend_name):
    """The LUBM-like cases no nonrecursive rule answers for: deleting member(s, d) takes person(s)'s
    nonrecursive derivation, but person :- student unfolded into student :- undergraduate derives it; deleting
    undergraduate(v) takes student(v)'s, but student :- person, takes, course unfolded into person :- member
    derives it (algorithms/unfolding.py). Before, both were overdeleted and rederived. Then deleting
    undergraduate(s) deletes student(s) and person(s) for good. Each state is the naive evaluator's."""
    r = Reasoner(UNFOLDED, backend=backend_name)
    r.materialise()
    facts = {"undergraduate": {("s",), ("v",)}, "member": {("s", "d"), ("v", "d")},
             "takes": {("s", "c"), ("v", "c"), ("t", "c")}}
    for delete, overdeleted in (({"member": [("s", "d")], "undergraduate": [("v",)]}, {}),
                                ({"undergraduate": [("s",)]}, {"student": 1, "person": 1})):
        result = r.update(delete=delete, algorithm="dred")
        assert result.overdeleted == overdeleted
        facts = {q: rows - set(delete.get(q, [])) for q, rows in facts.items()}
        program = UNFOLDED.split("undergraduate(s).")[0] + " ".join(
            f"{q}({', '.join(t)})." for q, rows in facts.items() for t in sorted(rows))
        expected = nonempty(naive_materialise(parse(program)))
        assert engine_state(r, expected.keys() | {"student", "person", "course"}) == expected
    assert rows(result.removed["student"]) == rows(result.removed["person"]) == {("s",)}


AT_ONCE = """
p(X) :- a(X).
p(X) :- b(X, Y).
n(X, N) :- b(X, _), N = count Y : { b(X, Y) }.
j(X) :- a(X), b(X, Y).
a(u). a(v). a(w). b(v, 1). b(w, 1). b(w, 2). p(u). j(u).
"""


def test_a_stratum_of_renamings_and_aggregates_deletes_without_storing_candidates(backend_name, monkeypatch):
    """A stratum of nonrecursive rules that each rename an atom or aggregate (p, n) deletes each predicate's
    unchecked candidates in one statement from their plans (``lowerbound.delete_unwitnessed_at_once``): no
    N_D relation is filled for it; j's rule binds its head to the candidates, which are stored first. The
    results are the naive evaluator's."""
    r = Reasoner(AT_ONCE, backend=backend_name)
    r.materialise()
    filled: list[str] = []
    backend = type(r.reasoning.backend)
    original = backend.insert

    def logged(self, *, relation, **kwargs):
        filled.append(relation)
        return original(self, relation=relation, **kwargs)
    monkeypatch.setattr(backend, "insert", logged)
    facts = {"a": {("u",), ("v",), ("w",)}, "b": {("v", 1), ("w", 1), ("w", 2)}, "p": {("u",)}, "j": {("u",)}}
    for delete in ({"a": [("u",), ("v",)], "b": [("w", 2)]}, {"b": [("v", 1)], "p": [("u",)]}):
        r.update(delete=delete, algorithm="dred")
        facts = {q: rows - set(delete.get(q, [])) for q, rows in facts.items()}
        program = AT_ONCE.split("a(u).")[0] + " ".join(f"{q}({', '.join(map(str, t))})." for q, rows in
                                                       facts.items() for t in sorted(rows))
        expected = nonempty(naive_materialise(parse(program)))
        assert engine_state(r, expected.keys() | {"p", "n", "j"}) == expected
    lost = {name for name in filled if name.startswith("N:")}
    assert "N:j" in lost and not lost & {"N:p", "N:n"}


@pytest.mark.parametrize("algorithm", ["dred", "auto"])
@given(programs_facts_and_updates())
def test_checked_dred_deletes_a_subset_of_plain_dreds_and_agrees(backend_name, algorithm, case):
    """On random programs and updates: the same results as DRed without the check and as the naive
    evaluator, with no more facts overdeleted per predicate."""
    program, facts, batches = case
    checked, plain = (Reasoner(with_facts(program, facts), backend=backend_name) for _ in range(2))
    checked.materialise()
    plain.materialise()
    note(str(with_facts(program, facts)))
    if recursive_aggregates(checked):
        return
    for add, delete in batches:
        changes = {"add": {p: python_rows(r) for p, r in add.items() if r},
                   "delete": {p: python_rows(r) for p, r in delete.items() if r}}
        ours = checked.update(**changes, algorithm=algorithm)
        with plain_dred():
            theirs = plain.update(**changes, algorithm=algorithm)
        facts = apply_update(facts, add, delete)
        expected = nonempty(naive_materialise(program, facts))
        predicates = expected.keys() | checked.analysed.arities.keys()
        assert engine_state(checked, predicates) == expected == engine_state(plain, predicates)
        if ours.algorithm == theirs.algorithm == "dred":
            assert all(n <= theirs.overdeleted.get(p, 0) for p, n in ours.overdeleted.items())


class plain_dred:
    """While active, the ``dred`` strategy overdeletes every candidate of a recursive stratum and
    rederives it one step, rule by rule (DRed before the check)."""

    def __enter__(self) -> None:
        self.saved = STRATEGIES["dred"]
        STRATEGIES["dred"] = StratumByStratum("dred", unchecked_dred_stratum)

    def __exit__(self, *exc) -> None:
        STRATEGIES["dred"] = self.saved


def unchecked_dred_stratum(update, stratum) -> None:
    dred.refuse_recursive_aggregates(stratum)
    if dred.may_lose_derivations(update, stratum):
        dred.overdelete(update, stratum)
        dred.rederive(update, stratum)
    dred.insert(update, stratum)


RENAMINGS = """
p(X, Y) :- q(Y, X).
p(X, X) :- r(X).
p(X, a) :- s(X).
p(X, Y) :- t(X, Y, Y).
p(X, Y) :- u(X, b, Y).
p(X, Y) :- v(X, Y, Z).
p(X, Y) :- w(X, Y), X != Y.
top(X) :- p(X, Y), top(Y).
top(a).
"""
small = st.sampled_from(["a", "b", "c"])
facts_of = {"q": 2, "r": 1, "s": 1, "t": 3, "u": 3, "v": 3, "w": 2}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_rule_renaming_one_atom_is_checked_by_that_atom(data):
    """Rules ``p(X, Y) :- q(Y, X)``-like are checked by their atom's facts (``lowerbound.renamed_atom``); a
    head constant or repeated variable, or anything besides the atom, keeps the rule's plan. Updates of
    random facts agree with rematerialisation."""
    from deltalog.algorithms.lowerbound import renamed_atom
    r, remat = Reasoner(RENAMINGS), Reasoner(RENAMINGS)
    shapes = [renamed_atom(info) is not None for info in r.reasoning.program.rules][:7]
    assert shapes == [True, False, False, True, True, True, False]
    facts = {p: data.draw(st.sets(st.tuples(*[small] * n), max_size=6)) for p, n in facts_of.items()}
    for reasoner in (r, remat):
        reasoner.load_tables({p: pl.DataFrame(sorted(rows) or None, schema=[f"c{i}" for i in range(facts_of[p])],
                                              orient="row") for p, rows in facts.items()})
        reasoner.materialise()
    for _ in range(2):
        gone = {p: sorted(data.draw(st.sets(st.sampled_from(sorted(rows))))) for p, rows in facts.items() if rows}
        gone = {p: rows for p, rows in gone.items() if rows}
        ours, theirs = r.update(delete=gone, algorithm="dred"), remat.update(delete=gone, algorithm="remat")
        assert {p: rows(f) for p, f in ours.removed.items()} == {p: rows(f) for p, f in theirs.removed.items()}
        assert all(rows(r.relation(p)) == rows(remat.relation(p)) for p in ("p", "top"))
        facts = {p: rows_ - set(gone.get(p, ())) for p, rows_ in facts.items()}


@pytest.mark.parametrize("stored", [True, False])
def test_the_candidates_of_one_head_are_stored_by_one_statement(monkeypatch, stored):
    """N_D of p from its rules (two of them lost an instance) is one insert into N:p
    (``Reasoning.derive_together``) where p's candidates are stored (its checks read none stored: only when
    told to, ``lowerbound.unstored``), else none, and each rule is credited its instance and evaluation."""
    if stored:
        monkeypatch.setattr(lowerbound, "unstored", lambda stratum: frozenset())
    r = Reasoner(CHECKED_IN_TURN)
    r.materialise()
    rules = {str(info.rule).split(" :- ")[1][0]: info for info in r.reasoning.program.rules}
    before = {b: (r.reasoning.stats.rule(rules[b]).instances, r.reasoning.stats.rule(rules[b]).evaluations)
              for b in "ab"}
    targets: list[str] = []
    insert = LocalBackend.insert

    def logged(self, *, relation, **kwargs):
        targets.append(relation)
        return insert(self, relation=relation, **kwargs)
    monkeypatch.setattr(LocalBackend, "insert", logged)
    result = r.update(delete={"a": [("v",)], "b": [("w",)]}, algorithm="dred")
    assert set(result.removed) == {"a", "b"}   # d(v) keeps p(v); p(w) comes back through q(w)
    assert targets.count("N:p") == (1 if stored else 0)
    after = {b: (r.reasoning.stats.rule(rules[b]).instances, r.reasoning.stats.rule(rules[b]).evaluations)
             for b in "ab"}
    assert {b: (after[b][0] - before[b][0], after[b][1] - before[b][1]) for b in "ab"} == {"a": (1, 1), "b": (1, 1)}
