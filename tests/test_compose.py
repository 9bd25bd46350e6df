"""Two-atom chains inserted as sets and their witness checks by bitsets (backends/local/compose.py): the
rows and instance counts of the plain join, in every view, by bitsets and by the join over the filtered
left side; and whole programs and updates equal the naive evaluator with the bitsets forced everywhere."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import numpy as np
import polars as pl
import pytest
from hypothesis import given, note

from deltalog.backends.local import backend as local_backend, compose
from deltalog.backends.local.backend import LocalBackend
from deltalog.plan import ir
from reference import naive_materialise
from strategies import programs_and_facts, programs_facts_and_updates
from test_differential import engine_materialise, nonempty, with_facts
from test_maintenance import assert_updates_equal_rematerialisation

VIEWS = {"live": {}, "before": {"visible": 1}, "gone": {"deleted": (2, None)}}
PATHS = {"bitsets": 0, "join": 10**12}


def load(backend: LocalBackend, name: str, rows) -> None:
    backend.create_relation(relation=name, arity=2)
    rows = sorted(rows)
    table = pl.DataFrame({"c0": [a for a, _ in rows], "c1": [b for _, b in rows]},
                         schema=[("c0", pl.Int64), ("c1", pl.Int64)])
    backend.load(relation=name, table=table, generation=1)


def relations(seed: int) -> tuple[LocalBackend, dict[str, set]]:
    """l(a, k), r(k, b) with a fifth of r's rows deleted at generation 2, n(k, b) to negate, s(a, k)."""
    rng = np.random.default_rng(seed)
    rows = {p: {(int(x), int(y)) for x, y in rng.integers(0, 40, (n, 2))}
            for p, n in (("l", 300), ("r", 900), ("n", 300), ("s", 600))}
    backend = LocalBackend()
    for name, held in rows.items():
        load(backend, name, held)
    load(backend, "gone", sorted(rows["r"])[::5])
    backend.delete(relation="r", plan=ir.Scan("gone", (ir.Col("c0"), ir.Col("c1"))), generation=2)
    return backend, rows


def r_rows(rows: dict[str, set], view: str) -> set:
    gone = set(sorted(rows["r"])[::5])
    return {"live": rows["r"] - gone, "before": rows["r"], "gone": gone}[view]


def chain_plan(view: str, swap: bool) -> ir.Node:
    """π_{A,B}(l(A, K) ⋈ r(K, B), not n(K, B)), the check above the join or (``swap``) outputs B first."""
    join = ir.Join(ir.Scan("l", (ir.Col("A"), ir.Col("K"))), ir.Scan("r", (ir.Col("K"), ir.Col("B")), **VIEWS[view]),
                   ("K",), label="join")
    checked = ir.AntiJoin(join, ir.Scan("n", (ir.Col("K"), ir.Col("B"))), ("K", "B"))
    outputs = (("c0", ir.Col("B")), ("c1", ir.Col("A"))) if swap else (("c0", ir.Col("A")), ("c1", ir.Col("B")))
    return ir.Project(checked, outputs, label="rule")


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("swap", [False, True])
def test_chain_rows_and_instances_equal_the_join(path, view, swap, monkeypatch):
    backend, rows = relations(1)
    plan = chain_plan(view, swap)
    used = []
    monkeypatch.setattr(compose, "DENSE_RATIO", PATHS[path])
    original = compose.compose
    monkeypatch.setattr(compose, "compose", lambda chain, ctx: used.append(1) or original(chain, ctx))
    backend.create_relation(relation="out", arity=2)
    metrics: dict[str, int] = {}
    backend.insert(relation="out", plan=plan, generation=3, metrics=metrics)
    assert used
    expected = {(a, b) for a, k in rows["l"] for k2, b in r_rows(rows, view) if k == k2 and (k, b) not in rows["n"]}
    got = set(backend.evaluate(plan=ir.Scan("out", (ir.Col("x"), ir.Col("y")))).rows())
    assert got == ({(b, a) for a, b in expected} if swap else expected)
    monkeypatch.setattr(local_backend, "set_projects", lambda plan: frozenset())   # the plain join
    plain: dict[str, int] = {}
    backend.create_relation(relation="plain", arity=2)
    backend.insert(relation="plain", plan=plan, generation=3, metrics=plain)
    assert metrics == plain and plain["rule"] > len(expected)


def test_a_chain_whose_checks_remove_every_row_of_r_is_empty(monkeypatch):
    """R's rows counted before its checks (the estimate) but all negated: nothing, and no bit rows."""
    backend = LocalBackend()
    for name, rows in (("l", {(a, a % 3) for a in range(40)}), ("r", {(k, 7) for k in range(3)}),
                       ("n", {(k, 7) for k in range(3)}), ("s", set())):
        load(backend, name, rows)
    monkeypatch.setattr(compose, "DENSE_RATIO", 0)
    backend.create_relation(relation="out", arity=2)
    assert backend.insert(relation="out", plan=chain_plan("live", False), generation=3) == 0


def test_a_project_under_an_aggregate_keeps_its_duplicates():
    backend, rows = relations(2)
    project = chain_plan("live", False)
    counted = ir.Aggregate(ir.Project(project.input, (("c0", ir.Col("A")), ("k", ir.Col("K")))), ("c0",),
                           "count", "k", "n")
    assert id(project) in compose.set_projects(ir.AntiJoin(project, ir.Scan("s", (ir.Col("c0"), ir.Col("c1"))),
                                                           ("c0", "c1")))
    assert not compose.set_projects(counted)


def witness_plan(view: str) -> ir.Node:
    """The candidates c(A, B) with a K: r(K, B), not n(K, B), s(A, K) (DRed's rederivation check)."""
    join = ir.Join(ir.Scan("c", (ir.Col("A"), ir.Col("B"))), ir.Scan("r", (ir.Col("K"), ir.Col("B")), **VIEWS[view]),
                   ("B",))
    checked = ir.AntiJoin(join, ir.Scan("n", (ir.Col("K"), ir.Col("B"))), ("K", "B"))
    semi = ir.SemiJoin(checked, ir.Scan("s", (ir.Col("A"), ir.Col("K"))), ("A", "K"))
    return ir.Witnessed(ir.Project(semi, (("c0", ir.Col("A")), ("c1", ir.Col("B")))))


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_witness_check_by_bitsets_equals_the_search(view, monkeypatch):
    backend, rows = relations(3)
    rng = np.random.default_rng(4)
    candidates = {(int(a), int(b)) for a, b in rng.integers(0, 45, (1500, 2))}   # some values r never holds
    load(backend, "c", candidates)
    plan = witness_plan(view)
    monkeypatch.setattr(compose, "WITNESS_READS", 10**9)
    assert compose.witness_chain(plan, backend._context()) is not None
    by_bits = backend.evaluate(plan=plan).rows()
    monkeypatch.setattr(compose, "WITNESS_READS", 0)
    assert compose.witness_chain(plan, backend._context()) is None
    searched = backend.evaluate(plan=plan).rows()
    held = r_rows(rows, view)
    expected = {(a, b) for a, b in candidates
                if any((k, b) in held and (k, b) not in rows["n"] for _, k in rows["s"] if _ == a)}
    assert len(by_bits) == len(set(by_bits)) and set(by_bits) == set(searched) == expected
    monkeypatch.setattr(compose, "WITNESS_READS", 10**9)
    monkeypatch.setattr(compose, "WITNESS_WORDS", 0)   # too many k values: the search, inside the kernel
    assert set(backend.evaluate(plan=plan).rows()) == expected


@contextmanager
def bitsets_everywhere() -> Iterator[None]:
    """Every chain composed and every witness chain checked by bitsets, whatever their sizes."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compose, "DENSE_RATIO", 0)
        patch.setattr(compose, "MIN_LEFT", 0)
        patch.setattr(compose, "WITNESS_READS", 10**9)
        yield


@given(programs_and_facts())
def test_materialisation_with_bitsets_equals_naive(case):
    program, facts = case
    note(str(with_facts(program, facts)))
    with bitsets_everywhere():
        got = engine_materialise(program, facts, "local")
    assert nonempty(got) == nonempty(naive_materialise(program, facts))


@given(programs_facts_and_updates())
def test_dred_with_bitsets_equals_rematerialisation(case):
    with bitsets_everywhere():
        assert_updates_equal_rematerialisation(*case)

