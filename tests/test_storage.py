"""Storage against a Python model: tuple sets (byte map, hash set, wide rows), deletes, generation windows."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from deltalog.backends.local.backend import LocalBackend
from deltalog.plan import ir
from deltalog.storage import relation as relation_module, row_scan, tupleset
from deltalog.storage.hashset import Int64HashSet
from deltalog.storage.relation import ALIVE, Relation
from deltalog.syntax.ast import Constant

ops = st.lists(st.tuples(st.sampled_from(["add", "del"]),
                         st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=12)), max_size=12)


@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(0, 300), max_size=30)), max_size=20))
def test_hash_set_with_tombstones_matches_a_python_set(batches):
    model, s = set(), Int64HashSet(capacity_bits=2)
    for add, keys in batches:
        change_alike(s, model, add, np.array(sorted(set(keys)), np.int64), np.arange(0, 301))


def change_alike(s: Int64HashSet, model: set, add: bool, keys: np.ndarray, probe: np.ndarray) -> None:
    """Add (or discard) distinct keys in the hash set and the model, then check the set answers
    ``probe`` as the model does."""
    if add:
        added = s.add_unique(keys)
        assert sorted(keys[added].tolist()) == sorted(set(keys.tolist()) - model)
        model |= set(keys.tolist())
    else:
        s.discard(keys)
        model -= set(keys.tolist())
    assert set(probe[s.contains(probe)].tolist()) == model and len(s) == len(model)


@pytest.mark.parametrize("window, pending", [(1, 0), (3, 0), (16, 0), (3, 10**9), (16, 8)])
def test_hash_set_probed_in_windows_matches_a_python_set(window, pending):
    """``_find`` slot by slot and then ``WINDOW`` slots at a time (wrapping at the table's end, past
    tombstones) answers as a Python set does, whichever of the two probes which keys."""
    from unittest import mock
    from deltalog.storage import hashset
    rng = np.random.default_rng(7)
    with mock.patch.object(hashset, "WINDOW", window), mock.patch.object(hashset, "WINDOW_PENDING", pending):
        model, s = set(), Int64HashSet(capacity_bits=2)
        for _ in range(60):
            keys = np.unique(rng.integers(0, 3000, rng.integers(1, 200)))
            probe = np.arange(0, 3001)
            change_alike(s, model, bool(rng.random() < 0.6), keys, probe)
            few = probe[rng.integers(0, 3001, 7)]
            assert s.contains(few).tolist() == [k in model for k in few.tolist()]


def test_hash_set_placed_in_one_pass_wraps_the_keys_pushed_past_the_end():
    """Keys that all hash to the last slots: the one-pass placement (rehash, first batch) puts the
    overflow at the table's start, where probing from their home finds them after wrapping."""
    from deltalog.storage.hashset import mix
    candidates = np.arange(1, 20_000, dtype=np.int64)
    crowded = candidates[mix(candidates, 5) >= 30][:12]
    s = Int64HashSet(capacity_bits=5)
    assert s.add_unique(crowded).all() and s.contains(crowded).all() and len(s) == 12
    others = candidates[mix(candidates, 5) < 3][:3]
    assert s.add_unique(np.concatenate([crowded[:2], others])).tolist() == [False, False, True, True, True]
    s.discard(crowded[::2])
    assert s.contains(crowded).tolist() == [False, True] * 6 and s.contains(others).all()
    assert sorted(s.keys().tolist()) == sorted(crowded[1::2].tolist() + others.tolist())


@given(st.lists(st.lists(st.integers(0, 2**62), max_size=40), max_size=12))
def test_hash_set_of_wide_keys_matches_a_python_set(batches):
    """Keys too wide to sort packed with their home slot (placement by positions instead)."""
    model, s = set(), Int64HashSet(capacity_bits=2)
    for keys in batches:
        keys = np.array(sorted(set(keys)), np.int64)
        added = s.add_unique(keys)
        assert sorted(keys[added].tolist()) == sorted(set(keys.tolist()) - model)
        model |= set(keys.tolist())
        assert sorted(s.keys().tolist()) == sorted(model) and s.contains(keys).all()


@given(st.lists(st.tuples(st.sampled_from(["add", "del", "probe"]), st.lists(st.integers(0, 300), max_size=30)),
                max_size=20))
def test_hash_set_kept_as_a_sorted_first_batch_matches_a_python_set(batches):
    """The deferred table (a sorted first batch, built on the next change or after many probes)."""
    from unittest import mock
    from deltalog.storage import hashset
    with mock.patch.object(hashset, "SORTED_RUN_MIN", 1):
        model, s = set(), Int64HashSet(capacity_bits=2)
        for op, keys in batches:
            keys = np.array(sorted(set(keys)), np.int64)
            if op == "add":
                added = s.add_unique(keys)
                assert sorted(keys[added].tolist()) == sorted(set(keys.tolist()) - model)
                model |= set(keys.tolist())
            elif op == "del":
                s.discard(keys)
                model -= set(keys.tolist())
            probe = keys if op == "probe" else np.arange(0, 301)
            assert set(probe[s.contains(probe)].tolist()) == model & set(probe.tolist())
            assert len(s) == len(model) and sorted(s.keys().tolist()) == sorted(model)


def run_ops(relation: Relation, batches, id_scale: int = 1):
    """Apply batches to the relation and a model; yield after each step."""
    model: set[tuple[int, int]] = set()
    history = []
    for generation, (kind, rows) in enumerate(batches, start=1):
        cols = [np.array([r[i] * id_scale for r in rows], np.int64) for i in range(2)]
        if kind == "add":
            added = relation.insert(cols, generation=generation) if rows else 0
            assert added == len({(a * id_scale, b * id_scale) for a, b in rows} - model)
            model |= {(a * id_scale, b * id_scale) for a, b in rows}
        else:
            removed = relation.delete(cols, generation=generation) if rows else 0
            assert removed == len({(a * id_scale, b * id_scale) for a, b in rows} & model)
            model -= {(a * id_scale, b * id_scale) for a, b in rows}
        history.append(set(model))
        yield generation, model, history


def live_rows(relation: Relation, visible=None) -> set[tuple[int, int]]:
    """Rows inserted by the end of generation ``visible`` and not deleted by then (now, if None)."""
    rows = np.arange(*relation.rows_for(0, None if visible is None else visible + 1))
    mask = relation.death_mask(rows, visible, None)
    cols = relation.columns()
    keep = rows if mask is None else rows[mask]
    return set(zip(cols[0][keep].tolist(), cols[1][keep].tolist()))


@given(ops, st.sampled_from([1, 10**6, 2**40]))
def test_relation_inserts_and_deletes_match_the_model(batches, scale):
    """scale picks the tuple set: byte map (small ids), hash set, or fingerprinted wide rows."""
    relation = Relation("r", 2)
    for generation, model, history in run_ops(relation, batches, scale):
        assert live_rows(relation) == model
        assert relation.contains([np.array([a for a, _ in model], np.int64),
                                  np.array([b for _, b in model], np.int64)]).all()
        assert relation.count(0, len(relation), None, None) == len(model)
        for g, then in enumerate(history, start=1):
            assert live_rows(relation, visible=g) == then
            assert relation.count(*relation.rows_for(0, g + 1), g, None) == len(then)


@given(ops, st.sampled_from([1, 10**6, 2**40]), st.integers(0, 3))
def test_deletions_located_by_scanning_match_the_model(batches, scale, scans):
    """Deletions locate their rows by scanning (row_scan.py: every relation counts as large) until the
    scans have read ``scans`` relations' worth of rows, the later ones through the full-row index built
    then; wide ids (2**40) do not pack and take the index's fingerprints from the start."""
    with mock.patch.multiple(row_scan, SCAN_MIN_ROWS=0, SCAN_MAX_SHARE=0, KEY_COST_IN_ROWS=0, BUILD_IN_SCANS=scans), \
            mock.patch.object(relation_module, "ROW_MAP_MAX_ROWS", -1):
        relation = Relation("r", 2)
        for generation, model, history in run_ops(relation, batches, scale):
            assert live_rows(relation) == model
            assert relation.count(0, len(relation), None, None) == len(model)
            for g, then in enumerate(history, start=1):
                assert live_rows(relation, visible=g) == then


@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(0, 5000), max_size=40)), max_size=20))
def test_bit_map_matches_a_python_set(batches):
    """Unsorted batches with repeats (the bit map sorts and groups them by byte)."""
    model, s = set(), tupleset.BitMap(5001)
    for add, keys in batches:
        array = np.array(keys, np.int64)
        if add:
            s.add_unique(array)
            model |= set(keys)
        else:
            s.discard(array)
            model -= set(keys)
        probe = np.arange(0, 5001)
        assert set(probe[s.contains(probe)].tolist()) == model


@given(ops, st.sampled_from([1, 37]))
def test_relation_on_bit_maps_matches_the_model(batches, scale):
    """The tuple set forced to a bit map (no byte map, any density): the relation still matches the model."""
    saved = tupleset.BYTEMAP_DENSITY, tupleset.BITMAP_DENSITY
    tupleset.BYTEMAP_DENSITY, tupleset.BITMAP_DENSITY = 0, 2**40
    try:
        relation = Relation("r", 2)
        for _, model, _ in run_ops(relation, batches, scale):
            assert relation.tuples._keys is None or isinstance(relation.tuples._keys, tupleset.BitMap)
            assert live_rows(relation) == model
            assert relation.count(0, len(relation), None, None) == len(model)
    finally:
        tupleset.BYTEMAP_DENSITY, tupleset.BITMAP_DENSITY = saved


def test_tuple_set_representation_follows_the_key_space():
    dense, big, wide = (Relation("r", 2) for _ in range(3))
    ids = np.arange(100_000) % 1000
    dense.insert([ids, np.arange(100_000) // 1000], generation=0)   # 100k tuples in a 1M key space
    big.insert([np.array([10**6]), np.array([2])], generation=0)
    wide.insert([np.array([2**40]), np.array([2**40])], generation=0)
    assert isinstance(dense.tuples._keys, tupleset.ByteMap)
    assert isinstance(big.tuples._keys, Int64HashSet)
    bits = Relation("r", 2)    # 40k tuples in a 4096^2 key space: too sparse for a byte map, dense enough for bits
    bits.insert([np.arange(40_000) % 3000, np.arange(40_000) // 3000], generation=0)
    assert isinstance(bits.tuples._keys, tupleset.BitMap)
    assert wide.tuples._wide is not None


def test_a_sparse_relation_hashes_until_it_is_dense_enough_for_a_byte_map():
    relation = Relation("r", 1)
    relation.insert([np.array([50_000])], generation=0)   # one row, 62k possible keys: a byte map would waste them
    assert isinstance(relation.tuples._keys, Int64HashSet)
    relation.insert([np.arange(2_000)], generation=1)   # 2k rows: 31 bytes a tuple
    assert isinstance(relation.tuples._keys, tupleset.ByteMap)
    assert relation.insert([np.array([50_000, 7, 2_000])], generation=2) == 1   # set contents kept across the switch


def test_a_growing_relation_takes_a_bit_map_sooner_than_a_first_batch(monkeypatch):
    """tupleset.GROWING_BITMAP_ROWS: 600 tuples in a 1024^2 key space are too sparse for a bit map as
    a loaded relation's first batch (128 bytes a tuple at most: 1,024 tuples), dense enough once the
    relation has taken a batch before and takes more (counted 4x)."""
    monkeypatch.setattr(tupleset, "BYTEMAP_DENSITY", 0)   # no byte map: the bit map's rule alone
    keys = np.arange(600)
    loaded, growing = Relation("loaded", 2), Relation("growing", 2)
    loaded.insert([keys % 1000, keys // 1000], generation=0)
    growing.insert([keys[:300] % 1000, keys[:300] // 1000], generation=0)
    assert isinstance(loaded.tuples._keys, Int64HashSet) and isinstance(growing.tuples._keys, Int64HashSet)
    assert growing.insert([keys % 1000, keys // 1000], generation=1) == 300   # contents kept across the switch
    assert isinstance(growing.tuples._keys, tupleset.BitMap)
    assert live_rows(growing) == live_rows(loaded)


def test_scans_read_deleted_rows_only_when_asked():
    backend = LocalBackend()
    backend.create_relation(relation="e", arity=1)
    backend.insert(relation="e", plan=ir.Values(("c0",), tuple((Constant(i, "int"),) for i in range(5))),
                   generation=1)
    backend.delete(relation="e", plan=ir.Values(("c0",), ((Constant(3, "int"),),)), generation=2)
    scan = ir.Scan("e", (ir.Col("X"),))
    now = backend.evaluate(plan=scan)["X"].to_list()
    before = backend.evaluate(plan=ir.Scan("e", (ir.Col("X"),), visible=1))["X"].to_list()
    gone = backend.evaluate(plan=ir.Scan("e", (ir.Col("X"),), deleted=(2, 3)))["X"].to_list()
    assert sorted(now) == [0, 1, 2, 4] and sorted(before) == [0, 1, 2, 3, 4] and gone == [3]
    assert backend.count(relation="e") == 4 and backend.count(relation="e", visible=1) == 5
    joined = ir.Join(scan, ir.Scan("e", (ir.Col("X"),), visible=1), ("X",))
    assert sorted(backend.evaluate(plan=joined)["X"].to_list()) == [0, 1, 2, 4]
    backend.insert(relation="e", plan=ir.Values(("c0",), ((Constant(3, "int"),),)), generation=3)
    assert sorted(backend.evaluate(plan=scan)["X"].to_list()) == [0, 1, 2, 3, 4]


@given(st.lists(st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 10**6)), max_size=1500), max_size=6),
       st.sampled_from([8, 1 << 12]))
def test_row_map_matches_a_dict(batches, sorted_min):
    """Batches of keys assigned rows read back as a dict that took the same assignments (a key repeated
    in a batch: its last row, as ``Relation._map_rows`` needs for rows appended since the last mapping):
    the first batch the sorted part (from ``sorted_min`` keys) or the recent part, later ones merged into
    the recent part, and it into the sorted part as it grows."""
    from deltalog.storage import rowmap
    with mock.patch.object(rowmap, "SORTED_MIN", sorted_min):
        check_row_map(batches)


def check_row_map(batches):
    from deltalog.storage.rowmap import RowMap
    row_map, model = RowMap(), {}
    for batch in batches:
        row_map.assign(np.array([k for k, _ in batch], np.int64), np.array([r for _, r in batch], np.int64))
        model.update(dict(batch))
        probe = np.arange(3002)
        assert row_map.rows_of(probe).tolist() == [model.get(k, -1) for k in range(3002)]


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "del", "revive", "rollback"]),
                          st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=8),
                          st.integers(0, 4)), max_size=30),
       st.sampled_from([1, 10**6]), st.booleans())
def test_deletions_after_revivals_and_rollbacks_match_the_model(steps, scale, row_map):
    """Rows revived (insert with ``revive_since``, rollbacks that only undo deletions) and appended again
    hold their tuples anew: each deletion finds the live row of every tuple it names, through the RowMap
    (storage/rowmap.py) or, past ``ROW_MAP_MAX_ROWS``, through the full-row index. A jump of the ids past
    the map's radix rebuilds the map from every row (live ones preferred)."""
    with mock.patch.object(relation_module, "ROW_MAP_MAX_ROWS", 1 << 20 if row_map else -1):
        relation, model, generation, states, revivals = Relation("r", 2), set(), 0, {}, []
        for kind, rows, back in steps:
            generation += 1
            states[generation] = set(model)
            tuples = {(a * scale, b * scale) for a, b in rows}
            cols = [np.array([t[i] for t in tuples], np.int64) for i in range(2)]
            if kind == "rollback":   # to the start of an update: no revival since went back past it
                cut = max(1, generation - back)
                while (earlier := [since for g, since in revivals if g >= cut and since < cut]):
                    cut = min(earlier)
                relation.rollback(cut)
                model = states[cut]
                states.update({g: set(model) for g in range(cut, generation + 1)})
            elif kind == "del":
                assert relation.delete(cols, generation=generation) == len(tuples & model)
                model -= tuples
            elif tuples:
                since = max(1, generation - back) if kind == "revive" else None
                revivals.extend([(generation, since)] if since is not None else [])
                assert relation.insert(cols, generation=generation, revive_since=since) == len(tuples - model)
                model |= tuples
            assert live_rows(relation) == model
        everything = [np.array([t[i] for t in model], np.int64) for i in range(2)]
        assert relation.delete(everything, generation=generation + 1) == len(model)
        assert live_rows(relation) == set()


@given(ops, st.sampled_from([1, 10**6]), st.integers(0, 12))
def test_rollback_and_compaction_restore_the_model(batches, scale, cut):
    relation = Relation("r", 2)
    states = {0: set()}
    for generation, model, _ in run_ops(relation, batches, scale):
        states[generation] = set(model)
    if not batches:
        return
    cut = min(cut, len(batches)) + 1
    relation.rollback(cut)
    assert live_rows(relation) == states[cut - 1]
    relation.compact()
    assert live_rows(relation) == states[cut - 1] and relation.deleted_rows == 0
    again = [np.array([a for a, _ in states[cut - 1]], np.int64), np.array([b for _, b in states[cut - 1]], np.int64)]
    assert relation.insert(again, generation=100) == 0   # the tuple set knows every live row


def test_revive_brings_back_a_row_deleted_in_the_same_update():
    relation = Relation("r", 1)
    relation.insert([np.array([1, 2, 3])], generation=1)
    relation.delete([np.array([2, 3])], generation=5)
    assert relation.insert([np.array([2])], generation=6, revive_since=5) == 1
    assert relation.rows_for(6, None) == (3, 3), "revived, not appended"
    assert relation.insert([np.array([3])], generation=7, revive_since=6) == 1
    assert relation.rows_for(7, None) == (3, 4), "deleted before revive_since: appended as a new row"
    assert live_rows_1(relation) == {1, 2, 3}


def live_rows_1(relation: Relation) -> set[int]:
    mask = relation.death_mask(np.arange(len(relation)), None, None)
    values = relation.columns()[0]
    return set((values if mask is None else values[mask]).tolist())


def test_counts_follow_deletions_and_revivals_of_the_same_range():
    relation = Relation("r", 1)
    relation.insert([np.arange(10)], generation=1)
    relation.delete([np.array([3, 4])], generation=2)
    whole = relation.rows_for(0, None)
    assert relation.count(*whole, None, None) == 8 and relation.count(*whole, None, (2, None)) == 2
    relation.insert([np.array([3])], generation=3, revive_since=2)   # comes back to life in place
    assert relation.rows_for(0, None) == whole
    assert relation.count(*whole, None, None) == 9 and relation.count(*whole, None, (2, None)) == 1
    relation.delete([np.array([5])], generation=4)
    assert relation.count(*whole, None, None) == 8 and relation.count(*whole, 3, None) == 9


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.booleans()), max_size=60),
       st.lists(st.integers(0, 7), max_size=20), st.integers(0, 60), st.integers(0, 60), st.integers(1, 4))
def test_probe_any_alive_matches_full_expansion(rows, keys, lo, hi, batches):
    """The early-exit existence check (first matches one at a time, then the rest expanded) agrees with
    expanding every match and filtering by the death mask and the row window."""
    from deltalog.storage.index import SortedIndex
    key_column = np.array([r[0] for r in rows], np.int64)
    other = np.array([r[1] for r in rows], np.int64)
    dead = np.array([r[2] for r in rows], bool)
    index = SortedIndex((0,))
    step = max(1, len(rows) // batches)
    for end in list(range(step, len(rows), step)) + [len(rows)]:   # several runs
        index.refresh([key_column[:end], other[:end]])
    lo, hi = min(lo, hi), max(lo, hi)
    probe_keys = np.array(keys, np.int64)
    probe = index.probe([probe_keys], lo, hi)
    alive = lambda at: ~dead[at]   # noqa: E731
    expected = np.zeros(probe_keys.size, bool)
    owners, at = probe.expand(0, probe_keys.size)
    expected[owners[alive(at)]] = True
    assert probe.any_alive(alive, rounds=2).tolist() == expected.tolist()


@given(st.lists(st.integers(0, 6), max_size=60), st.lists(st.integers(0, 7), max_size=20), st.integers(0, 60),
       st.integers(0, 60), st.integers(1, 4), st.integers(0, 5))
@example(rows=[0, 0, 0, 0, 1, 0, 1], keys=[1], lo=0, hi=5, batches=2, rank=0)   # a run outside the window
def test_single_rank_is_the_ranked_match(rows, keys, lo, hi, batches, rank):
    """``expand_ranks`` for one rank (its fast path, one pass over the runs) gives each probe row the
    match the general path (range expansion) ranks there, newest run first and a run's last rows
    first, inside the row window; with the window over every row, the brute-force ranking's."""
    from deltalog.storage.index import SortedIndex
    key_column = np.array(rows, np.int64)
    index = SortedIndex((0,))
    step = max(1, len(rows) // batches)
    for end in list(range(step, len(rows), step)) + [len(rows)]:
        index.refresh([key_column[:end]])
    lo, hi = min(lo, hi), max(lo, hi)
    probe_keys = np.arange(len(keys))
    probe = index.probe([np.array(keys, np.int64)], lo, hi)
    owners, found = probe.expand_ranks(probe_keys, rank, rank + 1)
    general = probe._ranked(probe_keys, rank, rank + 1)
    assert set(zip(owners.tolist(), found.tolist())) == set(zip(*(a.tolist() for a in general)))
    assert len(owners) == len(set(owners.tolist()))
    whole = index.probe([np.array(keys, np.int64)], 0, len(rows))
    owners, found = whole.expand_ranks(probe_keys, rank, rank + 1)
    expected = set()
    for i, key in enumerate(keys):
        ranked = [int(r) for run in index.runs[::-1] for r in run.rows[run.keys == key][::-1]]
        if rank < len(ranked):
            expected.add((i, ranked[rank]))
    assert set(zip(owners.tolist(), found.tolist())) == expected


@given(st.lists(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=25), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(-2, 32), st.integers(-2, 32)), max_size=40),
       st.sampled_from([1, 10**5]), st.integers(0, 5), st.booleans())
def test_index_probes_with_sorted_keys_match_brute_force(batches, probes, scale, lo_batch, filtered):
    """Sparse runs (binary search) probed with the keys sorted first, with or without the hash filter,
    and dense (CSR) runs: the same (probe row, relation row) pairs as a nested loop, inside any row window."""
    from deltalog.storage import sorted_run
    from deltalog.storage.index import SortedIndex

    saved = sorted_run.SORTED_PROBE_MIN, sorted_run.FILTER_MIN_PROBE
    sorted_run.SORTED_PROBE_MIN = 1
    sorted_run.FILTER_MIN_PROBE = 1 if filtered else 2**40
    try:
        idx = SortedIndex((0, 1))
        stored: list[list[int]] = [[], []]
        ends = []
        for batch in batches:
            for a, b in batch:
                stored[0].append(a * scale)
                stored[1].append(b * scale)
            ends.append(len(stored[0]))
            idx.refresh([np.array(c, np.int64) for c in stored])
        row_lo = ends[lo_batch - 1] if 0 < lo_batch <= len(ends) else 0
        row_hi = len(stored[0])
        keys = [np.array([p[i] * scale for p in probes], np.int64) for i in range(2)]
        probe = idx.probe(keys, row_lo, row_hi)
        got = sorted(zip(*(a.tolist() for a in probe.expand(0, len(probes)))))
        want = sorted((i, r) for i, p in enumerate(probes) for r in range(row_lo, row_hi)
                      if (stored[0][r], stored[1][r]) == (p[0] * scale, p[1] * scale))
        assert got == want
        assert probe.any_match().tolist() == [any(i == j for j, _ in want) for i in range(len(probes))]
    finally:
        sorted_run.SORTED_PROBE_MIN, sorted_run.FILTER_MIN_PROBE = saved


@given(st.lists(st.integers(-50, 50), max_size=60), st.lists(st.integers(-60, 60), max_size=80),
       st.sampled_from(["left", "right"]))
def test_searchsorted_with_sorted_probes_matches_numpy(haystack, needles, side):
    from deltalog.storage import sorted_run

    saved = sorted_run.SORTED_PROBE_MIN
    sorted_run.SORTED_PROBE_MIN = 0
    try:
        hay, probe = np.sort(np.array(haystack, np.int64)), np.array(needles, np.int64)
        assert sorted_run.searchsorted_probes(hay, probe, side).tolist() == np.searchsorted(hay, probe, side).tolist()
    finally:
        sorted_run.SORTED_PROBE_MIN = saved


def test_dictionary_encodes_large_int_batches_consistently():
    from deltalog.storage.dictionary import Dictionary

    rng = np.random.default_rng(3)
    values = rng.integers(-10**12, 10**12, 50_000)
    dictionary = Dictionary()
    ids = dictionary.encode_ints(values)
    again = dictionary.encode_ints(values[::-1])
    assert again.tolist() == ids[::-1].tolist()
    assert len(set(ids.tolist())) == len(set(values.tolist()))
    assert dictionary.lookup_ints(np.concatenate([values[:5], [10**13]])).tolist() == ids[:5].tolist() + [-1]


@settings(max_examples=80, deadline=None)
@example(known=[], dense=[], wide=[2**63 - 1])                 # a range ending at the largest int64
@example(known=[2**63 - 1, -2**63], dense=[0], wide=[-2**63, 2**63 - 2, 2**63 - 1])
@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=40), st.lists(st.integers(-50, 50), max_size=200),
       st.lists(st.integers(-2**63, 2**63 - 1), max_size=5))
def test_int_encoding_dense_and_sparse_agree(known, dense, wide):
    """Ids are stable and decode to the values whether a batch is encoded by direct addressing
    (a narrow range) or by sorting (a wide one)."""
    from deltalog.storage.dictionary import Dictionary
    d = Dictionary()
    first = d.encode_ints(np.array(known, np.int64))
    for batch in (dense, dense + wide, wide):
        ids = d.encode_ints(np.array(batch, np.int64))
        assert [v for _, v in d.decode(ids)] == batch
        assert d.encode_ints(np.array(known, np.int64)).tolist() == first.tolist()
        assert d.lookup_ints(np.array(batch, np.int64)).tolist() == ids.tolist()
    assert len(set(d.encode_ints(np.array(dense + known, np.int64)).tolist())) == len(set(dense + known))


@given(st.integers(-2**62, 2**62), st.integers(1, 300), st.lists(st.integers(-20, 320), max_size=60))
def test_ints_known_as_a_range_encode_by_their_offset(start, count, offsets):
    """Known ints forming a range (ids from a counter) give a batch inside it its ids by subtraction
    (``Dictionary.encode_ints``): the same ids as when first encoded, decoding to the values, for batches
    wider than the range too (new values added) and with texts interleaved in the id space."""
    from deltalog.storage.dictionary import Dictionary
    d = Dictionary()
    d.encode_texts("string", ["a"])
    known = np.arange(start, start + count, dtype=np.int64)
    first = dict(zip(known.tolist(), d.encode_ints(known[::-1])[::-1].tolist()))
    d.encode_texts("string", ["b"])
    batch = np.array([start + o for o in offsets], np.int64)
    ids = d.encode_ints(batch)
    assert [v for _, v in d.decode(ids)] == batch.tolist()
    assert all(first[v] == i for v, i in zip(batch.tolist(), ids.tolist()) if v in first)
    assert d.encode_ints(known).tolist() == [first[v] for v in known.tolist()]


@given(st.lists(st.lists(st.one_of(st.integers(-5, 50), st.integers(-2**63, 2**63 - 1)), max_size=20), min_size=1,
                max_size=3), st.lists(st.integers(-5, 50), max_size=10))
def test_int_columns_encoded_together_match_one_by_one(columns, known):
    """encode_int_columns (a loaded relation's columns as one batch) gives each value its one id."""
    from deltalog.storage.dictionary import FILL_SHARE, Dictionary
    together = Dictionary()
    together.encode_ints(np.array(known, np.int64))
    ids = together.encode_int_columns([np.array(c, np.int64) for c in columns])
    assert [[v for _, v in together.decode(i)] for i in ids] == columns
    assert [together.lookup_ints(np.array(c, np.int64)).tolist() for c in columns] == [i.tolist() for i in ids]
    distinct = len(set(known) | {v for c in columns for v in c})   # a dense new range is filled whole (at most
    assert distinct <= len(together) <= FILL_SHARE * distinct      # FILL_SHARE ids a value: test_dictionary_ranges)


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 4).flatmap(lambda width: st.lists(
    st.tuples(*[st.one_of(st.integers(0, 5), st.integers(-2**63, 2**63 - 1)) for _ in range(width)]),
    min_size=0, max_size=40)), st.integers(1, 4))
def test_distinct_rows_sorted_lexicographically(rows, width):
    """distinct_frame packs columns into as few int64 keys as their ranges allow (one sort, or a
    lexsort over keys, or a column alone when its range passes 63 bits): always the set of rows,
    in lexicographic order."""
    from deltalog.backends.local.aggregate import distinct_frame
    from deltalog.backends.local.frame import Frame
    width = len(rows[0]) if rows else width
    columns = {f"c{i}": np.array([r[i] for r in rows], np.int64) for i in range(width)}
    out = distinct_frame(Frame(columns, len(rows)))
    got = list(zip(*[out.columns[f"c{i}"].tolist() for i in range(width)])) if out.length else []
    assert got == sorted(set(rows))


def test_row_that_revives_and_dies_again_is_counted_once():
    """A row deleted, revived by a re-insertion and deleted again is one dead row: counts over
    ranges and generations, and a rollback of the second deletion, see it once (it used to be
    listed twice among the dead rows: counts one too low and -1 deleted rows after the rollback)."""
    r = Relation("e", 1)
    r.insert([np.array([1, 2, 3])], generation=0)
    r.delete([np.array([1])], generation=1)
    assert r.insert([np.array([1])], generation=2, revive_since=1) == 1
    r.delete([np.array([1])], generation=3)
    assert r.count(0, 3, None, (3, None)) == 1
    assert r.count(0, 2, None, None) == 1
    assert r.count(0, 3, 2, None) == 3 and r.count(0, 3, 3, None) == 2
    r.rollback(3)
    assert r.deleted_rows == 0 and r.count(0, 3, None, None) == 3
    assert r.death_mask(np.arange(3), None, None) is None or r.death_mask(np.arange(3), None, None).all()


@given(st.lists(st.tuples(st.sampled_from(["add", "revive", "del", "undo"]), st.lists(st.integers(0, 12), max_size=8)),
                max_size=25), st.integers(0, 40), st.integers(0, 40), st.integers(0, 30))
def test_dead_row_counts_and_bits_match_the_death_marks(ops, lo, hi, cut):
    """Counts (kept per death generation, storage/deathcounts.py) and the live test (one dead bit per
    row) agree with the per-row death marks after any mix of insertions, revivals, deletions and
    rollbacks, over every kind of death condition."""
    relation = Relation("r", 1)
    relation.death_mask(np.arange(0), None, None)
    for generation, (op, values) in enumerate(ops, start=1):
        batch = [np.array(values, np.int64)]
        if op == "undo":
            relation.rollback(max(1, generation - 1 - cut % 3))
        elif op == "del":
            relation.delete(batch, generation=generation)
        else:
            relation.insert(batch, generation=generation, revive_since=generation - 3 if op == "revive" else None)
        relation.death_mask(np.arange(len(relation)), None, None)   # builds the dead bits once rows died
        died, n = relation.died(), len(relation)
        a, b = min(lo, n), min(max(lo, hi), n)
        marks = died[a:b]
        assert relation.count(a, b, None, None) == int((marks == ALIVE).sum())
        assert relation.count(a, b, cut, None) == int((marks > cut).sum())
        assert relation.count(a, b, None, (cut, None)) == int(((marks >= cut) & (marks != ALIVE)).sum())
        assert relation.count(a, b, None, (cut, cut + 2)) == int(((marks >= cut) & (marks < cut + 2)).sum())
        assert relation.deleted_rows == int((died != ALIVE).sum())
        mask = relation.death_mask(np.arange(n), None, None)
        assert (np.ones(n, bool) if mask is None else mask).tolist() == (died == ALIVE).tolist()
