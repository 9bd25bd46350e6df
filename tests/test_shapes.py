"""The maintenance property on the shapes tests/shapes.py draws (recursive strata of renaming rules,
dense two-atom chains, long update sequences), for every algorithm, maybe with the size thresholds
shrunk (tests/thresholds.py)."""

from __future__ import annotations

from hypothesis import given, note, strategies as st

from deltalog.api import Reasoner
from deltalog.errors import LimitExceededError
from deltalog.limits import Limits
from reference import naive_materialise
from shapes import dense_chain_cases, long_update_sequences, recursive_renaming_cases
from strategies import apply_update, examples, programs_and_facts
from test_differential import nonempty, with_facts
from test_maintenance import (ALGORITHMS, REFUSE_RECURSIVE_AGGREGATES, assert_updates_equal_rematerialisation,
                              engine_state, python_rows, recursive_aggregates)
from thresholds import shrunk, tiny_thresholds

algorithms = st.sampled_from(ALGORITHMS)


@examples(40)
@given(recursive_renaming_cases(), algorithms, tiny_thresholds())
def test_recursive_renaming_strata(case, algorithm, groups):
    note(f"algorithm {algorithm}, thresholds {groups}")
    with shrunk(groups):
        assert_updates_equal_rematerialisation(*case, algorithm=algorithm)


@examples(8)
@given(dense_chain_cases(), algorithms)
def test_dense_chains(case, algorithm):
    note(f"algorithm {algorithm}")
    assert_updates_equal_rematerialisation(*case, algorithm=algorithm)


@examples(20)
@given(st.data(), algorithms, tiny_thresholds())
def test_long_update_sequences(data, algorithm, groups):
    program, facts = data.draw(programs_and_facts())
    batches = data.draw(long_update_sequences(facts, program))
    note(f"algorithm {algorithm}, thresholds {groups}")
    with shrunk(groups):
        assert_updates_equal_rematerialisation(program, facts, batches, algorithm=algorithm)


class Refused(Exception):
    """The failure a test injects at the end of an update (where the check of derived facts runs)."""


def refuse() -> None:
    raise Refused


@examples(20)
@given(st.data(), algorithms)
def test_failed_updates_change_nothing(data, algorithm):
    """An update stopped part way by ``max_facts`` (the facts held plus a little), or failing at its end
    (the check of derived facts, after everything was maintained), is rolled back: the state is the
    previous batch's, and the batches after it are maintained exactly from there."""
    program, facts = data.draw(programs_and_facts())
    batches = data.draw(long_update_sequences(facts, program))
    reasoner = Reasoner(with_facts(program, facts))
    reasoner.materialise()
    if algorithm in REFUSE_RECURSIVE_AGGREGATES and recursive_aggregates(reasoner):
        return
    for add, delete in batches:
        how = data.draw(st.sampled_from(["apply", "limit", "check"]))
        if how == "limit":
            reasoner.limits = Limits(reasoner.fact_count() + data.draw(st.integers(0, 12)))
        elif how == "check":
            reasoner._check_derived = refuse   # type: ignore[method-assign]
        try:
            reasoner.update(add={p: python_rows(r) for p, r in add.items()},
                            delete={p: python_rows(r) for p, r in delete.items()}, algorithm=algorithm)
            assert how != "check"
            facts = apply_update(facts, add, delete)
        except (LimitExceededError, Refused):
            note(f"refused: add {add}, delete {delete}")
        reasoner.limits = Limits()
        reasoner.__dict__.pop("_check_derived", None)
        expected = nonempty(naive_materialise(program, facts))
        assert engine_state(reasoner, expected.keys() | reasoner.analysed.arities.keys()) == expected


@examples(10)
@given(st.data(), algorithms, st.sampled_from(["auto", "none"]))
def test_updates_across_store_saves(tmp_path_factory, data, algorithm, modules):
    """Saved into a store after some batches, opened again after others (a batch not saved is lost):
    the state read back and maintained on goes on equal to the naive evaluator's."""
    program, facts = data.draw(programs_and_facts())
    batches = data.draw(long_update_sequences(facts, program))
    store = tmp_path_factory.mktemp("store") / "s"
    reasoner = Reasoner(with_facts(program, facts), modules=modules)
    reasoner.materialise()
    if algorithm in REFUSE_RECURSIVE_AGGREGATES and recursive_aggregates(reasoner):
        return
    reasoner.save(store)
    saved = facts
    for add, delete in batches:
        reasoner.update(add={p: python_rows(r) for p, r in add.items()},
                        delete={p: python_rows(r) for p, r in delete.items()}, algorithm=algorithm)
        facts = apply_update(facts, add, delete)
        step = data.draw(st.sampled_from(["save", "save and open", "open", "go on"]))
        if step.startswith("save"):
            reasoner.save(store)
            saved = facts
        if step.endswith("open"):
            reasoner = Reasoner.open(store, modules=modules)
            facts = saved
        expected = nonempty(naive_materialise(program, facts))
        assert engine_state(reasoner, expected.keys() | reasoner.analysed.arities.keys()) == expected
