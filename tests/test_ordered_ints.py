"""Ids that follow their ints (a filled range, ``Dictionary._encode_filled_range``): min and max compare the
ids themselves (backends/local/extremes.py), relations of ints decode by one addition (backends/local/
backend.py); both against a Python model, with texts or gaps in the dictionary turning the shortcuts off."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from deltalog.api import Reasoner
from deltalog.storage.dictionary import Dictionary


def test_a_filled_range_orders_its_ids_and_decodes_them_by_an_offset():
    d = Dictionary()
    d.encode_ints(np.array([103, 100, 101], np.int64))
    assert d.ints_ordered() and d.int_offset() == 100
    d.encode_ints(np.array([104], np.int64))   # just after the range: still one range, ids still follow
    assert d.ints_ordered() and d.int_offset() == 100
    d.encode_ints(np.array([99], np.int64))   # before it: a larger id for a smaller int
    assert not d.ints_ordered() and d.int_offset() is None


def test_texts_and_gaps_turn_the_shortcuts_off():
    texts = Dictionary()
    texts.encode_ints(np.arange(10, dtype=np.int64))
    texts.encode_texts("string", ["a"])
    assert not texts.ints_ordered() and texts.int_offset() is None
    gap = Dictionary()
    gap.encode_ints(np.arange(10, dtype=np.int64))
    gap.encode_ints(np.array([20], np.int64))   # ordered still, but 10..19 are not ints of the dictionary
    assert gap.ints_ordered() and gap.int_offset() is None


PROGRAM = """
target(Y) :- e(X, Y).
low(Y, M) :- target(Y), M = min X : { e(X, Y) }.
high(Y, M) :- target(Y), M = max X : { e(X, Y) }.
copy(X, Y) :- e(X, Y).
"""


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 12)), min_size=1, max_size=80),
       st.sampled_from([0, 1000, -(2**63), 2**63 - 100, -7]), st.booleans(), st.booleans())
def test_extremes_and_reads_over_ordered_ids_match_a_model(pairs, start, text, above):
    """Edges over ints from ``start`` (offset 0, positive, at either end of int64): min and max per target
    and the relation read back, whether the ids follow the ints or a text (``text``) or an int above the
    edges' loaded first (``above``: a smaller id for a larger int) leave them unordered."""
    edges = [(start + x, start + y) for x, y in pairs]
    r = Reasoner(PROGRAM)
    if text:
        r.load("tag", [("a",)])
    if above:
        r.load("first", [(start + 80,)])
    r.load("e", edges)
    r.materialise()
    for name, pick in (("low", min), ("high", max)):
        expected: dict[int, int] = {}
        for x, y in edges:
            expected[y] = pick(expected.get(y, x), x)
        assert sorted(r.relation(name).rows()) == sorted(expected.items())
    assert sorted(r.relation("copy").rows()) == sorted(set(edges))
    assert r.backend.dictionary.ints_ordered() == (not text and not above)
