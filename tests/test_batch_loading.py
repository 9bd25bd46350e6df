"""``load_many`` (the ``BatchLoading`` capability): the same rows, counts and errors as ``load`` of each table."""

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltalog.backends.base import BatchLoading
from deltalog.backends.local import backend as local_backend
from deltalog.backends.local.backend import LocalBackend
from deltalog.errors import InputError
from deltalog.plan.ir import Col, Scan

TABLES = {
    "edge": pl.DataFrame({"c0": [1, 2, 2, 2**40], "c1": [2, 3, 3, -7]}),   # a duplicate row: 3 new rows
    "node": pl.DataFrame({"c0": [1, 5]}, schema={"c0": pl.Int32}),
    "name": pl.DataFrame({"c0": [1, 2], "c1": ["a", "42"]}),                # not all ints: loaded by ``load``
    "none": pl.DataFrame({"c0": []}, schema={"c0": pl.Int64}),
}
ARITIES = {"edge": 2, "node": 1, "name": 2, "none": 1}


def backend_with_relations() -> LocalBackend:
    backend = LocalBackend()
    for name, arity in ARITIES.items():
        backend.create_relation(relation=name, arity=arity)
    return backend


def test_load_many_stores_what_load_stores():
    one_by_one, batched = backend_with_relations(), backend_with_relations()
    counts = {name: one_by_one.load(relation=name, table=table, generation=1) for name, table in TABLES.items()}
    assert isinstance(batched, BatchLoading)
    assert batched.load_many(tables=TABLES, generation=1) == counts
    assert counts["edge"] == 3 and counts["none"] == 0
    for name in ARITIES:
        assert batched.typed_rows(relation=name) == one_by_one.typed_rows(relation=name)


def test_load_many_refuses_a_table_of_the_wrong_width_as_load_does():
    with pytest.raises(InputError, match="arity 1"):
        backend_with_relations().load_many(tables={"node": pl.DataFrame({"c0": [1], "c1": [2]})}, generation=1)


def test_insert_tables_stores_what_an_insert_of_the_rows_stores():
    by_plan, batched = backend_with_relations(), backend_with_relations()
    for backend in (by_plan, batched):
        backend.load(relation="edge", table=pl.DataFrame({"c0": [1, 9]}).with_columns(c1=pl.Series([2, 9])),
                     generation=1)
    given = {"edge": TABLES["edge"], "name": TABLES["name"], "none": TABLES["none"]}
    expected = {}
    for name, table in given.items():   # the old way: a scratch relation, then an insert of its scan
        by_plan.create_relation(relation="raw", arity=ARITIES[name])
        distinct = by_plan.load(relation="raw", table=table, generation=2)
        scan = Scan("raw", tuple(Col(f"c{i}") for i in range(ARITIES[name])))
        expected[name] = (distinct, by_plan.insert(relation=name, plan=scan, generation=2))
        by_plan.drop(relation="raw")
    assert batched.insert_tables(tables=given, generation=2) == expected
    assert expected["edge"] == (3, 2)   # (1, 2) was there already
    for name in ARITIES:
        assert batched.typed_rows(relation=name) == by_plan.typed_rows(relation=name)


def test_delete_tables_deletes_the_live_rows_given_and_counts_them():
    backend = backend_with_relations()
    backend.load(relation="edge", table=TABLES["edge"], generation=1)
    gone = pl.DataFrame({"c0": [2, 2, 5, 2**40], "c1": [3, 3, 5, -7]})   # a duplicate and a missing row
    assert backend.delete_tables(tables={"edge": gone, "none": TABLES["none"]}, generation=2) == \
        {"edge": (3, 2), "none": (0, 0)}
    assert backend.typed_rows(relation="edge") == {(("int", 1), ("int", 2))}
    with pytest.raises(InputError, match="arity 1"):
        backend.delete_tables(tables={"node": pl.DataFrame({"c0": [1], "c1": [2]})}, generation=3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=12),
       st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=12), st.booleans())
def test_batch_counts_match_a_set_model_and_sort_only_repeated_rows(stored, batch, deleting):
    """(distinct rows given, rows changed) as a model of sets says; the rows given are sorted to count them only
    when some given row changed nothing (a repeat, or a row already there / not there): when every one changed
    a row they were distinct (``given_and_changed``)."""
    backend = backend_with_relations()
    if stored:
        backend.load(relation="edge", table=pl.DataFrame({"c0": [a for a, _ in stored], "c1": [b for _, b in stored]}),
                     generation=1)
    table = pl.DataFrame({"c0": [a for a, _ in batch], "c1": [b for _, b in batch]})
    sorted_batches = []
    original = local_backend.distinct_rows

    def counted(columns):
        sorted_batches.append(len(columns[0]))
        return original(columns)

    local_backend.distinct_rows = counted
    try:
        call = backend.delete_tables if deleting else backend.insert_tables
        distinct_given, changed = call(tables={"edge": table}, generation=2)["edge"]
    finally:
        local_backend.distinct_rows = original
    before, rows = set(stored), set(batch)
    assert (distinct_given, changed) == (len(rows), len(rows & before) if deleting else len(rows - before))
    assert backend.typed_rows(relation="edge") == {(("int", a), ("int", b)) for a, b in
                                                   (before - rows if deleting else before | rows)}
    assert sorted_batches == ([] if changed == len(batch) else [len(batch)])
