"""The core guarantee with the engine's size thresholds shrunk (tests/thresholds.py): random programs,
closure programs and update sequences equal the naive evaluator when small cases take the paths that
only large data takes by default (sorted runs, index tiers, row scans, chunked operators, bitset chains,
scipy closures, packed deaths, replanning ...)."""

from __future__ import annotations

from hypothesis import given, note, strategies as st

from reference import naive_materialise
from strategies import examples, programs_and_facts, programs_facts_and_updates
import test_closure_modules as closures
from test_differential import engine_materialise, nonempty, with_facts
from test_maintenance import assert_updates_equal_rematerialisation
from thresholds import shrunk, tiny_thresholds


@examples(60)
@given(programs_and_facts(), tiny_thresholds())
def test_materialisation_with_small_thresholds(case, groups):
    program, facts = case
    note(f"thresholds: {groups}\n{with_facts(program, facts)}")
    with shrunk(groups):
        got = engine_materialise(program, facts, "local")
    assert nonempty(got) == nonempty(naive_materialise(program, facts))


@examples(40)
@given(programs_facts_and_updates(), tiny_thresholds(), st.sampled_from(closures.ALGORITHMS))
def test_updates_with_small_thresholds(case, groups, algorithm):
    note(f"thresholds: {groups}, algorithm {algorithm}")
    with shrunk(groups):
        assert_updates_equal_rematerialisation(*case, algorithm=algorithm)


@examples(40)
@given(closures.closure_cases(), tiny_thresholds(), st.sampled_from(closures.ALGORITHMS))
def test_closure_modules_with_small_thresholds(case, groups, algorithm):
    note(f"thresholds: {groups}")
    with shrunk(groups):
        closures.test_closure_modules_equal_seminaive_and_naive.hypothesis.inner_test(algorithm, case)
