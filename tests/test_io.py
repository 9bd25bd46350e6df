"""Tests for deltalog.io: typing of text cells, malformed rows, Parquet/CSV round trips, RDF, atomic writes."""

from __future__ import annotations

import datetime
import os
import random
import sys

import polars as pl
import pytest

from deltalog.errors import InputError
from deltalog.io import read_facts_dir, read_rdf, read_table, write_relations, write_table
from deltalog.io import writers
from deltalog.storage.values import parse_cell

XSD = "http://www.w3.org/2001/XMLSchema#"


def write(path, text: str):
    path.write_bytes(text.encode())
    return path


# ---- typing of text cells


def test_int_columns_are_int64(tmp_path):
    df = read_table(write(tmp_path / "e.tsv", "1\t2\n-3\t40\n0\t5\n"))
    assert df.columns == ["c0", "c1"]
    assert df.dtypes == [pl.Int64, pl.Int64]
    assert df.rows() == [(1, 2), (-3, 40), (0, 5)]   # "007" is no int any more: tests/test_values.py


def test_float_columns_are_float64(tmp_path):
    df = read_table(write(tmp_path / "f.tsv", "1.5\t2.0\n-2000.0\t0.5\n"))
    assert df.dtypes == [pl.Float64, pl.Float64]
    assert df.rows() == [(1.5, 2.0), (-2000.0, 0.5)]   # only canonical spellings are floats


def test_int_and_float_cells_mixed_stay_text(tmp_path):
    df = read_table(write(tmp_path / "m.tsv", "1\n1.5\n"))
    assert df.dtypes == [pl.String]
    assert [parse_cell(c) for c in df["c0"]] == [("int", 1), ("float", 1.5)]


def test_iris_strings_and_odd_numbers_stay_text(tmp_path):
    text = "<http://x/a>\talice\t+5\tinf\ttrue\t1e400\n<http://x/b>\tbob smith\t6\tnan\tfalse\t1\n"
    df = read_table(write(tmp_path / "s.tsv", text))   # a huge int is refused now: tests/test_values.py
    assert df.dtypes == [pl.String] * 6
    assert df.row(0) == ("<http://x/a>", "alice", "+5", "inf", "true", "1e400")
    assert df.row(1) == ("<http://x/b>", "bob smith", "6", "nan", "false", "1")


def test_int_column_next_to_risky_text_is_still_int(tmp_path):
    df = read_table(write(tmp_path / "r.tsv", "a b\t1\nc+d\t2\n"))
    assert df.dtypes == [pl.String, pl.Int64]


def test_a_late_non_int_cell_makes_the_column_text(tmp_path):
    rows = "".join(f"{i}\t{i}\n" for i in range(5000)) + "x\t5000\n"
    df = read_table(write(tmp_path / "late.tsv", rows))
    assert df.dtypes == [pl.String, pl.Int64]
    assert df.height == 5001 and df["c0"][-1] == "x" and df["c0"][0] == "0"


def test_empty_cells_and_blank_lines(tmp_path):
    df = read_table(write(tmp_path / "b.tsv", "1\t\n\n3\t4\r\n\n"))
    assert df.rows() == [(1, ""), (3, "4")]
    assert df.dtypes == [pl.Int64, pl.String]


def test_facts_extension_is_tab_separated(tmp_path):
    assert read_table(write(tmp_path / "p.facts", "a\tb\n")).rows() == [("a", "b")]


# ---- malformed input


@pytest.mark.parametrize("text, line, fields", [
    ("1\t2\n3\t4\n5\t6\t7\n", 3, 3),
    ("1\t2\n3\n", 2, 1),
    ("1\t2\n\n\n4\t5\t\n", 4, 3),
])
def test_ragged_rows_name_file_and_line(tmp_path, text, line, fields):
    path = write(tmp_path / "edge.tsv", text)
    with pytest.raises(InputError) as info:
        read_table(path)
    assert (info.value.span.line, info.value.span.column) == (line, 1)
    assert str(info.value) == f"{path}:{line}:1: error: row has {fields} fields, expected 2"


def test_ragged_row_beyond_the_sample(tmp_path):
    rows = "".join(f"{i}\t{i}\n" for i in range(20000)) + "1\t2\t3\n"
    with pytest.raises(InputError, match="row has 3 fields, expected 2") as info:
        read_table(write(tmp_path / "big.tsv", rows))
    assert info.value.span.line == 20001


def test_ragged_csv_row_after_multiline_field(tmp_path):
    path = write(tmp_path / "q.csv", 'a,"x\ny"\nb,c,d\n')
    with pytest.raises(InputError) as info:
        read_table(path)
    assert info.value.span.line == 3


def test_declared_arity_is_checked(tmp_path):
    with pytest.raises(InputError, match="row has 2 fields, expected 3"):
        read_table(write(tmp_path / "a.tsv", "1\t2\n"), arity=3)


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(InputError, match="nope.tsv"):
        read_table(tmp_path / "nope.tsv")


def test_invalid_utf8(tmp_path):
    path = tmp_path / "u.tsv"
    path.write_bytes(b"a\tb\nc\t\xff\n")
    with pytest.raises(InputError, match="UTF-8") as info:
        read_table(path)
    assert info.value.span.line == 2


@pytest.mark.parametrize("text", ["", "\n\n", "\r\n"])
def test_empty_files(tmp_path, text):
    path = write(tmp_path / "e.tsv", text)
    assert read_table(path, arity=2).shape == (0, 2)
    assert read_table(path).shape == (0, 0)


def test_header_only_csv(tmp_path):
    df = read_table(write(tmp_path / "h.csv", "x,y\n"), format="csv-header")
    assert df.shape == (0, 2)


# ---- CSV and Parquet


def test_csv_header(tmp_path):
    df = read_table(write(tmp_path / "h.csv", "src,dst\n1,2\n3,4\n"), format="csv-header")
    assert df.columns == ["c0", "c1"] and df.rows() == [(1, 2), (3, 4)]


def test_csv_quoting_round_trip(tmp_path):
    cells = ["plain", "a,b", 'say "hi"', "two\nlines", "", "<http://x/y>"]
    df = pl.DataFrame({"c0": cells, "c1": list(range(len(cells)))})
    write_table(df, tmp_path / "q.csv", format="csv")
    assert read_table(tmp_path / "q.csv").rows() == df.rows()


def test_parquet_round_trip(tmp_path):
    df = pl.DataFrame({"c0": [1, 2], "c1": [0.1, 2.0], "c2": ["<http://x>", "s"]})
    write_table(df, tmp_path / "p.parquet", format="parquet")
    back = read_table(tmp_path / "p.parquet")
    assert back.dtypes == [pl.Int64, pl.Float64, pl.String]
    assert back.rows() == df.rows()


def test_parquet_other_types_become_text(tmp_path):
    df = pl.DataFrame({
        "id": pl.Series([1, 2], dtype=pl.Int32), "x": pl.Series([1.5, 2.5], dtype=pl.Float32),
        "flag": [True, False], "day": [datetime.date(2024, 1, 2), datetime.date(2024, 2, 3)],
    })
    df.write_parquet(tmp_path / "t.parquet")
    back = read_table(tmp_path / "t.parquet")
    assert back.columns == ["c0", "c1", "c2", "c3"]
    assert back.dtypes == [pl.Int64, pl.Float64, pl.String, pl.String]
    assert back.row(0) == (1, 1.5, "true", "2024-01-02")


def test_parquet_nulls_are_rejected(tmp_path):
    pl.DataFrame({"a": [1, None]}).write_parquet(tmp_path / "n.parquet")
    with pytest.raises(InputError, match="null"):
        read_table(tmp_path / "n.parquet")


# ---- writing


def test_floats_are_written_like_repr(tmp_path):
    values = [0.1, 1e20, 2.0, 1e16, 1e15, 1e-4, 1e-5, -0.0, 1 / 3, 5e-324, 1.5e-7, float("inf"), float("nan")]
    write_table(pl.DataFrame({"c0": values}), tmp_path / "f.tsv")
    assert (tmp_path / "f.tsv").read_text().splitlines() == [repr(v) for v in values]


def test_float_strings_match_repr_across_magnitudes():
    rng = random.Random(7)
    values = [rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30) for _ in range(20000)]
    values += [rng.randint(-10**6, 10**6) / 8 for _ in range(2000)]
    assert writers.float_strings(pl.Series(values)).to_list() == [repr(v) for v in values]


def test_tsv_write_read_round_trip(tmp_path):
    df = pl.DataFrame({"c0": [1, -2], "c1": [0.5, 1e-7], "c2": ["<http://x>", "hello world"]})
    write_table(df, tmp_path / "r.tsv")
    assert (tmp_path / "r.tsv").read_text() == "1\t0.5\t<http://x>\n-2\t1e-07\thello world\n"
    assert read_table(tmp_path / "r.tsv").rows() == df.rows()


def test_tsv_cannot_hold_a_tab(tmp_path):
    with pytest.raises(InputError, match="tab"):
        write_table(pl.DataFrame({"c0": ["a\tb"]}), tmp_path / "t.tsv")
    assert os.listdir(tmp_path) == []


def test_write_table_is_atomic(tmp_path, monkeypatch):
    target = write(tmp_path / "p.tsv", "old\n")

    def failing(df, path, fmt):
        path.write_text("partial")
        raise OSError("disk full")

    monkeypatch.setattr(writers, "_write", failing)
    with pytest.raises(OSError):
        write_table(pl.DataFrame({"c0": [1]}), target)
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["p.tsv"]


def test_write_relations(tmp_path):
    out = tmp_path / "out"
    tables = {"edge": pl.DataFrame({"c0": [1], "c1": [2]}), "name": pl.DataFrame({"c0": ["a"]})}
    write_relations(tables, out)
    assert sorted(os.listdir(out)) == ["edge.tsv", "name.tsv"]
    assert read_facts_dir(out)["edge"].rows() == [(1, 2)]
    assert os.listdir(tmp_path) == ["out"]


def test_write_relations_leaves_nothing_on_failure(tmp_path):
    out = tmp_path / "out"
    write_relations({"old": pl.DataFrame({"c0": [1]})}, out)
    bad = pl.DataFrame({"c0": pl.Series([object()], dtype=pl.Object)})
    tables = {"a": pl.DataFrame({"c0": [1]}), "b": bad}
    for fmt in ("tsv", "csv", "parquet"):
        with pytest.raises(InputError):
            write_relations(tables, out, format=fmt)
        assert os.listdir(out) == ["old.tsv"]
        assert os.listdir(tmp_path) == ["out"]
    with pytest.raises(InputError):
        write_relations(tables, tmp_path / "fresh")
    assert not (tmp_path / "fresh").exists()


def test_write_relations_rejects_bad_names(tmp_path):
    with pytest.raises(InputError, match="predicate name"):
        write_relations({"../evil": pl.DataFrame({"c0": [1]})}, tmp_path / "o")


# ---- RDF

NT = f"""\
<http://ex.org/a> <http://ex.org/age> "42"^^<{XSD}integer> .
<http://ex.org/a> <http://ex.org/n> "7"^^<{XSD}int> .
<http://ex.org/a> <http://ex.org/n> "+8"^^<{XSD}long> .
<http://ex.org/a> <http://ex.org/w> "2.5"^^<{XSD}decimal> .
<http://ex.org/a> <http://ex.org/w> "1E3"^^<{XSD}double> .
<http://ex.org/a> <http://ex.org/w> "0.1"^^<{XSD}float> .
<http://ex.org/a> <http://ex.org/label> "plain" .
<http://ex.org/a> <http://ex.org/label> "typed"^^<{XSD}string> .
<http://ex.org/a> <http://ex.org/label> "chat"@fr .
<http://ex.org/a> <http://ex.org/label> "say \\"hi\\"\\n\\u00e9" .
<http://ex.org/a> <http://ex.org/flag> "true"^^<{XSD}boolean> .
<http://ex.org/a> <http://other.org/vocab#label> _:b1 .
_:b1 <http://ex.org/knows> <http://ex.org/c> .
<http://ex.org/a> <http://ex.org/1st-name> "x" .
"""


def test_ntriples_triple_table(tmp_path):
    tables = read_rdf(write(tmp_path / "d.nt", NT))
    df = tables["triple"]
    assert list(tables) == ["triple"] and df.columns == ["c0", "c1", "c2"]
    assert df.dtypes == [pl.String] * 3
    objects = df["c2"].to_list()
    # literals keep their datatype and language tag; only canonical xsd:integer/xsd:double become numbers
    literals = [f'"{lexical}"^^<{XSD}{datatype}>' for lexical, datatype in
                [("7", "int"), ("+8", "long"), ("2.5", "decimal"), ("1E3", "double"), ("0.1", "float")]]
    assert objects[:11] == ["42", *literals, "plain", "typed", '"chat"@fr', '"say \\"hi\\"\\né"',
                            f'"true"^^<{XSD}boolean>']
    assert parse_cell(objects[9]) == ("string", 'say "hi"\né')   # a line break: the cell is quoted
    assert objects[11] == "_:b1" and df.row(12) == ("_:b1", "<http://ex.org/knows>", "<http://ex.org/c>")
    assert df.row(0)[:2] == ("<http://ex.org/a>", "<http://ex.org/age>")


def test_ntriples_per_predicate(tmp_path):
    tables = read_rdf(write(tmp_path / "d.nt", NT), per_predicate=True)
    # names depend on the set of properties only: two "label"s are qualified by their hosts (tests/test_rdf_literals.py)
    assert list(tables) == ["_1st_name", "age", "ex_label", "flag", "knows", "n", "other_label", "w"]
    assert tables.iris["ex_label"] == "http://ex.org/label"
    assert tables.iris["other_label"] == "http://other.org/vocab#label"
    assert tables["age"].dtypes == [pl.String, pl.Int64] and tables["age"].rows() == [("<http://ex.org/a>", 42)]
    assert tables["n"]["c1"].to_list() == [f'"7"^^<{XSD}int>', f'"+8"^^<{XSD}long>']
    assert tables["w"].dtypes[1] == pl.String
    assert tables["ex_label"].dtypes[1] == pl.String and tables["other_label"].rows() == [("<http://ex.org/a>", "_:b1")]


def test_turtle(tmp_path):
    ttl = """@prefix ex: <http://ex.org/> .
ex:a ex:p 1, 2.5, 1e3, "s"@en, ex:b, [ ex:q -3 ] .
ex:a ex:r <rel> .
"""
    df = read_rdf(write(tmp_path / "d.ttl", ttl))["triple"]
    objects = df.filter(pl.col("c1") == "<http://ex.org/p>")["c2"].to_list()
    assert objects[:5] == ["1", f'"2.5"^^<{XSD}decimal>', f'"1e3"^^<{XSD}double>', '"s"@en', "<http://ex.org/b>"]
    blank = objects[5]
    assert blank.startswith("_:") and (blank, "<http://ex.org/q>", "-3") in df.rows()
    assert df["c2"][-1] == f"<{(tmp_path / 'rel').as_uri()}>"


def test_rdf_syntax_error_has_a_location(tmp_path):
    path = write(tmp_path / "bad.nt", "<http://a> <http://b> <http://c> .\n<http://a> <http://b> .\n")
    with pytest.raises(InputError, match="invalid RDF") as info:
        read_rdf(path)
    assert info.value.span.line == 2 and info.value.span.file == str(path)


def test_empty_rdf_file(tmp_path):
    assert read_rdf(write(tmp_path / "e.nt", ""))["triple"].shape == (0, 3)


def test_rdf_without_pyoxigraph(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyoxigraph", None)
    with pytest.raises(InputError, match=r"deltalog\[rdf\]"):
        read_rdf(write(tmp_path / "d.nt", NT))


# ---- directories


def test_read_facts_dir_mixed_formats(tmp_path):
    write(tmp_path / "edge.tsv", "1\t2\n")
    write(tmp_path / "edge.csv", "3,4\n")
    write(tmp_path / "mixed.tsv", "1\n")
    write(tmp_path / "mixed.facts", "x\n")
    pl.DataFrame({"a": ["n1"], "b": [0.5]}).write_parquet(tmp_path / "node.parquet")
    write(tmp_path / "data.nt", "<http://a> <http://b> <http://c> .\n")
    write(tmp_path / "triple.tsv", "<http://x>\t<http://y>\t5\n")
    write(tmp_path / "README.md", "not facts")
    write(tmp_path / ".hidden.tsv", "1\t2\t3\n")
    write(tmp_path / "empty.tsv", "")
    tables = read_facts_dir(tmp_path)
    assert sorted(tables) == ["edge", "mixed", "node", "triple"]   # an empty file of unknown arity: no relation
    assert tables["edge"].rows() == [(3, 4), (1, 2)]  # sorted by file name: edge.csv, edge.tsv
    assert tables["mixed"].dtypes == [pl.String]
    assert sorted(tables["mixed"]["c0"]) == ["1", "x"]
    assert tables["node"].rows() == [("n1", 0.5)]
    assert tables["triple"].rows() == [("<http://a>", "<http://b>", "<http://c>"), ("<http://x>", "<http://y>", "5")]


def test_read_facts_dir_arity_clash(tmp_path):
    write(tmp_path / "p.tsv", "1\t2\n")
    write(tmp_path / "p.csv", "1,2,3\n")
    with pytest.raises(InputError, match="different arities"):
        read_facts_dir(tmp_path)


def test_read_facts_dir_bad_predicate_name(tmp_path):
    write(tmp_path / "my-edge.tsv", "1\t2\n")
    with pytest.raises(InputError, match="not a valid predicate name"):
        read_facts_dir(tmp_path)


def test_read_facts_dir_missing(tmp_path):
    with pytest.raises(InputError, match="no such directory"):
        read_facts_dir(tmp_path / "nope")
