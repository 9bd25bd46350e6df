"""The hash table with values (storage/hashmap.py) against a Python dict, and the row ids a relation's
tuple set carries once rows are deleted (storage/tupleset.py ``take_rows``) against a model."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from deltalog.storage import hashmap, hashset
from deltalog.storage.hashmap import Int64HashMap
from deltalog.storage.hashset import Int64HashSet
from deltalog.storage.relation import ALIVE, Relation

map_ops = st.lists(st.tuples(st.sampled_from(["add", "assign", "pop"]),
                             st.lists(st.tuples(st.integers(0, 400), st.integers(0, 10**9)), max_size=40)),
                   max_size=25)


def check_map_against_dict(steps, table: Int64HashMap | None = None, model: dict | None = None) -> None:
    """Apply the steps to a map and a dict (empty ones unless given); after each, every key of 0..400
    reads back as in the dict."""
    table = Int64HashMap(capacity_bits=2) if table is None else table
    model = {} if model is None else model
    for op, pairs in steps:
        pairs = dict(pairs)
        if op == "add":
            pairs = {k: v for k, v in sorted(pairs.items()) if k not in model}
            table.add_absent(np.array(list(pairs), np.int64), np.array(list(pairs.values()), np.int64))
            model.update(pairs)
        elif op == "assign":
            table.assign(np.array(list(pairs), np.int64), np.array(list(pairs.values()), np.int64))
            model.update(pairs)
        else:
            asked = [k for k in pairs] * 2   # repeats are removed once
            popped = table.pop(np.array(asked, np.int64))
            assert sorted(popped.tolist()) == sorted(model.pop(k) for k in pairs if k in model)
        probe = np.arange(401)
        assert table.values_of(probe).tolist() == [model.get(k, -1) for k in range(401)]
        assert len(table) == len(model)
        keys, values = table.items()
        assert dict(zip(keys.tolist(), values.tolist())) == model


@given(map_ops)
def test_hash_map_matches_a_dict(steps):
    """Rehashes as the table grows from 4 slots, tombstones of popped keys reused by later keys."""
    check_map_against_dict(steps)


@given(map_ops, st.sampled_from([(1, 16, 256), (1, 3, 0), (1, 1, 10**9)]))
def test_hash_map_from_a_sorted_first_batch_and_probed_in_windows_matches_a_dict(steps, knobs):
    """A first batch kept sorted (values aligned with it until the table is built), and probes a few
    slots at a time, wrapping at the table's end."""
    sorted_min, window, pending = knobs
    with mock.patch.object(hashset, "SORTED_RUN_MIN", sorted_min), \
            mock.patch.object(hashset, "WINDOW", window), mock.patch.object(hashset, "WINDOW_PENDING", pending):
        check_map_against_dict(steps)


@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(0, 400), max_size=40)), max_size=8), map_ops,
       st.sampled_from([1, 1 << 12]), st.randoms(), st.sampled_from([1, 3, 1 << 16]), st.booleans())
def test_hash_map_taking_over_a_set_matches_a_dict(set_steps, steps, sorted_min, rng, take_slice, by_slices):
    """A set (a sorted first batch or a table, with tombstones) taken over with a value per key, in any
    order, its keys given whole or made a slice at a time (``keys(lo, hi)``, slices of any size), then
    changed: it reads back as a dict with the same history."""
    with mock.patch.object(hashset, "SORTED_RUN_MIN", sorted_min), \
            mock.patch.object(hashmap, "TAKE_SLICE", take_slice):
        held, model = Int64HashSet(capacity_bits=2), set()
        for add, keys in set_steps:
            keys = np.array(sorted(set(keys)), np.int64)
            if add:
                held.add_unique(keys[~np.isin(keys, list(model))])
                model |= set(keys.tolist())
            else:
                held.discard(keys)
                model -= set(keys.tolist())
        keys = sorted(model)
        rng.shuffle(keys)
        given = np.array(keys, np.int64)
        made = []   # the slices asked: each key made once
        table = Int64HashMap.taking_over(held, (lambda lo, hi: made.append((lo, hi)) or given[lo:hi].copy())
                                         if by_slices else given, given * 3)
        if by_slices:
            assert sum(hi - lo for lo, hi in made) == len(keys)
        expected = {k: 3 * k for k in keys}
        assert table.values_of(np.arange(401)).tolist() == [expected.get(k, -1) for k in range(401)]
        check_map_against_dict(steps, table, expected)


def test_hash_map_places_the_keys_pushed_past_the_end_with_their_values():
    """Keys that all hash to the last slots wrap to the table's start, their values with them."""
    candidates = np.arange(1, 20_000, dtype=np.int64)
    crowded = candidates[hashset.mix(candidates, 5) >= 30][:12]
    table = Int64HashMap(capacity_bits=5)
    table.add_absent(crowded, crowded * 10)
    assert table.values_of(crowded).tolist() == (crowded * 10).tolist()
    assert sorted(table.pop(crowded[::3]).tolist()) == (crowded[::3] * 10).tolist()
    assert table.values_of(crowded).tolist() == [-1 if i % 3 == 0 else int(k) * 10 for i, k in enumerate(crowded)]


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "del", "revive"]),
                          st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=10),
                          st.sampled_from([10**3, 10**6, 10**7])), max_size=20))
def test_deletions_through_the_row_ids_of_the_tuple_set_match_the_model(steps):
    """A relation over ids too sparse for a byte or bit map keeps a hash set; its first deletion gives
    the set a row id per tuple, which later insertions, revivals and rebuilds (ids outgrowing the
    radix) keep: each deletion removes exactly the live rows of the tuples it names."""
    relation, model = Relation("r", 2), set()
    for generation, (kind, rows, scale) in enumerate(steps, start=1):
        tuples = {(a * scale, b * scale + a) for a, b in rows}
        cols = [np.array([t[i] for t in tuples], np.int64) for i in range(2)]
        if kind == "del":
            assert relation.delete(cols, generation=generation) == len(tuples & model)
            model -= tuples
        elif tuples:
            since = max(1, generation - 3) if kind == "revive" else None
            assert relation.insert(cols, generation=generation, revive_since=since) == len(tuples - model)
            model |= tuples
        live = np.flatnonzero(relation.died() == ALIVE)
        assert set(zip(*(c[live].tolist() for c in relation.columns()))) == model
        assert len(live) == len(model)


@given(st.lists(st.integers(0, 400), min_size=1, max_size=60, unique=True), st.data())
def test_hash_map_taking_over_refuses_a_key_the_set_does_not_hold(keys, data):
    """Taking over looks each key up without checks for empty slots in every round: a key not held
    (given in place of a held one) is reported, not looked for forever."""
    held = Int64HashSet(capacity_bits=2)
    held.add_unique(np.array(sorted(keys), np.int64))
    absent = data.draw(st.integers(401, 800))
    given = np.array(keys[1:] + [absent], np.int64)
    with pytest.raises(ValueError):
        Int64HashMap.taking_over(held, given, given)


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=300, unique=True), st.data())
def test_a_sorted_first_batch_taken_over_in_order_and_popped_builds_no_table(keys, data):
    """A relation stored in key order (a loaded one, or a store's at its open) is taken over with its keys
    in that order and popped without a table being built (storage/hashmap.py ``_pop_sorted``: a CLI
    deletion on a LUBM-like store, 0.18 -> 0.11 s CPU; docs/benchmarks.md, stop 22); it reads back as a
    dict, and a later insertion builds the table as before."""
    keys = np.array(sorted(keys), np.int64)
    with mock.patch.object(hashset, "SORTED_RUN_MIN", 1):
        held = Int64HashSet()
        held.add_unique(keys)
        with mock.patch.object(Int64HashSet, "_place", side_effect=AssertionError("a table was built")):
            table = Int64HashMap.taking_over(held, keys, keys * 7)
            gone = data.draw(st.lists(st.sampled_from(keys.tolist()) | st.integers(0, 10**6), max_size=keys.size))
            popped = table.pop(np.array(gone, np.int64))
        model = {int(k): int(k) * 7 for k in keys}
        assert sorted(popped.tolist()) == sorted(model.pop(k) for k in set(gone) if k in model)
        assert table.values_of(keys).tolist() == [model.get(int(k), -1) for k in keys]
        check_map_against_dict([("add", [(k + 10**6 + 1, 1) for k in range(3)])], table, model)
