"""A Distinct subplan's rows are kept for the rest of one evaluation (backends/local/execute.py ``_distinct``):
an equal subplan, the same object or not, runs once, and each Distinct node is hashed once (a node's hash walks
its whole subtree); results equal to evaluating every subplan afresh."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from deltalog.backends.local import execute
from deltalog.backends.local.backend import LocalBackend
from deltalog.plan import ir


def backend_with(rows: list[tuple[int, int]]) -> LocalBackend:
    backend = LocalBackend()
    for name, arity in (("e", 2), ("out", 1)):
        backend.create_relation(relation=name, arity=arity)
    table = pl.DataFrame({"c0": [a for a, _ in rows], "c1": [b for _, b in rows]},
                         schema=[("c0", pl.Int64), ("c1", pl.Int64)])
    backend.load(relation="e", table=table, generation=1)
    return backend


def sources(column: str) -> ir.Node:
    """A new (equal) Distinct node each call: the sources of ``e`` as ``column``."""
    return ir.Distinct(ir.Project(ir.Scan("e", (ir.Col("X"), ir.Col("Y"))), ((column, ir.Col("X")),)))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=40),
       st.integers(1, 3), st.booleans())
def test_equal_distinct_subplans_run_once_and_hash_once(rows, copies, same_object):
    backend = backend_with(rows)
    first = sources("c0")
    parts = tuple(first if same_object else sources("c0") for _ in range(copies))
    hashed, built, depth = [0], [0], [0]
    generated_hash, distinct_frame = ir.Distinct.__hash__, execute.distinct_frame

    def counted_hash(node):   # hashes asked from outside a node's hash (not its subtree's own)
        hashed[0] += depth[0] == 0
        depth[0] += 1
        try:
            return generated_hash(node)
        finally:
            depth[0] -= 1

    def counted_frame(frame):
        built[0] += 1
        return distinct_frame(frame)

    ir.Distinct.__hash__, execute.distinct_frame = counted_hash, counted_frame
    try:
        added = backend.insert(relation="out", plan=ir.Distinct(ir.Union_(parts)), generation=2)
    finally:
        ir.Distinct.__hash__, execute.distinct_frame = generated_hash, distinct_frame
    assert added == len({a for a, _ in rows})
    assert set(backend.id_columns(relation="out")[0].tolist()) == set(backend.id_columns(relation="e")[0].tolist())
    assert built[0] == 2   # the outer Distinct and the shared one, whatever the copies
    assert hashed[0] == 1 + copies   # each Distinct node evaluated, hashed once
