"""The Python path for small text tables (io/text_table.py, backends/local/text_codec.py) against Polars'.

Differential: any small file, tricky cells included, reads to the same table (or the same error) as
through ``read_table``; a TextTable is written to the same bytes, and a backend stores and gives back
the same values either way.
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import example, given, settings, strategies as st

from deltalog.backends.local.backend import LocalBackend
from deltalog.backends.local.codec import decode_frame
from deltalog.backends.local.text_codec import decode_table
from deltalog.errors import InputError
from deltalog.io.formats import DIALECTS
from deltalog.io.readers import read_table
from deltalog.io.text_table import TextTable, read_small_text, text_table_bytes
from deltalog.io.writers import write_table
from readers_alike import outcome, same

TRICKY = ["0", "-0", "007", "+5", "-5", "1e3", "1.5", "-1.0", "1.50", "1e-05", "1e+16", "0.0001", "-", "",
          " ", '"', '""', '"1"', '"a""b"', '"a\\tb"', '"a\\"b"', '"a\\\\b"', '"x\\qy"', '"a,b"', "a\"b",
          "<a>", "<http://x/y#z>", "<a b>", "<>", "abc", "é", "日本", "\u0969", "\ufeff1", "x\r",
          "99999999999999999999", "-9223372036854775808", "9223372036854775807", '"chat"@fr', '"chat"@FR',
          '"1"^^<http://www.w3.org/2001/XMLSchema#int>', '"1"^^<http://www.w3.org/2001/XMLSchema#integer>',
          '"2.5"^^<http://www.w3.org/2001/XMLSchema#double>', "a,b", "1,2", "a b", "\\", "true"]
cells = st.one_of(st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
                  st.sampled_from(TRICKY), st.text(max_size=4))


def file_text(rows, width, separator, ending, blank) -> str:
    lines = []
    for row in rows:
        cells_ = (row * width)[:width]
        if separator == ",":
            cells_ = ['"' + c.replace('"', '""') + '"' if any(ch in c for ch in ',"\n\r') else c for c in cells_]
        lines.append(separator.join(cells_))
    return ending.join(lines + ([""] if blank else [])) + ending


@settings(max_examples=400, deadline=None)
@given(rows=st.lists(st.lists(cells, min_size=1, max_size=3), max_size=8), width=st.integers(1, 3),
       ending=st.sampled_from(["\n", "\r\n"]), blank=st.booleans(), raw=st.booleans(),
       fmt=st.sampled_from(["tsv", "csv", "csv-header"]), arity=st.sampled_from([None, 1, 2, 3]))
@example(rows=[["a", "1"], ["b", "2"]], width=2, ending="\n", blank=False, raw=False, fmt="tsv", arity=None)
@example(rows=[["x", "99999999999999999999"]], width=2, ending="\n", blank=False, raw=False, fmt="tsv", arity=None)
@example(rows=[["a", ""]], width=2, ending="\n", blank=False, raw=False, fmt="csv", arity=None)
@example(rows=[["0", "0", "0"], ["0", "x\r", "0"]], width=1, ending="\n", blank=False, raw=True, fmt="tsv",
         arity=None)
@example(rows=[["0", "0", "0"], ["0", "0", "0"], ["0", "0", '"'], ['"a\\"b"']], width=1, ending="\n", blank=False,
         raw=True, fmt="csv", arity=None)   # Polars read the malformed quoted cell as "\na\\b", Python as '\na\\"b"'
def test_a_small_file_reads_as_the_polars_reader_reads_it(tmp_path_factory, rows, width, ending, blank, raw,
                                                            fmt, arity):
    """``raw``: the cells joined as they are (quotes and separators inside them make ragged or
    malformed rows on purpose), else quoted where CSV needs it."""
    separator = "," if fmt.startswith("csv") else "\t"
    text = ending.join(separator.join(r) for r in rows) + ending if raw else file_text(rows, width, separator,
                                                                                        ending, blank)
    path = tmp_path_factory.mktemp("f") / "p.txt"
    path.write_bytes(text.encode())
    expected = outcome(lambda: read_table(path, format=fmt, arity=arity))
    got = outcome(lambda: read_small_text(path.read_bytes(), str(path), DIALECTS[fmt], arity))
    assert same(got, expected)


def test_errors_name_the_file_line_and_column_as_polars_does(tmp_path):
    for text in ("a\tb\nc\n", "a\t1\nb\t99999999999999999999\n", b"a\t\xff\n", "a\n\"b\n"):
        path = tmp_path / "p.tsv"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        for fmt in ("tsv", "csv"):
            expected = outcome(lambda: read_table(path, format=fmt))
            assert isinstance(expected, str) or fmt == "csv" or text.startswith("a\n")
            assert same(outcome(lambda: read_small_text(path.read_bytes(), str(path), DIALECTS[fmt], None)), expected)


texts = st.one_of(st.sampled_from(TRICKY), st.text(max_size=5))


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(texts, st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False,
                                                                                 allow_infinity=False)),
                     min_size=1, max_size=8), fmt=st.sampled_from(["tsv", "csv"]), width=st.sampled_from([1, 3]))
def test_a_text_table_is_written_as_polars_writes_it(tmp_path_factory, rows, fmt, width):
    table = TextTable([[r[0] for r in rows], pl.Series([r[1] for r in rows]).to_numpy(),
                       pl.Series([r[2] for r in rows], dtype=pl.Float64).to_numpy()][:width])
    path = tmp_path_factory.mktemp("w") / f"p.{fmt}"
    try:
        write_table(table.to_polars(), path, format=fmt)
        expected: bytes | str = path.read_bytes()
    except InputError as error:
        expected = str(error)
    try:
        got: bytes | str = text_table_bytes(table, fmt)
    except InputError as error:
        got = str(error)
    assert got == expected


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(TRICKY[:30]) | st.text(max_size=3), st.integers(-3, 3)),
                     min_size=1, max_size=10))
def test_a_backend_stores_and_gives_back_a_text_table_as_the_frame(rows):
    """Loading a TextTable or its DataFrame stores the same constants; reading them back decodes to the
    same columns in Python (text_codec.decode_table) as in Polars (codec.decode_frame)."""
    keep = [r for r in rows if r[0] not in ("99999999999999999999",)]
    table = TextTable([[r[0] for r in keep], pl.Series([r[1] for r in keep], dtype=pl.Int64).to_numpy()])
    by_python, by_polars = LocalBackend(), LocalBackend()
    for backend, data in ((by_python, table), (by_polars, table.to_polars())):
        backend.create_relation(relation="p", arity=2)
        backend.load(relation="p", table=data, generation=0)
    assert by_python.typed_rows(relation="p") == by_polars.typed_rows(relation="p")
    ids = by_python.id_columns(relation="p")
    names = ["c0", "c1"]
    assert same(decode_table(ids, by_python.dictionary).to_polars(), decode_frame(ids, names, by_python.dictionary))


@pytest.mark.parametrize("cells, kind", [(["1", "2"], pl.Int64), (["1.5", "2.0"], pl.Float64),
                                          (["1", "1.5"], pl.String), ([], pl.String)])
def test_columns_are_typed_by_form(cells, kind):
    data = "".join(f"{c}\n" for c in cells).encode()
    assert read_small_text(data, "f", DIALECTS["tsv"], 1).to_polars().dtypes == [kind]


@pytest.mark.parametrize("tail", ["x\t1\n", "x\t\n", "x\n", "x\t1\t2\n", '"x\ty"\t"1"\n', "\n\nx\t-0\n"])
@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_a_file_beyond_the_polars_sample_reads_the_same(tmp_path, tail, fmt):
    """Up to SMALL_TEXT_BYTES, past the 64 kB that io/delimited samples: the tail decides the table."""
    separator = "," if fmt == "csv" else "\t"
    text = "".join(f"name{i}{separator}{i}\n" for i in range(8000)) + tail.replace("\t", separator)
    path = tmp_path / f"p.{fmt}"
    path.write_text(text)
    assert len(text) > 1 << 16
    expected = outcome(lambda: read_table(path))
    assert same(outcome(lambda: read_small_text(path.read_bytes(), str(path), DIALECTS[fmt], None)), expected)


def test_a_carriage_return_ending_a_cell_is_kept_in_a_large_file(tmp_path):
    """Polars drops a ``\\r`` that ends a cell before a separator; a file of any size keeps it."""
    path = tmp_path / "p.tsv"
    path.write_bytes(b"".join(b"n%d\t%d\n" % (i, i) for i in range(60_000)) + b"x\r\t7\r\n")
    table = read_table(path, format="tsv")
    assert table.height == 60_001
    assert table.row(-1) == ("x\r", 7)


@pytest.mark.parametrize("bad, line", [('"x"y', 3001), ('x,"y', 3001), ('"x" ,y', 3001), ('x"y,z', None)])
def test_a_malformed_quote_in_a_large_csv_file_is_refused_with_its_line(tmp_path, bad, line):
    """Past the sample Polars reads the whole file and takes a malformed quoted cell leniently
    (``"x"y`` as ``xy``); such a file goes to the Python reader, which refuses it naming the line. A
    quote inside an unquoted cell is a character of the cell (as Python's csv module reads it)."""
    path = tmp_path / "big.csv"
    path.write_text("".join(f"n{i},m{i}\n" for i in range(3000)) + bad + ("\n" if "," in bad else ",z\n"))
    if line is None:
        assert read_table(path, format="csv", arity=None)["c0"].to_list()[-1] == "x\"y"
        return
    with pytest.raises(InputError, match=f"big.csv:{line}:1: .*malformed CSV row"):
        read_table(path, format="csv", arity=None)
