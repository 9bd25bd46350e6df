"""Incremental maintenance: after every batch of additions and deletions, each algorithm equals the
naive evaluator's rematerialisation from scratch (random stratified programs with negation,
comparisons, BIND and aggregates)."""

from __future__ import annotations

from typing import Callable

import pytest
from hypothesis import given, note

from deltalog import IRI
from deltalog.algorithms.dred import MaintenanceUnsupported
from deltalog.api import Reasoner
from reference import naive_materialise
from strategies import apply_update, programs_facts_and_updates
from test_differential import nonempty, with_facts

ALGORITHMS = ["dred", "dredc", "counting", "fbf", "bf", "remat", "auto"]
REFUSE_RECURSIVE_AGGREGATES = ("dred", "dredc", "counting", "fbf", "bf")


def python_rows(rows) -> list[tuple]:
    """Rows of (kind, value) pairs as the Python values ``update()`` takes (an IRI as ``deltalog.IRI``)."""
    return [tuple(IRI(value) if kind == "iri" else value for kind, value in row) for row in rows]


def engine_state(reasoner: Reasoner, predicates) -> dict[str, set]:
    return nonempty({p: reasoner.backend.typed_rows(relation=p) for p in predicates})


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@given(programs_facts_and_updates())
def test_updates_equal_rematerialisation(backend_name, algorithm, case):
    program, facts, batches = case
    reasoner = Reasoner(with_facts(program, facts), backend=backend_name)
    reasoner.materialise()
    if algorithm in REFUSE_RECURSIVE_AGGREGATES and recursive_aggregates(reasoner):
        with pytest.raises(MaintenanceUnsupported):
            reasoner.update(add={}, delete={}, algorithm="dred")
        return
    counted = (lambda r, now: assert_trace_is_counted_afresh(r, program, now, backend_name)) \
        if algorithm == "counting" else None
    assert_updates_equal_rematerialisation(program, facts, batches, algorithm=algorithm, backend=backend_name,
                                           each_batch=counted)


def assert_updates_equal_rematerialisation(program, facts, batches, *, algorithm: str = "dred", backend=None,
                                           each_batch: Callable[[Reasoner, dict], None] | None = None) -> None:
    """The maintenance property for one case (also for the tests that vary the engine under it: storage,
    kernels): after each batch the engine's state is the naive evaluator's rematerialisation, and
    ``each_batch(reasoner, facts now)`` holds. A program with a recursive aggregate is skipped by the
    algorithms that refuse it (tested above)."""
    reasoner = Reasoner(with_facts(program, facts), **({} if backend is None else {"backend": backend}))
    reasoner.materialise()
    note(str(with_facts(program, facts)))
    if algorithm in REFUSE_RECURSIVE_AGGREGATES and recursive_aggregates(reasoner):
        return
    for add, delete in batches:
        note(f"update: add {add}, delete {delete}")
        reasoner.update(add={p: python_rows(r) for p, r in add.items() if r},
                        delete={p: python_rows(r) for p, r in delete.items() if r}, algorithm=algorithm)
        facts = apply_update(facts, add, delete)
        expected = nonempty(naive_materialise(program, facts))
        assert engine_state(reasoner, expected.keys() | reasoner.analysed.arities.keys()) == expected
        if each_batch is not None:
            each_batch(reasoner, facts)


def recursive_aggregates(reasoner: Reasoner) -> bool:
    return any(info.aggregates for s in reasoner.analysed.strata for info in s.recursive)


def assert_trace_is_counted_afresh(reasoner: Reasoner, program, facts, backend_name) -> None:
    """001 Theorem 12(a): the maintained counters are the trace of the new explicit facts (as counted
    by Algorithm 2 in a fresh engine), for every predicate that has counters."""
    from deltalog.algorithms.counting import count_trace, counter_relation
    from deltalog.algorithms.update import Update, UpdateViews
    fresh = Reasoner(with_facts(program, facts), backend=backend_name)
    fresh.materialise()
    update = Update(fresh.reasoning, UpdateViews(fresh.reasoning.tick()))
    from deltalog.algorithms.strategies import counts_instances
    from deltalog.modules import modules_of
    try:
        for stratum in fresh.analysed.strata:   # the strata Counting maintains (others fall back to DRed^c)
            if all(counts_instances(m) for m in modules_of(stratum)):
                count_trace(update, stratum)
    finally:
        update.finish()
    for predicate in reasoner.analysed.idb:
        if counter_relation(predicate) in reasoner.backend.relations():
            assert reasoner.backend.typed_rows(relation=counter_relation(predicate)) == \
                fresh.backend.typed_rows(relation=counter_relation(predicate)), predicate
