"""The local executor works through the stored-relation interface only (storage/stored.py).

Whole programs and incremental updates run with every relation stored as ``set`` (a plain dictionary
of tuples, not append-only, no row ranges) and as ``strict`` (the default ``rows`` relation behind a
wrapper that exposes the interface's methods and nothing else, counting the calls), and give exactly
what the default representation gives.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings

from deltalog.api import Reasoner
from deltalog.backends.local.backend import LocalBackend
from deltalog.errors import DeltalogError, UsageError
from deltalog.storage import representations
from deltalog.storage.relation import Relation
from deltalog.storage.stored import StoredRelation, View
from golden import CASES, expected, run_case
from strategies import programs_facts_and_updates
from test_maintenance import assert_updates_equal_rematerialisation

CALLS: Counter = Counter()


class Strict:
    """A ``rows`` relation reachable only through the StoredRelation interface (any other attribute the
    executor or backend reached for would raise AttributeError), counting the calls per method."""

    __slots__ = ("_inner",)
    representation = "strict"

    def __init__(self, name: str, arity: int) -> None:
        self._inner = Relation(name, arity)

    name = property(lambda self: self._inner.name, lambda self, value: setattr(self._inner, "name", value))
    arity = property(lambda self: self._inner.arity)
    deleted_rows = property(lambda self: self._inner.deleted_rows)


def _forward(method: str):
    def call(self, *args, **kwargs):
        CALLS[method] += 1
        return getattr(self._inner, method)(*args, **kwargs)
    call.__name__ = method
    return call


for _method in ("scan", "keyed", "covers_live", "contains", "holds_live", "lost_since", "count_view",
                "distinct_estimate", "insert", "delete", "rollback", "compact", "nbytes"):
    setattr(Strict, _method, _forward(_method))


def test_both_representations_and_the_wrapper_satisfy_the_protocol():
    for factory in (Relation, representations.PlainSetRelation, Strict):
        assert isinstance(factory("r", 2), StoredRelation)


@pytest.mark.parametrize("representation", ["set", "strict"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_programs_through_the_interface_only(case, representation, tmp_path, monkeypatch):
    monkeypatch.setitem(representations.REPRESENTATIONS, "strict", Strict)
    CALLS.clear()
    backend = LocalBackend(representation=representation)
    assert run_case(case, backend, tmp_path / "out") == expected(case)
    assert {r.representation for r in backend._relations.values()} == {representation}
    if representation == "strict":
        assert CALLS["scan"] and CALLS["insert"]


@pytest.mark.parametrize("representation", ["set", "strict"])
@pytest.mark.parametrize("algorithm", ["dred", "counting", "fbf", "auto", "remat"])
@settings(max_examples=25)
@given(case=programs_facts_and_updates())
def test_updates_through_the_interface_only(representation, algorithm, case):
    """Deletions, revivals, rollbacks of failed attempts and compaction go through the interface too."""
    representations.REPRESENTATIONS["strict"] = Strict
    try:
        assert_updates_equal_rematerialisation(*case, algorithm=algorithm,
                                               backend=LocalBackend(representation=representation))
    finally:
        representations.REPRESENTATIONS.pop("strict", None)


def test_a_relation_can_be_stored_otherwise_than_the_backend_default():
    backend = LocalBackend()
    backend.create_relation(relation="small", arity=1, representation="set")
    backend.create_relation(relation="big", arity=1)
    assert backend._relations["small"].representation == "set"
    assert backend._relations["big"].representation == "rows"
    backend.clear(relation="small")
    assert backend._relations["small"].representation == "set", "clearing keeps the representation"
    with pytest.raises(UsageError, match="unknown relation representation 'btree'"):
        LocalBackend(representation="btree")


def test_the_set_representation_answers_generation_windows():
    relation = representations.make_relation("set", "e", 1)
    relation.insert([np.array([1, 2, 3])], generation=1)
    relation.insert([np.array([4])], generation=2)
    relation.delete([np.array([2])], generation=3)
    relation.insert([np.array([2])], generation=4, revive_since=3)     # back, inserted at 1 still
    relation.delete([np.array([3])], generation=5)

    def rows(view):
        return sorted(v for columns, _ in relation.scan(view) for v in columns[0].tolist())
    assert rows(View()) == [1, 2, 4] and rows(View(since=2)) == [4] and rows(View(until=2)) == [1, 2]
    assert rows(View(visible=4)) == [1, 2, 3, 4] and rows(View(deleted=(5, None))) == [3]
    assert relation.covers_live(View()) and not relation.covers_live(View(since=2))
    relation.rollback(5)
    assert rows(View()) == [1, 2, 3, 4]
    relation.rollback(2)
    assert rows(View()) == [1, 2, 3] and relation.deleted_rows == 0


def test_saving_needs_the_rows_representation(tmp_path):
    reasoner = Reasoner("p(X) :- e(X). e(1).", backend=LocalBackend(representation="set"))
    with pytest.raises(DeltalogError, match="stored as 'set', which cannot be saved"):
        reasoner.save(tmp_path / "store")
