"""``load_many`` (the ``BatchLoading`` capability): the same rows, counts and errors as ``load`` of each table."""

import polars as pl
import pytest

from deltalog.backends.base import BatchLoading
from deltalog.backends.local.backend import LocalBackend
from deltalog.errors import InputError

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
