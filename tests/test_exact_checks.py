"""A stratum of inverse renamings (``member``/``memberOf``): DRed's check before deleting decides every
candidate (``unfolding.decides_every_candidate``), so REDERIVE is skipped, and the results stay the naive
evaluator's; a near miss (a rule of the renamed predicate that the unfolding does not cover) still rederives."""

from __future__ import annotations

from hypothesis import given, note, settings, strategies as st

import deltalog.algorithms.dred as dred
from deltalog.algorithms.unfolding import decides_every_candidate
from deltalog.api import Reasoner
from deltalog.syntax.parser import parse
from reference import naive_materialise
from test_differential import nonempty
from test_maintenance import engine_state

INVERSE = """
memberOf(X, Y) :- worksFor(X, Y).
member(Y, X) :- memberOf(X, Y).
memberOf(X, Y) :- member(Y, X).
member(X, Y) :- affiliated(X, Y).
member(X, Y) :- leads(Y, X, Z).
"""
"""Exact: each predicate's rules outside the stratum rename one atom (``leads``' third column projected away)."""
NEAR_MISS = """
memberOf(X, Y) :- worksFor(X, Y).
member(Y, X) :- memberOf(X, Y).
memberOf(X, Y) :- member(Y, X).
member(X, Y) :- leads(X, Y, Z), org(Z).
"""
"""Not exact: ``memberOf``'s check unfolds ``member`` into its renaming rules only, not the join."""
THREE = """
a(X, Y) :- b(Y, X).
b(X, Y) :- c(Y, X).
c(X, Y) :- a(X, Y).
a(X, Y) :- e(X, Y).
"""
"""Not exact: a cycle of three renamings (one level of unfolding does not reach around it)."""

PREDICATES = ("worksFor", "affiliated", "member", "memberOf", "e", "a", "b", "c")
pairs = st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=6)
triples = st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), max_size=6)


def text(rules: str, facts: dict[str, set]) -> str:
    return rules + "".join(f"{p}({', '.join(map(str, row))}).\n" for p, rows in sorted(facts.items())
                           for row in sorted(rows))


def strata_decided(rules: str) -> list[bool]:
    r = Reasoner(rules + "worksFor(0, 0). org(0). e(0, 0). leads(0, 0, 0).")
    return [decides_every_candidate(s) for s in r.reasoning.program.strata if s.recursive]


def test_which_strata_the_check_decides():
    assert strata_decided(INVERSE) == [True]
    assert strata_decided(NEAR_MISS) == [False]
    assert strata_decided(THREE) == [False]
    assert strata_decided("p(X, Y) :- p(Y, X).\np(X, Y) :- e(X, Y).\n") == [False]   # a symmetric module's rule


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([INVERSE, NEAR_MISS, THREE]),
       st.fixed_dictionaries({p: pairs for p in PREDICATES} | {"leads": triples}),
       st.lists(st.tuples(st.sampled_from(PREDICATES + ("leads",)), st.one_of(pairs, triples), st.booleans()),
                min_size=1, max_size=4))
def test_inverse_renamings_maintained_as_the_naive_evaluator(rules, facts, steps):
    """Facts deleted and added, explicit ones of the stratum's predicates too: the naive evaluator's results;
    an exact stratum never rederives."""
    facts = {p: set(rows) for p, rows in facts.items()} | {"org": {(0,), (2,)}}
    rederived = []
    original = dred.rederive
    dred.rederive = lambda update, stratum, how=None: rederived.append(stratum) or original(update, stratum, how)
    try:
        r = Reasoner(text(rules, facts))
        r.materialise()
        note(text(rules, facts))
        for predicate, rows, delete in steps:
            rows = {row for row in rows if len(row) == (3 if predicate == "leads" else 2)}
            # a deletion names some stored fact: the one drawn, else the predicate's first
            rows = (rows & facts[predicate] or set(sorted(facts[predicate])[:1])) if delete else rows - facts[predicate]
            if not rows:
                continue
            r.update(**{"delete" if delete else "add": {predicate: sorted(rows)}}, algorithm="dred")
            facts[predicate] = facts[predicate] - rows if delete else facts[predicate] | rows
            expected = nonempty(naive_materialise(parse(text(rules, facts))))
            assert engine_state(r, expected.keys() | r.analysed.arities.keys()) == expected
    finally:
        dred.rederive = original
    if rules == INVERSE:
        assert not rederived
