"""Compaction by renumbering (storage/history.py ``compact``): after any sequence of insertions, deletions,
rollbacks and compactions a relation holds what a plain Python model holds: its rows in order, the rows
of every generation window, membership, and what its indexes (kept across compactions, renumbered) find."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from deltalog.storage.deaths import ALIVE
from deltalog.storage.relation import Relation
from deltalog.storage.stored import View

steps = st.lists(st.tuples(st.sampled_from(["add", "add", "del", "del", "compact", "rollback"]),
                           st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=10)),
                 min_size=1, max_size=14)


class Model:
    """The relation as a list of [row, inserted at, died at (None: alive)] in row order."""

    def __init__(self) -> None:
        self.records: list[list] = []

    def live(self) -> set[tuple[int, int]]:
        return {r[0] for r in self.records if r[2] is None}

    def insert(self, rows: list[tuple[int, int]], generation: int) -> None:
        live = self.live()
        for row in sorted(set(rows) - live):
            self.records.append([row, generation, None])

    def delete(self, rows: list[tuple[int, int]], generation: int) -> None:
        gone = set(rows)
        for record in self.records:
            if record[2] is None and record[0] in gone:
                record[2] = generation

    def rollback(self, generation: int) -> None:
        self.records = [r for r in self.records if r[1] < generation]
        for record in self.records:
            if record[2] is not None and record[2] >= generation:
                record[2] = None

    def compact(self) -> None:
        self.records = [r for r in self.records if r[2] is None]


def stored(relation: Relation, view: View = View()) -> list[tuple[int, int]]:
    return [row for columns, _ in relation.scan(view) for row in zip(columns[0].tolist(), columns[1].tolist())]


def check(relation: Relation, model: Model, scale: int, generation: int) -> None:
    records = model.records
    all_rows = [(int(a), int(b)) for a, b in zip(*relation.columns())]
    assert all_rows == [(a * scale, b * scale) for (a, b), _, _ in records]
    died = relation.died()
    assert [None if d == ALIVE else int(d) for d in died] == [r[2] for r in records]
    assert relation.deleted_rows == sum(r[2] is not None for r in records)
    for since in range(0, generation + 2, 3):
        for until in (None, since + 2):
            want = [(a * scale, b * scale) for (a, b), g, d in records
                    if since <= g and (until is None or g < until) and d is None]
            assert stored(relation, View(since, until)) == want
    for visible in range(0, generation + 1, 2):   # rows not deleted by the end of ``visible``
        want = [(a * scale, b * scale) for (a, b), _, d in records if d is None or d > visible]
        assert stored(relation, View(visible=visible)) == want
    probe = np.arange(8, dtype=np.int64) * scale
    assert relation.contains([probe, probe]).tolist() == [(k, k) in model.live() for k in range(8)]
    for positions in ((0,), (0, 1)):
        index = relation.index(positions)
        keys = [probe] * len(positions)
        found, rows = index.probe(keys, 0, len(relation)).expand(0, 8)
        want = sorted((k, i) for k in range(8) for i, (row, _, _) in enumerate(records)
                      if all(row[p] == k for p in positions))
        assert sorted(zip(found.tolist(), rows.tolist())) == want


@settings(max_examples=150, deadline=None)
@given(steps, st.sampled_from([1, 1_000_003]))
def test_compaction_keeps_rows_windows_and_indexes_of_a_model(ops, scale):
    """Small ids (a byte map: deletions find rows through the row map) and sparse ones (a hash set, turned
    into a map of row ids at the first deletion, renumbered by each compaction); indexes are probed every
    step, so compactions renumber indexes that already hold runs."""
    relation, model = Relation("r", 2), Model()
    for generation, (kind, rows) in enumerate(ops, start=1):
        cols = [np.array([r[i] * scale for r in rows], np.int64) for i in range(2)]
        if kind == "rollback":
            relation.rollback(generation - 2)
            model.rollback(generation - 2)
        elif kind == "compact":
            relation.compact()
            model.compact()
        elif kind == "del":
            relation.delete(cols, generation=generation)
            model.delete(rows, generation)
        elif rows:
            relation.insert(cols, generation=generation)
            model.insert(rows, generation)
        check(relation, model, scale, generation)


def test_compaction_keeps_the_indexes_and_renumbers_the_row_ids_a_map_holds():
    """The indexes survive a compaction (no re-sort at their next use) and a deletion after it finds its
    rows through the tuple map's renumbered row ids."""
    relation = Relation("r", 2)
    big = 1_000_003
    relation.insert([np.arange(100, dtype=np.int64) * big, np.arange(100, dtype=np.int64)], generation=1)
    relation.insert([np.arange(100, 200, dtype=np.int64) * big, np.arange(100, 200, dtype=np.int64)], generation=2)
    index = relation.index((1,))
    relation.delete([np.arange(0, 200, 2, dtype=np.int64) * big, np.arange(0, 200, 2, dtype=np.int64)], generation=3)
    relation.compact()
    assert relation._indexes[(1,)] is not index and relation._indexes[(1,)].runs
    assert relation.delete([np.array([3 * big, 199 * big]), np.array([3, 199])], generation=4) == 2
    assert relation.died().tolist() == [ALIVE, 4] + [ALIVE] * 97 + [4]
    assert stored(relation, View(2)) == [(k * big, k) for k in range(101, 199, 2)]
