"""Issue 10 items 1 and 2: a value is never changed silently, and output files keep each value's kind."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from pathlib import Path

from deltalog import IRI
from deltalog.api import Reasoner
from deltalog.errors import InputError
from deltalog.io.readers import read_table
from deltalog.storage.values import format_value, parse_cell

COPY = "s(X) :- t(X).\n"


def stored(rows, **load) -> set:
    r = Reasoner(COPY)
    r.load("t", rows, **load)
    r.materialise()
    return {row[0] for row in r.backend.typed_rows(relation="s")}


# ---- item 1: text cells are typed only when canonical -------------------------------------------

CELLS = [
    ("42", ("int", 42)), ("-3", ("int", -3)), ("0", ("int", 0)),
    ("007", ("string", "007")), ("-0", ("string", "-0")), ("+5", ("string", "+5")),
    ("1.5", ("float", 1.5)), ("1.50", ("string", "1.50")), ("-0.0", ("string", "-0.0")),
    ("1e+16", ("float", 1e16)), ("1e16", ("string", "1e16")), (".5", ("string", ".5")),
    ("1e400", ("string", "1e400")), ("nan", ("string", "nan")), ("inf", ("string", "inf")),
    ("<http://x>", ("iri", "http://x")), ("<a b>", ("string", "<a b>")),
    ('"42"', ("string", "42")), ('"a\\tb"', ("string", "a\tb")), ('"<http://x>"', ("string", "<http://x>")),
    ("alice", ("string", "alice")), ('"unterminated', ("string", '"unterminated')),
]


@pytest.mark.parametrize("cell, value", CELLS)
def test_a_text_cell_is_typed_only_by_its_canonical_form(tmp_path, cell, value):
    (tmp_path / "t.tsv").write_text(f"{cell}\n")
    assert parse_cell(cell) == value
    assert stored(tmp_path / "t.tsv") == {value}


def test_a_huge_int_cell_is_refused_naming_file_row_and_column(tmp_path):
    (tmp_path / "t.tsv").write_text("1\tx\n2\t99999999999999999999\n")
    with pytest.raises(InputError, match=r"t\.tsv: column 2, row 2: integer 99999999999999999999 does not fit"):
        read_table(tmp_path / "t.tsv")


# ---- item 1: Python values and DataFrame dtypes are respected -----------------------------------

PYTHON = [
    ("007", ("string", "007")), ("42", ("string", "42")), ("1.50", ("string", "1.50")),
    ("<http://x>", ("string", "<http://x>")), (IRI("http://x"), ("iri", "http://x")),
    (7, ("int", 7)), (1.5, ("float", 1.5)), (1.0, ("float", 1.0)), ("", ("string", "")),
]


@pytest.mark.parametrize("value, expected", PYTHON)
def test_python_values_keep_their_kind(value, expected):
    assert stored([(value,)]) == {expected}


def test_mixed_python_rows_keep_int_and_float():
    r = Reasoner("q(X) :- p(X, 1).\n")
    r.load("p", [(9, 1), (10, 1.5)])
    r.materialise()
    assert r.relation("q").rows() == [(9,)]


@pytest.mark.parametrize("value, message", [
    (2**70, "does not fit 64 bits"), (float("nan"), "NaN"), (float("inf"), "NaN and infinities"),
    (None, "None is no value"), (object(), "no constant kind"),
])
def test_unrepresentable_python_values_are_refused(value, message):
    with pytest.raises(InputError, match=f"row 2, column 1: .*{message}|row 2, column 1.*{message}"):
        stored([(1,), (value,)])


@pytest.mark.parametrize("frame, expected", [
    (pl.DataFrame({"a": ["42", "007"]}), {("string", "42"), ("string", "007")}),
    (pl.DataFrame({"a": [42]}), {("int", 42)}),
    (pl.DataFrame({"a": [4.0]}), {("float", 4.0)}),
])
def test_a_dataframe_dtype_is_respected(frame, expected):
    assert stored(frame) == expected


@pytest.mark.parametrize("frame, message", [
    (pl.DataFrame({"a": [1.0, float("nan")]}), "row 2: nan is no value"),
    (pl.DataFrame({"a": ["x", None]}), "row 2, column 1 .*null"),
    (pl.DataFrame({"a": pl.Series([2**64 - 1], dtype=pl.UInt64)}), "does not fit 64 bits"),
])
def test_unrepresentable_dataframe_values_are_refused(frame, message):
    with pytest.raises(InputError, match=message):
        stored(frame)


def test_nan_facts_cannot_exist_so_every_fact_can_be_deleted():
    r = Reasoner(COPY)
    with pytest.raises(InputError):
        r.load("t", [(float("nan"),)])


def test_relation_output_loads_back_unchanged_with_format_cells():
    rows = [("7",), (7,), (IRI("http://x"),), ("<http://x>",), (1.5,)]
    r = Reasoner(COPY)
    r.load("t", rows)
    r.materialise()
    assert stored(r.relation("s"), format="cells") == stored(rows)


# ---- item 2: output keeps kinds -------------------------------------------------------------------

def written(tmp_path, fmt: str, rows) -> tuple[set, Path]:
    r = Reasoner(COPY)
    r.load("t", rows)
    r.materialise()
    r.write(tmp_path / "out", format=fmt, predicates=["s"])
    return stored(tmp_path / "out" / f"s.{fmt}"), tmp_path / "out" / f"s.{fmt}"


def test_string_and_int_seven_write_two_different_lines(tmp_path):
    facts, path = written(tmp_path, "tsv", [("7",), (7,)])
    assert sorted(path.read_text().splitlines()) == ['"7"', "7"]
    assert facts == {("string", "7"), ("int", 7)}


def test_parquet_columns_are_typed_or_tagged(tmp_path):
    r = Reasoner("s(X, Y, Z, W) :- t(X, Y, Z, W).\n")
    r.load("t", [(1, 1.5, "a", "x"), (2, 2.5, "42", IRI("http://x"))])
    r.materialise()
    r.write(tmp_path, format="parquet", predicates=["s"])
    df = pl.read_parquet(tmp_path / "s.parquet")
    assert df.columns == ["c0", "c1", "c2", "c3:cells"]
    assert df.dtypes == [pl.Int64, pl.Float64, pl.String, pl.String]
    assert sorted(df["c2"]) == ["42", "a"] and sorted(df["c3:cells"]) == ["<http://x>", "x"]


# ---- round trip (Hypothesis): every kind, every format ---------------------------------------------

texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8)
values = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f + 0.0),
    texts, st.sampled_from(["7", "1.5", "-0", "007", "<http://x>", '"q"', "", "a\tb", "\\", "1e400"]),
    st.from_regex(r"[a-z]{1,5}://[a-z.]{1,6}", fullmatch=True).map(IRI),
)


def kind_of(v) -> tuple:
    if isinstance(v, IRI):
        return ("iri", str(v))
    if isinstance(v, str):
        return ("string", v)
    return ("int", v) if isinstance(v, int) else ("float", v)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(values, values), min_size=1, max_size=6))
def test_values_round_trip_through_every_format(tmp_path_factory, rows):
    expected = {(kind_of(a), kind_of(b)) for a, b in rows}
    for fmt in ("tsv", "csv", "parquet"):
        out = tmp_path_factory.mktemp(fmt)
        r = Reasoner("s(X, Y) :- t(X, Y).\n")
        r.load("t", rows)
        r.materialise()
        r.write(out, format=fmt, predicates=["s"])
        back = Reasoner("s(X, Y) :- t(X, Y).\n")
        back.load("t", out / f"s.{fmt}")
        back.materialise()
        assert back.backend.typed_rows(relation="s") == expected, fmt


@given(values)
def test_format_value_and_parse_cell_are_inverse(v):
    kind, value = kind_of(v)
    assert parse_cell(format_value(kind, value)) == (kind, value)
