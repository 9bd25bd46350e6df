"""Text encoding in the dictionary: the bulk path (Polars hash lookups, for loading files) and the
dict path (small updates, constants) must agree on every id, whatever order they are used in."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from deltalog.backends.local.codec import texts_of_ids
from deltalog.storage import dictionary as dictionary_module
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.uniques import unique_inverse

TEXTS = st.text(alphabet="ab\"<> é\t", max_size=3)
STEP = st.tuples(st.sampled_from(["bulk", "small", "lookup", "restore"]),
                 st.sampled_from(["string", "iri", "literal"]),
                 st.lists(TEXTS, max_size=12))


@pytest.fixture
def small_bulk(monkeypatch):
    """Columns of 3 or more texts take the bulk path, so small examples exercise it."""
    monkeypatch.setattr(dictionary_module, "BULK_TEXTS", 3)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])   # the patch holds for every example
@given(steps=st.lists(STEP, max_size=12), ints=st.lists(st.integers(-5, 5), max_size=5))
def test_bulk_and_dict_paths_give_one_id_per_value(small_bulk, steps, ints):
    d, model = Dictionary(), {}
    d.encode_ints(np.array(ints, np.int64))   # ints interleaved with texts in the id space
    for action, kind, values in steps:
        if action == "restore":   # what a store reopen does: the same ids from saved arrays
            fresh = Dictionary()
            fresh.restore(d.kinds.view().copy(), d.ints.view().copy(), d.numbers.view().copy(), list(d.texts))
            d = fresh
            continue
        if action == "lookup":
            for value in values:
                assert d.lookup_constant(kind, value) == model.get((kind, value))
            continue
        ids = (d.encode_text_column(kind, pl.Series(values, dtype=pl.String)) if action == "bulk"
               else d.encode_texts(kind, values))
        assert ids.dtype == np.int64 and len(ids) == len(values)
        for value, i in zip(values, ids.tolist()):
            assert model.setdefault((kind, value), i) == i
    assert len(set(model.values())) == len(model)          # distinct values, distinct ids
    for (kind, value), i in model.items():
        assert d.decode(np.array([i])) == [(kind, value)]
        assert d.lookup_constant(kind, value) == i


def test_a_large_column_is_encoded_in_bulk_and_decodes_exactly():
    d = Dictionary()
    values = [f"v{i % 7000}" for i in range(20000)] + ["", " x ", "é", 'q"uote']
    ids = d.encode_text_column("string", pl.Series(values))
    assert len(set(ids.tolist())) == 7004
    assert ids[:7000].tolist() == list(range(7000))          # first appearance order, as the dict path
    again = d.encode_texts("string", ["v5", "new"])
    assert again.tolist() == [5, 7004]
    assert d.decode(ids[-4:]) == [("string", v) for v in values[-4:]]
    cells = texts_of_ids(ids, d).to_list()
    assert cells[:3] == ["v0", "v1", "v2"] and len(cells) == len(values)


@given(small=st.lists(st.integers(0, 50), max_size=40), sparse=st.booleans())
def test_unique_inverse_rebuilds_the_ids(small, sparse):
    ids = [i * 10**9 for i in small] if sparse else small   # binary searches, or a lookup table
    array = np.array(ids, np.int64)
    unique, inverse = unique_inverse(array)
    assert unique.tolist() == sorted(set(ids))
    assert unique[inverse].tolist() == ids


def test_bulk_loaded_texts_survive_a_store_and_small_updates(tmp_path):
    """Strings loaded in bulk (>= BULK_TEXTS cells), saved, reopened, then named one by one in updates
    and queries: every id found again, nothing duplicated."""
    from deltalog.api import Reasoner
    names = [f"n{i}" for i in range(6000)]
    edges = pl.DataFrame({"c0": names[:-1], "c1": names[1:]})
    r = Reasoner("hop(X, Z) :- edge(X, Y), edge(Y, Z).")
    r.load("edge", edges)
    r.materialise()
    r.save(tmp_path / "store")
    again = Reasoner.open(tmp_path / "store")
    again.update(add={"edge": [("n5999", "n0"), ("new", "n1")]}, delete={"edge": [("n1", "n2")]})
    hops = set(again.relation("hop").iter_rows())
    assert ("n5998", "n0") in hops and ("n5999", "n1") in hops and ("new", "n2") not in hops
    assert ("n0", "n2") not in hops and ("n1", "n3") not in hops and ("n2", "n4") in hops
    assert len(hops) == 5998 - 2 + 2
    assert again.query("hop(n3, Y)").to_dicts() == [{"Y": "n5"}]
