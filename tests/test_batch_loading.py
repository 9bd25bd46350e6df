"""``load_many`` (the ``BatchLoading`` capability): the same rows, counts and errors as ``load`` of each table."""

import polars as pl
import pytest

from deltalog.backends.base import BatchLoading
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
