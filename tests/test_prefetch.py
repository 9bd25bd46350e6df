"""io/prefetch: a run's fact files read while the modules load give the loader exactly the table it
would read itself, and nothing for a file that changed, another separator or an arity it lacks."""

from __future__ import annotations

import os
import threading

import pytest
from hypothesis import given, settings, strategies as st

from deltalog.cli import main
from deltalog.io import prefetch
from deltalog.io.formats import read_decoded
from deltalog.io.readers import read_table
from readers_alike import outcome, same

cells = st.one_of(st.integers(-10**6, 10**6).map(str), st.sampled_from(["007", "-0", "a", "", "1.5", "x\r"]))


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.lists(cells, min_size=1, max_size=3), max_size=6), suffix=st.sampled_from([".tsv", ".csv"]),
       arity=st.sampled_from([None, 1, 2, 3]))
def test_a_prefetched_file_reads_as_the_general_reader_reads_it(tmp_path_factory, rows, suffix, arity):
    folder = tmp_path_factory.mktemp("facts")
    path = folder / f"p{suffix}"
    path.write_text("".join(("," if suffix == ".csv" else "\t").join(r) + "\n" for r in rows))
    prefetch.prefetch_directory(folder)
    try:
        assert same(outcome(read_decoded, path, arity=arity), outcome(read_table, path, arity=arity))
    finally:
        prefetch.forget()


def test_the_loader_takes_the_prefetched_table_once(tmp_path, monkeypatch):
    (tmp_path / "e.tsv").write_text("1\t2\n3\t4\n")
    prefetch.prefetch_directory(tmp_path)
    taken, table = prefetch.take(str(tmp_path / "." / "e.tsv"), "\t", 2)   # named another way: the same file
    assert taken and [a.tolist() for a in table.arrays] == [[1, 3], [2, 4]]
    assert prefetch.take(tmp_path / "e.tsv", "\t", 2) == (False, None)   # taken: the loader reads it itself
    prefetch.forget()


@pytest.mark.parametrize("separator, arity, expected", [(",", None, (False, None)), ("\t", 3, (True, None))])
def test_another_separator_or_arity_gets_no_table(tmp_path, separator, arity, expected):
    (tmp_path / "e.tsv").write_text("1\t2\n")
    prefetch.prefetch_directory(tmp_path)
    assert prefetch.take(tmp_path / "e.tsv", separator, arity) == expected
    prefetch.forget()


def test_a_file_changed_after_it_was_read_is_read_again(tmp_path):
    path = tmp_path / "e.tsv"
    path.write_text("1\t2\n")
    prefetch.prefetch_directory(tmp_path)
    prefetch._readers[-1].join()
    path.write_text("5\t6\n")   # same size: the modification time tells
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert [a.tolist() for a in read_decoded(path).arrays] == [[5], [6]]
    prefetch.forget()


def test_a_run_leaves_no_thread_and_no_table_behind(tmp_path):
    """A declared string column is not read by the int reader: its prefetched table is dropped, and
    the reading thread has stopped when the command returns."""
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "e.tsv").write_text("1\t2\n2\t3\n")
    (tmp_path / "facts" / "s.tsv").write_text("7\n")
    (tmp_path / "p.dl").write_text("@decl s(a: string).\nt(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z).\n"
                                   "u(A) :- s(A).\n")
    assert main(["run", str(tmp_path / "p.dl"), "--facts", str(tmp_path / "facts"), "--out", str(tmp_path / "o"),
                 "--quiet"]) == 0
    assert sorted((tmp_path / "o" / "t.tsv").read_text().splitlines()) == ["1\t2", "1\t3", "2\t3"]
    assert (tmp_path / "o" / "u.tsv").read_text() == '"7"\n'   # a string, written as one
    assert not prefetch._read and not prefetch._readers
    assert not [t for t in threading.enumerate() if t.name == "deltalog-prefetch"]


def test_a_run_reads_its_facts_while_it_starts(tmp_path, monkeypatch):
    """``deltalog run --facts DIR`` starts reading DIR before it imports the engine, and the loader
    takes what was read (no second read of the file)."""
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "e.tsv").write_text("1\t2\n2\t3\n")
    (tmp_path / "p.dl").write_text("t(X, Y) :- e(X, Y).\n")
    takes = []
    original = prefetch.take
    monkeypatch.setattr(prefetch, "take", lambda *a: takes.append(original(*a)) or takes[-1])
    assert main(["run", str(tmp_path / "p.dl"), "--facts", str(tmp_path / "facts"), "--out", str(tmp_path / "o"),
                 "--quiet"]) == 0
    assert [taken for taken, _ in takes] == [True]
    assert (tmp_path / "o" / "t.tsv").read_text() == "1\t2\n2\t3\n"
