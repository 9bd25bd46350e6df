"""Incremental maintenance: after every batch of additions and deletions, each algorithm equals the
naive evaluator's rematerialisation from scratch (random stratified programs with negation,
comparisons, BIND and aggregates)."""

from __future__ import annotations

import pytest
from hypothesis import given, note

from deltalog.algorithms.dred import MaintenanceUnsupported
from deltalog.api import Reasoner
from reference import naive_materialise
from strategies import apply_update, programs_facts_and_updates
from test_differential import nonempty, with_facts

ALGORITHMS = ["dred", "dredc", "fbf", "bf", "remat", "auto"]


def python_rows(rows) -> list[tuple]:
    return [tuple(value for _, value in row) for row in rows]


def engine_state(reasoner: Reasoner, predicates) -> dict[str, set]:
    return nonempty({p: reasoner.backend.typed_rows(relation=p) for p in predicates})


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@given(programs_facts_and_updates())
def test_updates_equal_rematerialisation(backend_name, algorithm, case):
    program, facts, batches = case
    reasoner = Reasoner(with_facts(program, facts), backend=backend_name)
    reasoner.materialise()
    note(str(with_facts(program, facts)))
    if algorithm in ("dred", "dredc", "fbf", "bf") and recursive_aggregates(reasoner):
        with pytest.raises(MaintenanceUnsupported):
            reasoner.update(add={}, delete={}, algorithm="dred")
        return
    for add, delete in batches:
        note(f"update: add {add}, delete {delete}")
        reasoner.update(add={p: python_rows(r) for p, r in add.items() if r},
                        delete={p: python_rows(r) for p, r in delete.items() if r}, algorithm=algorithm)
        facts = apply_update(facts, add, delete)
        expected = nonempty(naive_materialise(program, facts))
        assert engine_state(reasoner, expected.keys() | reasoner.analysed.arities.keys()) == expected


def recursive_aggregates(reasoner: Reasoner) -> bool:
    return any(info.aggregates for s in reasoner.analysed.strata for info in s.recursive)
