"""Semi- and anti-joins answered by a bitmap of a small relation (backends/local/membership.py) give the
rows the indexed check gives: every view (live, before a deletion, the deleted rows), probe values the
relation never held, and not for the relation the running statement writes."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from deltalog.backends.local.backend import LocalBackend
from deltalog.backends.local import exists, membership  # (after the backend: exists imports execute)
from deltalog.plan import ir

VIEWS = {"live": {}, "before": {"visible": 1}, "gone": {"deleted": (2, None)}}


def backend_with(small: set[tuple[int, int]], gone: set[tuple[int, int]], probe: np.ndarray) -> LocalBackend:
    backend = LocalBackend()
    for name, rows in (("s", sorted(small)), ("g", sorted(gone)), ("p", probe.tolist())):
        backend.create_relation(relation=name, arity=2)
        table = pl.DataFrame({"c0": [a for a, _ in rows], "c1": [b for _, b in rows]},
                             schema=[("c0", pl.Int64), ("c1", pl.Int64)])
        backend.load(relation=name, table=table, generation=1)
    backend.delete(relation="s", plan=ir.Scan("g", (ir.Col("c0"), ir.Col("c1"))), generation=2)
    return backend


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("node", [ir.SemiJoin, ir.AntiJoin])
def test_bitmap_checks_equal_indexed_checks(node, view, monkeypatch):
    rng = np.random.default_rng(7)
    small = {(int(a), int(b)) for a, b in rng.integers(0, 60, (300, 2))}
    gone = set(sorted(small)[::5])
    probe = rng.integers(0, 90, (20_000, 2))   # 7,000 distinct pairs, many beyond the relation's largest value
    backend = backend_with(small, gone, probe)
    plan = node(ir.Scan("p", (ir.Col("X"), ir.Col("Y"))), ir.Scan("s", (ir.Col("Y"), ir.Col("X")), **VIEWS[view]),
                ("X", "Y"))
    built = []
    original = membership.Bitmap.__init__

    def counted(self, columns, limit):
        original(self, columns, limit)
        built.append(self.flags is not None)
    monkeypatch.setattr(membership.Bitmap, "__init__", counted)
    dense = backend.evaluate(plan=plan).rows()
    assert built == [True]
    monkeypatch.setattr(membership, "MIN_PROBE", 10**9)   # the indexed path
    indexed = backend.evaluate(plan=plan).rows()
    assert sorted(dense) == sorted(indexed)
    held = {"live": small - gone, "before": small, "gone": gone}[view]
    expected = [(x, y) for x, y in set(map(tuple, probe.tolist())) if ((y, x) in held) == (node is ir.SemiJoin)]
    assert sorted(dense) == sorted(expected)


def test_no_bitmap_of_the_relation_being_written(monkeypatch):
    """Deleting from s the probe rows s holds reads s through its index while the rows go."""
    rng = np.random.default_rng(3)
    small = {(int(a), int(b)) for a, b in rng.integers(0, 60, (300, 2))}
    probe = np.concatenate([np.array(sorted(small)), rng.integers(0, 60, (20_000, 2))])
    backend = backend_with(small, set(), probe)
    built = []
    monkeypatch.setattr(membership.Bitmap, "__init__", lambda self, columns, limit: built.append(1))
    plan = ir.SemiJoin(ir.Scan("p", (ir.Col("c0"), ir.Col("c1"))), ir.Scan("s", (ir.Col("c0"), ir.Col("c1"))),
                       ("c0", "c1"))
    assert backend.delete(relation="s", plan=plan, generation=3) == len(small)
    assert built == []


rows_of = st.sets(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(left=rows_of, right=rows_of, wide=st.booleans(), chunk_rows=st.sampled_from([1, 4, 1 << 18]))
def test_a_materialised_right_side_is_checked_by_sorted_keys(left, right, wide, chunk_rows):
    """A semi/anti-join whose right side is a subplan (here a union, so materialised) checks membership
    among its rows' sorted packed keys (``exists.SortedKeys``), not an index built over them; the answer
    is the one of a brute-force check, with probe values beyond the right side's largest value. ``wide``:
    keys too wide to pack (a lowered limit), so the index answers instead."""
    backend = LocalBackend(chunk_rows=chunk_rows)
    for name, rows in (("l", left), ("r", right)):
        backend.create_relation(relation=name, arity=3)
        table = pl.DataFrame([(a, b, a * b) for a, b in sorted(rows)] or None,
                             schema=[("c0", pl.Int64), ("c1", pl.Int64), ("c2", pl.Int64)], orient="row")
        backend.load(relation=name, table=table, generation=1)
    terms = (ir.Col("X"), ir.Col("Y"), ir.Col("Z"))
    right_side = ir.Union_((ir.Scan("r", terms), ir.Scan("r", terms, since=5)))
    built: list[int] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exists.SortedKeys, "holds", spy(exists.SortedKeys.holds, built))
        if wide:
            patch.setattr(exists, "PACKED_LIMIT", 1)
        for node in (ir.SemiJoin, ir.AntiJoin):
            found = set(backend.evaluate(plan=node(ir.Scan("l", terms), right_side, ("X", "Y", "Z"))).rows())
            expected = {(a, b, a * b) for a, b in left if ((a, b) in right) == (node is ir.SemiJoin)}
            assert found == expected
    assert bool(built) == (bool(left) and not wide)


def spy(method, calls: list):
    def counted(self, columns):
        calls.append(len(columns[0]))
        return method(self, columns)
    return counted


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5)), min_size=1, max_size=40),
       st.lists(st.tuples(st.integers(-3, 40), st.integers(-2, 8)), min_size=1, max_size=60), st.booleans())
def test_bitmap_holds_matches_a_set(tuples, probes, one_column):
    """``Bitmap.holds`` of one or two columns, probes inside the view's ids (one gather) or outside (masked
    off first), against a Python set."""
    width = 1 if one_column else 2
    held = {t[:width] for t in tuples}
    bitmap = membership.Bitmap([np.array([t[j] for t in held], np.int64) for j in range(width)], 1 << 20)
    got = bitmap.holds([np.array([p[j] for p in probes], np.int64) for j in range(width)])
    assert got.tolist() == [p[:width] in held for p in probes]
