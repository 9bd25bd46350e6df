"""Spark reads CSV/TSV fact files exactly as the embedded reader does, or refuses them as it does:
univocity's leniencies (blank-only lines skipped, carriage returns inside lines, blanks after a
closing quote, quotes in unquoted cells, unterminated quoted cells) never reach the facts."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from deltalog.api import Reasoner
from deltalog.backends.spark.delimited import _split_suspects
from deltalog.errors import DeltalogError, InputError
from deltalog.io.formats import DIALECTS

pytestmark = pytest.mark.spark
PROGRAM = "p(X, Y) :- q(X, Y)."


def read_both(directory):
    """The facts of q read by each backend, or the kind of error each raised."""
    out = []
    for backend in ("local", "spark"):
        try:
            reasoner = Reasoner(PROGRAM, backend=backend)
            reasoner.load_directory(directory)
            out.append(sorted(reasoner.backend.typed_rows(relation="q")))
        except DeltalogError as exc:
            out.append(type(exc).__name__)
    return out


# found by a random comparison of the two readers: each was read differently, most of them silently
DEPARTURES = [
    ("q.csv", '"a" ,x\n'), ("q.csv", '"a"\t,x\n'), ("q.csv", '"a","b" \n'), ("q.csv", '"a"b,x\n'),
    ("q.csv", '"a\\"b",x\n'), ("q.csv", '\n b""\t7 ,",\t""a\n'), ("q.csv", '\n,\t"  "" \t\n,'),
    ("q.csv", '"a"" ,x",y\n'), ("q.csv", 'x,"a""b"\n'), ("q.tsv", "\r\n\t"), ("q.tsv", "\na7\tb\r "),
    ("q.tsv", "\r\n \t \t"), ("q.tsv", "\rb\t<x>"), ("q.tsv", "a\tb\r\nc\td\n"), ("q.csv", "a,b\nc,d\r\ne,f\n"),
    # Python's csv writer: CRLF line ends, a line break inside a quoted cell (Spark kept "d\r")
    ("q.csv", 'a,"x\ny"\r\nc,d\r\n'),
]


@pytest.mark.parametrize("name,text", DEPARTURES)
def test_spark_reads_like_the_embedded_reader(spark, tmp_path, name, text):
    (tmp_path / name).write_bytes(text.encode())
    local, on_spark = read_both(tmp_path)
    assert local == on_spark


def test_a_malformed_quote_is_refused_naming_its_line(spark, tmp_path):
    (tmp_path / "q.csv").write_text('a,b\n"c" ,d\n')
    with pytest.raises(InputError, match=r"q\.csv:2"):
        Reasoner(PROGRAM, backend="spark").load_directory(tmp_path)


@pytest.mark.parametrize("name,text,line", [("q.csv", "a,b\nc\n", 2), ("q.tsv", "a\tb\n\nc\td\te\n", 3),
                                            ("q.csv", 'a,b\n"c",d\ne,f,g\r\n', 3)])
def test_a_ragged_row_is_refused_naming_its_line(spark, tmp_path, name, text, line):
    (tmp_path / name).write_text(text)
    with pytest.raises(InputError, match=rf"q\.[ct]sv:{line}:1.*expected 2"):
        Reasoner(PROGRAM, backend="spark").load_directory(tmp_path)


def test_files_a_writer_made_go_to_sparks_reader_alone(spark, tmp_path):
    buffer = io.StringIO()
    rows = [["a b", 'say "hi"'], ["x,y", ""], ["", "7"], ["line\nbreak", " z "]]
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    (tmp_path / "q.csv").write_text(buffer.getvalue())
    plain, suspects = _split_suspects(spark, str(tmp_path / "q.csv"), DIALECTS["csv"], 2)
    assert len(plain) == 1 and suspects == []
    local, on_spark = read_both(tmp_path)
    assert local == on_spark and len(local) == 4


CHUNKS = ["a", "7", ",", "\t", '"', " ", "\n", "\r\n", "\r", '"a"', '""', "<x>"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(CHUNKS), min_size=1, max_size=14), st.sampled_from(["q.csv", "q.tsv"]))
def test_random_files_read_alike(spark, tmp_path_factory, chunks, name):
    directory = tmp_path_factory.mktemp("cells")
    (directory / name).write_bytes("".join(chunks).encode())
    local, on_spark = read_both(directory)
    # both read the same facts, or both refuse the file
    assert local == on_spark or (isinstance(local, str) and isinstance(on_spark, str))
