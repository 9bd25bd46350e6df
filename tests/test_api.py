"""The Python API: loading from every kind of table, reading relations, queries, and atomic failures."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from deltalog.api import Reasoner
from deltalog.errors import InputError, ParseError, QueryError

TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"


@pytest.mark.parametrize("make", [
    lambda: [(1, 2), (2, 3)],
    lambda: pl.DataFrame({"a": [1, 2], "b": [2, 3]}),
    lambda: pd.DataFrame({"a": [1, 2], "b": [2, 3]}),
    lambda: pa.table({"a": [1, 2], "b": [2, 3]}),
], ids=["tuples", "polars", "pandas", "arrow"])
def test_load_from_any_table(backend_name, make):
    r = Reasoner(TC, backend=backend_name)
    assert r.load("edge", make()) == 2
    r.materialise()
    assert sorted(r.relation("path").rows()) == [(1, 2), (1, 3), (2, 3)]


def test_load_from_a_file_and_query(tmp_path, backend_name):
    (tmp_path / "edge.tsv").write_text("a\tb\nb\tc\n")
    r = Reasoner(TC, backend=backend_name)
    r.load("edge", tmp_path / "edge.tsv")
    r.materialise()
    assert sorted(r.query("path(a, Y)")["Y"].to_list()) == ["b", "c"]
    assert r.query("path(a, c)").height == 1 and r.query("path(c, a)").height == 0


def test_program_file_inputs_are_relative_to_the_program(tmp_path, backend_name):
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "edge.tsv").write_text("1\t2\n")
    program = tmp_path / "tc.dl"
    program.write_text('@input edge "facts/edge.tsv"\n' + TC)
    r = Reasoner(program, backend=backend_name)
    r.materialise()
    assert r.relation("path").rows() == [(1, 2)]


def test_summary_counts_derived_facts(backend_name):
    r = Reasoner(TC + "edge(1, 2). edge(2, 3). edge(3, 4).", backend=backend_name)
    summary = r.materialise()
    second = r.analysed.rules[1].id   # statistics are keyed by rule id
    assert summary.derived == 6 and summary.stats.rules[second].derived == 3


def test_arity_clash_in_a_batch_loads_nothing(backend_name):
    r = Reasoner(TC, backend=backend_name)
    with pytest.raises(InputError):
        r.load_tables({"edge": pl.DataFrame({"a": [1], "b": [2]}), "path": pl.DataFrame({"a": [1]})})
    r.materialise()
    assert r.relation("edge").height == 0 and r.relation("path").height == 0


def test_query_errors_are_typed(backend_name):
    r = Reasoner(TC, backend=backend_name)
    r.materialise()
    with pytest.raises(QueryError):
        r.query("nothing(X)")
    with pytest.raises(QueryError):
        r.query("path(X)")
    with pytest.raises(ParseError):
        r.query("path(X,")


def test_loading_after_materialise_is_an_incremental_update(backend_name):
    r = Reasoner(TC + "edge(1, 2).", backend=backend_name)
    r.materialise()
    assert r.load("edge", [(2, 3)]) == 1
    assert sorted(r.relation("path").rows()) == [(1, 2), (1, 3), (2, 3)]


def test_update_returns_what_changed_and_counts_no_ops(backend_name):
    r = Reasoner(TC + "edge(1, 2). edge(2, 3).", backend=backend_name)
    r.materialise()
    result = r.update(add={"edge": [(3, 4), (2, 3)]}, delete={"edge": [(1, 2), (9, 9)], "path": [(1, 3)]})
    assert sorted(result.added["path"].rows()) == [(2, 4), (3, 4)]
    assert sorted(result.removed["path"].rows()) == [(1, 2), (1, 3)]
    assert result.ignored_additions["edge"] == 1 and result.ignored_deletions["edge"] == 1
    assert result.ignored_deletions["path"] == 1, "deleting a derived-only fact is a no-op"
    assert sorted(r.relation("path").rows()) == [(2, 3), (2, 4), (3, 4)]


def test_one_sided_updates_of_a_base_predicate_count_no_ops(backend_name):
    """Only additions (only deletions) of a predicate no rule derives: changed as given, in one backend
    call where it can (algorithms/explicit.py); a duplicate given twice counts once."""
    r = Reasoner(TC + "edge(1, 2). edge(2, 3).", backend=backend_name)
    r.materialise()
    result = r.update(add={"edge": [(3, 4), (3, 4), (2, 3)]})
    assert result.ignored_additions == {"edge": 1} and not result.removed
    assert sorted(result.added["path"].rows()) == [(1, 4), (2, 4), (3, 4)]
    result = r.update(delete={"edge": [(1, 2), (1, 2), (9, 9)]})
    assert result.ignored_deletions == {"edge": 1} and not result.added
    assert sorted(result.removed["path"].rows()) == [(1, 2), (1, 3), (1, 4)]
    assert sorted(r.relation("edge").rows()) == [(2, 3), (3, 4)]


def test_one_sided_updates_of_a_derived_predicate_count_no_ops(backend_name):
    """Only additions (only deletions) of a predicate rules also derive: applied to its explicit facts as
    given, and staged from the rows that changed where the backend loads in batches (algorithms/explicit.py):
    a duplicate counts once, a fact explicit already (or not explicit) is a no-op, a derived one stays."""
    r = Reasoner(TC + "edge(1, 2). edge(2, 3). path(5, 6).", backend=backend_name)
    r.materialise()
    result = r.update(add={"path": [(7, 8), (7, 8), (5, 6), (1, 3)]})
    assert result.ignored_additions == {"path": 1} and not result.removed   # (5, 6) was explicit already
    assert sorted(result.added["path"].rows()) == [(7, 8)]   # (1, 3) was derived: now explicit too
    result = r.update(delete={"path": [(1, 3), (1, 3), (5, 6), (9, 9)]})
    assert result.ignored_deletions == {"path": 1} and not result.added    # (9, 9) was not there
    assert sorted(result.removed["path"].rows()) == [(5, 6)]   # (1, 3) is still derived
    result = r.update(delete={"edge": [(2, 3)]})
    assert sorted(result.removed["path"].rows()) == [(1, 3), (2, 3)]   # (1, 3) is explicit no more
    assert sorted(r.relation("path").rows()) == [(1, 2), (7, 8)]


def test_change_frames_are_made_when_read_and_keep_their_update_s_facts(monkeypatch):
    """The frames of a result are decoded at the first read of any of them (algorithms/changes.py), from
    rows taken when the update ran: later updates and a compaction do not change them, and
    every way of reading the mapping (indexing, get, items, values, dict(), ==, copy) sees frames."""
    import copy
    import deltalog.backends.local.backend as local
    made: list[int] = []
    decoded = local.decoded_frame
    monkeypatch.setattr(local, "decoded_frame", lambda *args: made.append(1) or decoded(*args))
    r = Reasoner(TC + "edge(1, 2). edge(2, 3). edge(3, 4).")
    r.materialise()
    first = r.update(delete={"edge": [(2, 3)]})
    second = r.update(delete={"edge": [(1, 2), (3, 4)]})
    assert not made and set(first.removed) == {"edge", "path"} and len(second.removed) == 2
    r.reasoning.backend.compact(relation="path")
    r.update(add={"edge": [(2, 3), (5, 6), (6, 7)]})   # rows appended where the store has room
    assert sorted(first.removed["path"].rows()) == [(1, 3), (1, 4), (2, 3), (2, 4)] and len(made) == 2
    assert sorted(second.removed.get("path").rows()) == [(1, 2), (3, 4)]
    assert {p: sorted(f.rows()) for p, f in dict(second.removed).items()} == \
        {p: sorted(f.rows()) for p, f in copy.copy(second.removed).items()}
    assert [f.height for f in first.removed.values()] == [1, 4] and first.removed == dict(first.removed.items())
    assert first.added["path"].height == 0 and not first.added


def test_change_counts_are_read_without_making_frames(monkeypatch):
    """``counts()`` gives the facts per changed predicate from the rows taken (no frame made: ``deltalog
    update`` prints and records these only), and the same numbers once frames are made."""
    import deltalog.backends.local.backend as local
    made: list[int] = []
    decoded = local.decoded_frame
    monkeypatch.setattr(local, "decoded_frame", lambda *args: made.append(1) or decoded(*args))
    r = Reasoner(TC + "edge(1, 2). edge(2, 3). edge(3, 4).")
    r.materialise()
    result = r.update(delete={"edge": [(2, 3)]}, add={"edge": [(4, 5)]})
    counts = {"removed": result.removed.counts(), "added": result.added.counts()}
    assert not made
    assert counts == {"removed": {"edge": 1, "path": 4}, "added": {"edge": 1, "path": 2}}
    assert {p: f.height for p, f in result.removed.items()} == result.removed.counts() == counts["removed"]
    assert made and result.added.counts() == counts["added"]


def test_a_relation_is_compacted_once_half_its_rows_are_deleted():
    """After an update, a relation whose deleted rows reach half its rows drops them (maintain.py
    ``compact_if_worthwhile``), also when earlier updates found it not worth it and were not counted again."""
    r = Reasoner(TC + " ".join(f"edge({i}, {i + 1})." for i in range(10)))
    r.materialise()
    edge = r.reasoning.backend._relations["edge"]
    for deleted, dead in (([(0, 1), (1, 2)], 2), ([(2, 3), (3, 4)], 4), ([(4, 5)], 0)):
        r.update(delete={"edge": deleted})
        assert edge.deleted_rows == dead
    assert sorted(r.relation("edge").rows()) == [(i, i + 1) for i in range(5, 10)]
    assert r.relation("path").height == 15


def test_adding_and_deleting_the_same_fact_keeps_it(backend_name):
    r = Reasoner(TC + "edge(1, 2).", backend=backend_name)
    r.materialise()
    result = r.update(add={"edge": [(1, 2)]}, delete={"edge": [(1, 2)]})
    assert result.ignored_deletions["edge"] == 1 and not result.removed
    assert r.relation("path").rows() == [(1, 2)]


def test_failed_update_changes_nothing(backend_name):
    r = Reasoner(TC + "edge(1, 2).", backend=backend_name)
    r.materialise()
    with pytest.raises(InputError):
        r.update(add={"edge": [(2, 3)]}, delete={"path": [(1, 2, 3)]})
    assert sorted(r.relation("path").rows()) == [(1, 2)]


def test_write_is_atomic_and_complete(tmp_path, backend_name):
    r = Reasoner(TC + "edge(1, 2).", backend=backend_name)
    r.materialise()
    assert r.write(tmp_path / "out", format="csv") == ["path"]
    assert (tmp_path / "out" / "path.csv").read_text() == "1,2\n"
