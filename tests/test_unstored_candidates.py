"""DRed's candidates kept as plans (``overdeletion.Candidates``): in a recursive stratum, a predicate whose checks
read no stored candidates (renamed atoms, explicit facts, an unfolding's proofs, a module's ``holds``) has each
round's candidates deleted by the settle's statement straight from their plans, with no N_D relation; one whose
check binds a rule's head to the candidates (a join rule, an unfolding with a rest) still stores them. Results
stay the naive evaluator's, for every algorithm."""

from __future__ import annotations

from hypothesis import given, note, settings, strategies as st
import pytest

from deltalog.algorithms.lowerbound import unstored
from deltalog.api import Reasoner
from deltalog.backends.local.backend import LocalBackend
from deltalog.syntax.parser import parse
from reference import naive_materialise
from test_differential import nonempty
from test_maintenance import engine_state

INVERSE = """
memberOf(X, Y) :- worksFor(X, Y).
member(Y, X) :- memberOf(X, Y).
memberOf(X, Y) :- member(Y, X).
member(X, Y) :- affiliated(X, Y).
"""
"""Inverse renamings: no check reads stored candidates."""
CLASSES = """
person(X) :- student(X).
person(X) :- worker(X, Y).
student(X) :- enrolled(X).
student(X) :- person(X), takes(X, C), course(C).
worker(X, Y) :- worksFor(X, Y).
worker(X, Y) :- person(X), leads(X, Y).
"""
"""A class hierarchy through a join: ``student``'s recursive rule unfolds ``person`` with a rest (stored), the
join ``worker`` reads ``person`` (stored: no unfolding covers it), ``person`` renames them (kept as plans)."""
CHAIN = """
a(X, Y) :- e(X, Y).
b(X, Y) :- a(X, Y).
c(X, Y) :- b(X, Y).
a(X, Y) :- c(Y, X).
t(X, Z) :- t(X, Y), t(Y, Z).
t(X, Y) :- a(X, Y).
"""
"""A cycle of renamings (several rounds) and a transitive closure over it."""

PREDICATES = ("worksFor", "affiliated", "member", "memberOf", "enrolled", "takes", "course", "leads", "person",
              "student", "worker", "e", "a", "b", "c", "t")
UNARY = {"enrolled", "course", "person", "student"}
ALGORITHMS = ["dred", "dredc", "counting", "fbf", "bf", "auto"]
rows = st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=6)


def text(rules: str, facts: dict[str, set]) -> str:
    return rules + "".join(f"{p}({', '.join(map(str, row))}).\n" for p, rows in sorted(facts.items())
                           for row in sorted(rows))


def shaped(predicate: str, pairs: set) -> set:
    return {row[:1] for row in pairs} if predicate in UNARY else set(pairs)


def statements_into(monkeypatch, prefix: str) -> list[str]:
    """The relations named ``prefix...`` that inserts write from now on."""
    targets: list[str] = []
    insert = LocalBackend.insert

    def logged(self, *, relation, **kwargs):
        if relation.startswith(prefix):
            targets.append(relation)
        return insert(self, relation=relation, **kwargs)
    monkeypatch.setattr(LocalBackend, "insert", logged)
    return targets


def test_which_predicates_keep_their_candidates_as_plans():
    strata = {frozenset(s.predicates): s for s in Reasoner(CLASSES + "enrolled(0).").reasoning.program.strata}
    (classes,) = [s for s in strata.values() if "person" in s.predicates]
    assert unstored(classes) == {"person"}
    (pairs,) = [s for s in Reasoner(INVERSE + "worksFor(0, 1).").reasoning.program.strata if s.recursive]
    assert unstored(pairs) == {"member", "memberOf"}


def test_inverse_pairs_store_no_candidates(monkeypatch):
    """Deleting a ``worksFor`` fact runs three rounds (memberOf, member, memberOf again) and no N_D relation."""
    r = Reasoner(INVERSE + "worksFor(1, 2). worksFor(3, 2). affiliated(2, 3).")
    r.materialise()
    stored = statements_into(monkeypatch, "N:")
    result = r.update(delete={"worksFor": [(1, 2), (3, 2)]}, algorithm="dred")
    assert stored == []
    assert {p: f.height for p, f in result.removed.items()} == {"worksFor": 2, "memberOf": 1, "member": 1}
    expected = nonempty(naive_materialise(parse(INVERSE + "affiliated(2, 3).")))
    assert engine_state(r, expected.keys()) == expected


def test_a_check_binding_the_head_still_reads_stored_candidates(monkeypatch):
    """``student``'s unfolded check and ``worker``'s candidates are stored; ``person``'s are not."""
    r = Reasoner(CLASSES + "enrolled(1). takes(1, 5). course(5). worksFor(1, 7). leads(2, 7). worksFor(2, 8).")
    r.materialise()
    stored = statements_into(monkeypatch, "N:")
    r.update(delete={"enrolled": [(1,)], "worksFor": [(2, 8)]}, algorithm="dred")
    assert "N:person" not in stored and {"N:student", "N:worker"} <= set(stored)
    expected = nonempty(naive_materialise(parse(CLASSES + "takes(1, 5). course(5). worksFor(1, 7). leads(2, 7).")))
    assert engine_state(r, expected.keys()) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@settings(max_examples=25, deadline=None)
@given(st.sampled_from([INVERSE, CLASSES, CHAIN]),
       st.fixed_dictionaries({p: rows for p in PREDICATES}),
       st.lists(st.tuples(st.sampled_from(PREDICATES), rows, st.booleans()), min_size=1, max_size=4))
def test_maintained_as_the_naive_evaluator(algorithm, rules, drawn, steps):
    """Facts deleted and added, explicit facts of derived predicates too: the naive evaluator's results."""
    facts = {p: shaped(p, pairs) for p, pairs in drawn.items()}
    r = Reasoner(text(rules, facts))
    r.materialise()
    note(text(rules, facts))
    for predicate, pairs, delete in steps:
        given_rows = shaped(predicate, pairs)
        # a deletion names some stored fact: the one drawn, else the predicate's first
        given_rows = (given_rows & facts[predicate] or set(sorted(facts[predicate])[:1])) if delete \
            else given_rows - facts[predicate]
        if not given_rows:
            continue
        r.update(**{"delete" if delete else "add": {predicate: sorted(given_rows)}}, algorithm=algorithm)
        facts[predicate] = facts[predicate] - given_rows if delete else facts[predicate] | given_rows
        note(f"{'delete' if delete else 'add'} {predicate} {sorted(given_rows)}")
        expected = nonempty(naive_materialise(parse(text(rules, facts))))
        assert engine_state(r, expected.keys() | r.analysed.arities.keys()) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_one_sided_explicit_changes_of_derived_predicates_are_read_off_their_store(monkeypatch, algorithm):
    """E⁻ (E⁺) of a derived predicate that the update only deletes from (adds to) is a view of its explicit
    store (``Workspace.stage_view``): no ``-p`` (``+p``) scratch relation is written, and the results stay the
    naive evaluator's."""
    facts = "worksFor(1, 2). memberOf(3, 2). memberOf(4, 5). member(6, 7). affiliated(7, 8)."
    r = Reasoner(INVERSE + facts)
    r.materialise()
    staged = statements_into(monkeypatch, "-")
    r.update(delete={"memberOf": [(3, 2), (1, 2)], "member": [(6, 7)]}, algorithm=algorithm)
    expected = nonempty(naive_materialise(parse(INVERSE + "worksFor(1, 2). memberOf(4, 5). affiliated(7, 8).")))
    assert engine_state(r, expected.keys()) == expected
    added = statements_into(monkeypatch, "+")
    r.update(add={"memberOf": [(3, 2)], "member": [(6, 7), (9, 9)]}, algorithm=algorithm)
    assert staged == [] and [t for t in added if not t.startswith("+raw")] == []
    expected = nonempty(naive_materialise(parse(INVERSE + facts + "member(9, 9).")))
    assert engine_state(r, expected.keys()) == expected
