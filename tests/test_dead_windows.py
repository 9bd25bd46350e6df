"""Scans of the rows deleted in a generation window (storage/deaths.py ``dead_in``): remembered between
scans, and exactly the rows whose death marks lie in the window after any sequence of deletions,
revivals and rollbacks; the dead rows' bits (storage/deathcounts.py), marked packed or one at a time."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, strategies as st

from deltalog.storage import deathcounts
from deltalog.storage.deathcounts import DeadBits
from deltalog.storage.deaths import ALIVE
from deltalog.storage.relation import Relation
from deltalog.storage.stored import View

steps = st.lists(st.tuples(st.sampled_from(["add", "revive", "del", "rollback", "compact"]),
                           st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=8)), max_size=10)


def deleted_rows(relation: Relation, window: tuple[int, int | None]) -> list[tuple[int, int]]:
    """The rows a scan of the deleted window reads, from the death marks one row at a time."""
    died, cols = relation.died(), relation.columns()
    top = ALIVE if window[1] is None else window[1]
    return [(int(cols[0][r]), int(cols[1][r])) for r in range(len(relation)) if window[0] <= died[r] < top]


def scanned(relation: Relation, view: View) -> list[tuple[int, int]]:
    return [row for columns, _ in relation.scan(view) for row in zip(columns[0].tolist(), columns[1].tolist())]


@given(steps, st.integers(1, 12), st.one_of(st.none(), st.integers(1, 14)))
def test_deleted_windows_follow_deaths_and_revivals(ops, first, last):
    """After every step, each window's scan (asked twice: the second answer is the remembered one) reads
    the rows whose death marks lie in it."""
    relation = Relation("r", 2)
    window = (first, last)
    for generation, (kind, rows) in enumerate(ops, start=1):
        cols = [np.array([r[i] for r in rows], np.int64) for i in range(2)]
        if kind == "rollback":
            relation.rollback(generation - 2)
        elif kind == "compact":
            relation.compact()
        elif kind == "del":
            relation.delete(cols, generation=generation)
        elif rows:
            relation.insert(cols, generation=generation, revive_since=generation - 3 if kind == "revive" else None)
        for _ in range(2):
            assert scanned(relation, View(deleted=window)) == deleted_rows(relation, window)


def test_a_deleted_window_is_masked_once_until_rows_die_or_revive():
    """Three scans of one window mask the dead rows' death marks once; a deletion masks them again."""
    relation = Relation("r", 2)
    relation.insert([np.arange(100), np.arange(100)], generation=1)
    relation.delete([np.arange(0, 100, 3), np.arange(0, 100, 3)], generation=2)
    view = View(deleted=(2, None))
    with mock.patch.object(Relation, "death_mask", autospec=True, side_effect=Relation.death_mask) as masked:
        for _ in range(3):
            assert [c[0].tolist() for c, _ in relation.scan(view)][0] == list(range(0, 100, 3))
        assert masked.call_count == 1
        relation.delete([np.array([1]), np.array([1])], generation=3)
        assert [c[0].tolist() for c, _ in relation.scan(view)][0] == [0, 1] + list(range(3, 100, 3))
        assert masked.call_count == 2


@given(st.integers(1, 200), st.lists(st.tuples(st.booleans(), st.lists(st.integers(0, 199), max_size=40)), max_size=8),
       st.sampled_from([1, 8, 10**6]))
def test_dead_bits_marked_packed_or_one_at_a_time_follow_a_model(rows, marks, span):
    """``DeadBits.mark``: rows spread over at most ``span`` rows each are packed (every batch counts as
    large), others set one at a time; either way each row's bit is its last mark."""
    bits, model = DeadBits(rows, np.array([], np.int64)), np.zeros(rows, bool)
    with mock.patch.multiple(deathcounts, PACK_MIN_ROWS=1, PACK_SPAN=span):
        for dead, batch in marks:
            batch = np.array([r for r in batch if r < rows], np.int64)
            bits.mark(batch, dead=dead)
            model[batch] = dead
            assert bits.dead(np.arange(rows)).tolist() == model.tolist()


def test_a_deleted_window_reads_only_the_deletions_that_meet_it():
    """Rows deleted before the window are not read (nor masked): only the parts of dead rows whose
    generations meet it, here the 10 rows deleted at generation 5 of the 40 deleted."""
    relation = Relation("r", 2)
    relation.insert([np.arange(100), np.arange(100)], generation=1)
    relation.delete([np.arange(30), np.arange(30)], generation=2)
    relation.dead_rows()   # merged, as a revival or a count merges them
    relation.delete([np.arange(50, 60), np.arange(50, 60)], generation=5)
    with mock.patch.object(Relation, "death_mask", autospec=True, side_effect=Relation.death_mask) as masked:
        assert [c[0].tolist() for c, _ in relation.scan(View(deleted=(5, None)))][0] == list(range(50, 60))
        assert [len(call.args[1]) for call in masked.call_args_list] == [10]
