"""The local backend's group-by kernel (backends/local/aggregate.py) against a Python model."""

from __future__ import annotations

import statistics

import numpy as np
from hypothesis import given, strategies as st

from deltalog.backends.local.aggregate import aggregate_frame
from deltalog.backends.local.frame import Frame
from deltalog.storage.dictionary import Dictionary

rows = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(-2**40, 2**40) | st.integers(-3, 3)),
                max_size=40)


def model(data, function):
    groups: dict[tuple[int, int], set[int]] = {}
    for g, h, v in set(data):
        groups.setdefault((g, h), set()).add(v)
    pick = {"count": len, "min": min, "max": max, "sum": sum, "median": statistics.median}[function]
    return {key: pick(sorted(values)) for key, values in groups.items()}


@given(rows, st.sampled_from(["count", "min", "max", "sum", "median"]), st.booleans())
def test_grouped_aggregates_of_ints_match_a_python_model(data, function, duplicated):
    """Duplicates in the input count once; ints take the one-reduceat (min, max) and packed-sort paths."""
    d = Dictionary()
    data = data + data[:3] if duplicated else data
    g, h, v = (np.array([r[i] for r in data], np.int64) for i in range(3))
    # the value column first: the kernel must regroup the rows by the group columns itself
    frame = Frame({"V": d.encode_ints(v), "G": d.encode_ints(g), "H": d.encode_ints(h)}, len(data))
    out = aggregate_frame(frame, ("G", "H"), function, "V", "A", d)
    decoded = [[value for _, value in d.decode(out.columns[c])] for c in ("G", "H", "A")]
    assert dict(zip(zip(decoded[0], decoded[1]), decoded[2])) == model(data, function)
    assert out.length == len(model(data, function))


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-3, 3) | st.integers(-2**62, 2**62), st.integers(0, 2)),
                min_size=1, max_size=40), st.sampled_from(["min", "max"]))
def test_int_extremes_are_the_ids_of_rows_holding_them(data, function):
    """min and max of ints take a row's id as it is (no encoding): rows of a group that differ in
    another column (W) tie on the value, and the answer is still the value, with its one id."""
    d = Dictionary()
    g, v, w = (np.array([r[i] for r in data], np.int64) for i in range(3))
    frame = Frame({"W": d.encode_ints(w), "V": d.encode_ints(v), "G": d.encode_ints(g)}, len(data))
    size = len(d.kinds)
    out = aggregate_frame(frame, ("G",), function, "V", "A", d)
    pick = min if function == "min" else max
    expected = {key: pick(value for k, value, _ in data if k == key) for key, _, _ in data}
    groups, answers = ([value for _, value in d.decode(out.columns[c])] for c in ("G", "A"))
    got = dict(zip(groups, answers))
    assert got == expected and len(d.kinds) == size   # nothing added to the dictionary


@given(rows, st.sampled_from(["count", "min", "max", "sum", "median"]), st.booleans(), st.booleans())
def test_one_group_column_by_every_path(data, function, duplicated, sparse):
    """One group column: min and max of ints by direct addressing over the groups' span (or, ``sparse``,
    by the sorting path), count by one packed sort reading only the group field; answers as the model's,
    groups in id order either way."""
    from unittest import mock

    from deltalog.backends.local import extremes
    d = Dictionary()
    data = data + data[:3] if duplicated else data
    g, h, v = (np.array([r[i] for r in data], np.int64) for i in range(3))
    frame = Frame({"V": d.encode_ints(v), "H": d.encode_ints(h), "G": d.encode_ints(g)}, len(data))
    with mock.patch.multiple(extremes, DENSE_GROUP_SPAN=0 if sparse else 4, DENSE_GROUP_MIN=0 if sparse else 1 << 16):
        out = aggregate_frame(frame, ("G",), function, "V", "A", d)
    assert out.columns["G"].tolist() == sorted(out.columns["G"].tolist())
    decoded = [[value for _, value in d.decode(out.columns[c])] for c in ("G", "A")]
    # the model groups by (G, H): H is another variable of the aggregate's body here
    bindings: dict[int, set[tuple[int, int]]] = {}
    for key, other, value in set(data):
        bindings.setdefault(key, set()).add((other, value))
    values = {key: sorted(value for _, value in b) for key, b in bindings.items()}
    pick = {"count": lambda k: len(bindings[k]), "min": lambda k: min(values[k]), "max": lambda k: max(values[k]),
            "sum": lambda k: sum(values[k]), "median": lambda k: statistics.median(values[k])}[function]
    assert dict(zip(decoded[0], decoded[1])) == {key: pick(key) for key in bindings}


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-3, 3) | st.integers(-2**62, 2**62)), min_size=1, max_size=40),
       st.sampled_from(["min", "max"]))
def test_dense_extremes_packed_with_their_ids_or_not(data, function):
    """One group column over a dense span: values and ids packed into one key when they fit 62 bits (one
    ``ufunc.at`` gives the extreme and its id), else the rows holding the extreme are looked up; both give
    the model's answers, groups in id order."""
    from deltalog.backends.local.extremes import value_and_id
    d = Dictionary()
    g, v = (np.array([r[i] for r in data], np.int64) for i in range(2))
    ids = d.encode_ints(v)
    frame = Frame({"V": ids, "G": d.encode_ints(g)}, len(data))
    spread = int(v.max()) - int(v.min())
    if spread < 2**40 or spread >= 2**61:   # (ids here are below 2**7: a spread of 2**40 packs, 2**61 does not)
        assert (value_and_id(v.copy(), ids) is not None) == (spread < 2**40)
    out = aggregate_frame(frame, ("G",), function, "V", "A", d)
    assert out.columns["G"].tolist() == sorted(out.columns["G"].tolist())
    pick = min if function == "min" else max
    expected = {key: pick(value for k, value in data if k == key) for key, _ in data}
    decoded = [[value for _, value in d.decode(out.columns[c])] for c in ("G", "A")]
    assert dict(zip(decoded[0], decoded[1])) == expected
