"""A new dense range of ints is filled whole (``Dictionary._encode_filled_range``): ids by arithmetic, every
value one id, the same ids whatever encodes them later, through a store's save and restore too."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deltalog.storage.dictionary import FILL_SHARE, Dictionary


def test_a_dense_first_range_gives_each_int_its_offset_as_id():
    d = Dictionary()
    values = np.array([5, 0, 2, 3, 5, 6], np.int64)   # 0..6: five of seven ints occur
    assert d.encode_ints(values).tolist() == values.tolist()
    assert len(d) == 7   # 1 and 4 are held too
    assert d.lookup_ints(np.array([1, 4, 7], np.int64)).tolist() == [1, 4, -1]
    assert d.encode_ints(np.array([4, 1, 6], np.int64)).tolist() == [4, 1, 6]   # inside the range: no new id
    assert len(d) == 7
    assert [v for _, v in d.decode(np.arange(7))] == list(range(7))


def test_a_filled_range_after_texts_starts_at_the_next_id():
    d = Dictionary()
    d.encode_texts("string", ["a", "b"])
    assert d.encode_ints(np.array([102, 100, 103], np.int64)).tolist() == [4, 2, 5]   # 100..103 get ids 2..5
    assert d.encode_ints(np.array([101], np.int64)).tolist() == [3]
    assert d.encode_ints(np.array([104, 100], np.int64)).tolist() == [6, 2]   # past the range: a new id


def test_a_sparse_range_is_not_filled():
    d = Dictionary()
    assert d.encode_ints(np.array([0, 9, 9], np.int64)).tolist() == [0, 1, 1]   # 2 of 10 ints: ids by rank
    assert len(d) == 2


def test_ids_follow_ints_after_a_restore():
    d = Dictionary()
    d.encode_ints(np.arange(0, 1000, 2, dtype=np.int64) * 1 + np.arange(500) % 2)   # 0..999, half of them
    restored = Dictionary()
    restored.restore(d.kinds.view().copy(), d.ints.view().copy(), d.numbers.view().copy(), list(d.texts))
    batch = np.array([999, 0, 500], np.int64)
    assert restored.encode_ints(batch).tolist() == d.encode_ints(batch).tolist() == [999, 0, 500]


@settings(max_examples=150, deadline=None)
@example(batches=[[0, 2], [1], [-1, 3]], texts_at=1)
@example(batches=[[2**63 - 1, 2**63 - 2], [2**63 - 3]], texts_at=0)
@example(batches=[[-2**63, -2**63 + 3], [-2**63 + 1]], texts_at=2)
@given(st.lists(st.lists(st.one_of(st.integers(-40, 40), st.integers(2**63 - 50, 2**63 - 1),
                                   st.integers(-2**63, -2**63 + 50)), max_size=30), min_size=1, max_size=5),
       st.integers(0, 5))
def test_int_ids_agree_with_a_model(batches, texts_at):
    """Batches of ints (dense, sparse, at the ends of int64), texts between them: each value keeps the id it
    was first given, distinct values have distinct ids, ids decode to the values, and the dictionary holds
    at most FILL_SHARE ids a distinct int."""
    d, model = Dictionary(), {}
    for k, batch in enumerate(batches):
        if k == texts_at:
            d.encode_texts("string", [f"t{k}"])
        ids = d.encode_ints(np.array(batch, np.int64)).tolist()
        assert [v for _, v in d.decode(ids)] == batch
        for value, id_ in zip(batch, ids):
            assert model.setdefault(value, id_) == id_
    assert len(set(model.values())) == len(model)
    assert len(model) <= len(d) - (texts_at < len(batches)) <= FILL_SHARE * len(model)
