"""The NumPy reader and writer of canonical-int files (io/int_columns.py) against the general Polars path.

Differential: any file, tricky cells included, reads to the same table (or the same error) through
``read_decoded`` as through ``read_table``; int columns are written to the same bytes Polars writes.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings, strategies as st

from deltalog.io.formats import read_decoded
from deltalog.io.int_columns import IntTable, int_cells_bytes
from deltalog.io.int_reader import read_int_cells
from deltalog.io.readers import read_table
from deltalog.syntax import parse
from readers_alike import outcome, same

TRICKY = ["0", "-0", "007", "+5", "1e3", "-", "", "1.5", "-1.0", '"1"', "<a>", "abc", " 1", "1 ", "\u0969",
          "99999999999999999999", "-9223372036854775808", "9223372036854775807", "999999999999999999",
          "-999999999999999999", "1000000000000000000", '"a\tb"', "1,2", "\ufeff1", "x\r"]
cells = st.one_of(st.integers(-10**6, 10**6).map(str), st.integers(-2**63, 2**63 - 1).map(str),
                  st.sampled_from(TRICKY))


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(cells, min_size=1, max_size=3), max_size=8), width=st.integers(1, 3),
       ending=st.sampled_from(["\n", "\r\n"]), last=st.booleans(), blank=st.booleans(),
       suffix=st.sampled_from([".tsv", ".csv", ".facts"]), arity=st.sampled_from([None, 1, 2, 3]))
@example(rows=[["1", "2"], ["3", "4"]], width=2, ending="\n", last=True, blank=False, suffix=".tsv", arity=None)
def test_any_file_reads_as_the_general_reader_reads_it(tmp_path_factory, rows, width, ending, last, blank,
                                                       suffix, arity):
    rows = [(r * width)[:width] for r in rows]   # mostly regular rows; arity and blank lines vary the shape
    separator = "," if suffix == ".csv" else "\t"
    lines = [separator.join(r) for r in rows] + ([""] if blank else [])
    text = ending.join(lines) + (ending if last and lines else "")
    path = tmp_path_factory.mktemp("f") / f"p{suffix}"
    path.write_bytes(text.encode())
    expected = outcome(read_table, path, arity=arity)
    assert same(outcome(read_decoded, path, arity=arity), expected)


@pytest.mark.parametrize("text, taken", [
    ("1\t2\n3\t4\n", True), ("1\t2\n3\t4", True), ("-5\t0\n", True), ("999999999999999999\t-1\n", True),
    ("007\t1\n", False), ("-0\t1\n", False), ("+5\t1\n", False), ("1\t\n", False), ("1\t2\n\n3\t4\n", False),
    ("1\t2\r\n", False), ("1\t2\t3\n4\t5\n", False), ("1-2\t3\n", False), ("9223372036854775807\t1\n", False),
    ("", False),
])
def test_the_int_reader_takes_only_canonical_regular_files(text, taken):
    table = read_int_cells(text.encode(), "\t", None)
    assert (table is not None) == taken
    if taken:
        assert [a.tolist() for a in table.arrays] == [[int(r.split("\t")[j]) for r in text.split("\n") if r]
                                                      for j in range(2)]


def test_every_cell_width_reads_exactly():
    """Cells of 1 to 18 digits, of both signs, first in the file or after longer and shorter cells: the
    reader combines up to eight digits a step from 8-byte words (io/int_reader.py, _accumulate)."""
    values = [int(sign + digits[:width]) for width in range(1, 19) for sign in ("", "-")
              for digits in ("987654321098765432", "100000000000000000", "999999999999999999")]
    values = [v for v in values if v != 0]
    for first in (values, values[::-1]):
        text = "".join(f"{v}\t{w}\n" for v, w in zip(first, first[1:] + first[:1]))
        table = read_int_cells(text.encode(), "\t", None)
        assert table is not None and table.arrays[0].tolist() == first


def test_a_file_of_ints_is_read_without_polars_and_a_text_file_with_it(tmp_path):
    (tmp_path / "e.tsv").write_text("1\t2\n2\t3\n")
    (tmp_path / "s.tsv").write_text("a\t2\n")
    assert isinstance(read_decoded(tmp_path / "e.tsv"), IntTable)
    assert isinstance(read_decoded(tmp_path / "s.tsv"), pl.DataFrame)


def test_declared_types_choose_the_reader(tmp_path):
    (tmp_path / "e.tsv").write_text("1\t2\n")
    decls = {d.predicate: d for d in parse("@decl e(a: int, b: any).\n@decl f(a: float, b: int).\n"
                                                   "@decl g(a: string, b: int).\n").declarations}
    assert isinstance(read_decoded(tmp_path / "e.tsv", decl=decls["e"]), IntTable)
    for name, dtype in (("f", pl.Float64), ("g", pl.String)):
        table = read_decoded(tmp_path / "e.tsv", decl=decls[name])
        assert isinstance(table, pl.DataFrame) and table.dtypes[0] == dtype
        assert same(table, read_table(tmp_path / "e.tsv", decl=decls[name]))


@given(st.lists(st.tuples(st.integers(-2**63, 2**63 - 1), st.integers(-2**63, 2**63 - 1)), min_size=1, max_size=30)
       | st.lists(st.tuples(st.integers(-20, 20), st.integers(0, 10**6)), min_size=1, max_size=80),
       st.sampled_from(["\t", ","]))
@example([(0, -2**63), (2**63 - 1, -1), (10, -10)], "\t")
@example([(10, 99), (55, 12)], "\t")               # every cell as wide as its column: no padding byte
@example([(-10, -5), (-99, -7), (-12, -100)], ",")  # all negative, of one and of several widths
@example([(0, 100), (0, 1000000), (9, 10)], "\t")   # zeros inside and at the end of a value, and 0 itself
@example([(10**18, -(10**17)), (1, 2**32)], "\t")    # beyond 32 bits
@example([(i % 13 - 6, 95 + i % 9) for i in range(60)], "\t")   # narrow ranges: texts made once, gathered
@example([(2**63 - 1 - i % 3, -(2**63) + i % 2) for i in range(30)], ",")   # narrow ranges at the int64 ends
def test_int_columns_are_written_as_polars_writes_them(rows, separator):
    table = IntTable([np.array([r[0] for r in rows], np.int64), np.array([r[1] for r in rows], np.int64)])
    expected = table.to_polars().write_csv(include_header=False, separator=separator).encode()
    assert int_cells_bytes(table, separator) == expected
    if all(abs(v) < 10**18 for r in rows for v in r):   # and read back (longer cells go to the general reader)
        assert [a.tolist() for a in read_int_cells(expected, separator, 2).arrays] == [list(c) for c in zip(*rows)]


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_the_writer_writes_int_tables_in_slices_as_polars_would(tmp_path, monkeypatch, fmt):
    """io/writers: an IntTable in slices of WRITE_CHUNK_ROWS rows gives the file Polars writes
    (in the test process Polars is imported, so NumPy is made to write here)."""
    from deltalog.io import writers
    monkeypatch.setattr(writers, "_numpy_writes", lambda table: True)
    monkeypatch.setattr(writers, "WRITE_CHUNK_ROWS", 7)
    rng = np.random.default_rng(5)
    table = IntTable([rng.integers(-10**6, 10**6, 50), rng.integers(0, 3, 50), rng.integers(-2**63, 2**63 - 1, 50)])
    writers.write_table(table, tmp_path / f"a.{fmt}", format=fmt)
    writers.write_table(table.to_polars(), tmp_path / f"b.{fmt}", format=fmt)
    assert (tmp_path / f"a.{fmt}").read_bytes() == (tmp_path / f"b.{fmt}").read_bytes()


def test_numpy_writes_larger_tables_whose_columns_span_narrow_ranges(monkeypatch):
    """io/writers: above NUMPY_WRITE_CELLS only a table whose every column gathers its cells from the
    texts of a narrow range goes to NumPy (and never once Polars is imported, as in this process)."""
    import sys

    from deltalog.io import writers
    monkeypatch.setattr(writers, "NUMPY_WRITE_CELLS", 100)
    monkeypatch.setattr(writers, "NUMPY_NARROW_WRITE_CELLS", 1000)
    monkeypatch.delitem(sys.modules, "polars", raising=False)
    span = writers.WRITE_CHUNK_ROWS // 4
    narrow = IntTable([np.arange(200) % 7, np.arange(200) + 10**12])
    wide = IntTable([np.arange(200) % 7, np.arange(200) * span])
    assert writers._numpy_writes(IntTable([np.arange(50) * span, np.arange(50)]))   # small: any range
    assert writers._numpy_writes(narrow) and not writers._numpy_writes(wide)
    assert not writers._numpy_writes(IntTable([np.arange(600) % 7, np.arange(600)]))   # above the narrow bound


@given(st.lists(st.tuples(st.integers(-2**63, 2**63 - 1), st.integers(-5, 5)), min_size=1, max_size=20))
def test_python_rows_of_ints_decode_to_the_int_table_polars_types(rows):
    """Rows of Python ints (an update's facts) become an IntTable without Polars, holding what the
    Python-rows reader (io/python_rows.py) makes of them."""
    from deltalog.io.python_rows import rows_table
    from deltalog.loading import decoded_table
    table = decoded_table(rows)
    assert isinstance(table, IntTable)
    assert same(table.to_polars(), rows_table(rows, 2))


@pytest.mark.parametrize("rows", [[(1, True)], [(1, 2.0)], [(1, "2")], [(1, 2**63)], [(-2**63 - 1, 0)], []])
def test_python_rows_that_are_not_all_64_bit_ints_go_the_polars_way(rows):
    """A bool, a float, a string, an int beyond 64 bits (refused there, naming it) or no rows at all."""
    from deltalog.errors import InputError
    from deltalog.loading import decoded_table
    try:
        table = decoded_table(rows, arity=2)
    except InputError as error:
        assert "does not fit 64 bits" in str(error)
        return
    assert isinstance(table, pl.DataFrame)


sliced_cells = st.one_of(st.integers(-10**6, 10**6).map(str), st.integers(-10**18 + 1, 10**18 - 1).map(str),
                         st.integers(-2**63, 2**63 - 1).map(str), st.sampled_from(TRICKY))


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(sliced_cells, min_size=2, max_size=2), min_size=1, max_size=40),
       bad_rows=st.lists(st.integers(0, 39), max_size=2), ending=st.sampled_from(["\n", "\n", "\r\n"]),
       last=st.booleans(), blank=st.integers(-1, 39), slice_bytes=st.integers(1, 64), workers=st.integers(1, 3),
       arity=st.sampled_from([None, 2, 3]))
@example(rows=[["1", "-2"]] * 30, bad_rows=[], ending="\n", last=False, blank=-1, slice_bytes=7, workers=2, arity=None)
@example(rows=[["12", "34"]] * 30, bad_rows=[], ending="\n", last=True, blank=20, slice_bytes=5, workers=2, arity=None)
def test_a_file_read_in_slices_on_threads_reads_as_the_general_reader_reads_it(
        tmp_path_factory, rows, bad_rows, ending, last, blank, slice_bytes, workers, arity):
    """io/int_reader parses a file in slices of whole lines on several threads: however the slices fall
    (a few bytes each: cuts after every line), the table is the one the general reader gives, and a
    file it does not take (a 19-digit cell, a CRLF, a blank line, a ragged or bad row anywhere, in
    any slice) goes to the general reader, whose error names the same file, line and column."""
    from deltalog.io import int_reader
    rows = [r[:1] if k in bad_rows else r for k, r in enumerate(rows)]   # a ragged row here and there
    lines = ["\t".join(r) for r in rows]
    if 0 <= blank < len(lines):
        lines.insert(blank, "")
    text = ending.join(lines) + (ending if last else "")
    path = tmp_path_factory.mktemp("f") / "p.tsv"
    path.write_bytes(text.encode())
    expected = outcome(read_table, path, arity=arity)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(int_reader, "SLICE_BYTES", slice_bytes)
        patch.setattr(int_reader, "workers", lambda: workers)
        assert same(outcome(read_decoded, path, arity=arity), expected)
        sliced = read_int_cells(text.encode(), "\t", arity)
    whole = read_int_cells(text.encode(), "\t", arity)   # one slice: the file as one buffer
    assert (sliced is None) == (whole is None)
    if sliced is not None:
        assert np.array_equal(sliced.rows, whole.rows)


def test_a_large_file_of_ints_is_parsed_in_slices_on_threads_to_the_same_table(monkeypatch):
    """Thousands of rows in many slices on two threads: every value where it was, the arity of the
    first row, the columns views of one row matrix."""
    from deltalog.io import int_reader
    rng = np.random.default_rng(19)
    values = rng.integers(-10**17, 10**17, (5000, 3))
    text = "".join(f"{a}\t{b}\t{c}\n" for a, b, c in values.tolist()).encode()
    monkeypatch.setattr(int_reader, "SLICE_BYTES", 4096)
    monkeypatch.setattr(int_reader, "workers", lambda: 2)
    table = read_int_cells(text, "\t", None)
    assert table is not None and np.array_equal(table.rows, values) and table.width == 3



@given(st.lists(st.integers(-2**63, 2**63 - 1) | st.integers(-1000, 1000)
                | st.sampled_from([0, 9, 10, 99, 100, 999, 1000, 10**17, 10**18 - 1, 10**18, -2**63, 2**63 - 1]),
                min_size=1, max_size=30))
def test_int_cells_are_their_decimal_texts(values):
    """The writer's layout, two places a division (io/int_columns.py ``_right_aligned``): each cell is Python's
    decimal text of its int, whatever the widths of the column's other cells (odd and even digit counts)."""
    table = IntTable([np.array(values, np.int64), np.array(values[::-1], np.int64)])
    expected = "".join(f"{a}\t{b}\n" for a, b in zip(values, values[::-1])).encode()
    assert int_cells_bytes(table, "\t") == expected
