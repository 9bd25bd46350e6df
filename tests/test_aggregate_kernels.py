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
