"""Issue 10 item 3: ``@decl`` declarations with names and types, checked at analysis and at load."""

from __future__ import annotations

import polars as pl
import pytest

from deltalog import IRI
from deltalog.analysis import analyse
from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.errors import ArityError, DeclarationError, InputError, ParseError, TypeCheckError
from deltalog.syntax import parse

EDGE = "@decl edge(src: int, dst: string).\n"


def stored(reasoner: Reasoner, predicate: str) -> set:
    return reasoner.backend.typed_rows(relation=predicate)


# ---- syntax and analysis ---------------------------------------------------------------------

def test_a_declaration_parses_with_names_types_and_spans():
    decl = parse("@decl edge(src: int, dst : string)\n@decl flag().").declarations
    assert [(d.predicate, d.names, d.types) for d in decl] == [("edge", ("src", "dst"), ("int", "string")),
                                                                ("flag", (), ())]
    assert (decl[0].attributes[1].span.line, decl[0].attributes[1].span.column) == (1, 28)
    assert str(decl[0]) == "@decl edge(src: int, dst: string) ."


@pytest.mark.parametrize("text, error, where, message", [
    ("@decl edge(src int).", ParseError, "1:16", "expected ':'"),
    ("@decl edge(src: int", ParseError, "1:20", "expected one of"),
    ("@decl e(a: int).\n@decl e(b: int).", DeclarationError, "2:1", "declared twice"),
    ("@decl e(a: integer).", DeclarationError, "1:12", "unknown type 'integer'"),
    ("@decl e(a: int, a: float).", DeclarationError, "1:20", "appears twice"),
    ("@decl e(a: int).\ne(1, 2).", ArityError, "1:1", "declared with 1 attributes but used with arity 2"),
    ("@decl e(a: int).\ne(\"1\").", TypeCheckError, "2:3", 'the fact e gives a (int, column 1) the string "1"'),
    ("@decl e(a: int, b: float).\ne(1, 2).", TypeCheckError, "2:6", "the int 2"),
    ("@decl e(a: iri).\ne(x) :- f(_).", TypeCheckError, "2:3", "rule head e gives a (iri, column 1) the string x"),
    ("@decl f(a: string).\n@decl e(a: int).\ne(X) :- f(X).", TypeCheckError, "3:3",
     "X is string here, but e.a (column 1) is declared int"),
    ("@decl e(a: int).\ne(X) :- f(Y), X = concat(Y, \"!\").", TypeCheckError, "2:3", "X is string here"),
    ("@decl e(a: string).\ne(N) :- N = count : { f(_) }.", TypeCheckError, "2:3", "N is int here"),
])
def test_declaration_errors_name_their_place(text, error, where, message):
    with pytest.raises(error) as raised:
        analyse(parse(text))
    assert f"<string>:{where}" in str(raised.value) and message in str(raised.value)


@pytest.mark.parametrize("text, unproven", [
    (EDGE + "@decl p(a: int, b: string).\np(X, Y) :- edge(X, Y).", {}),                # proven by edge
    (EDGE + "@decl p(a: number).\np(X) :- edge(X, _).", {}),                          # int fits number
    ("@decl p(a: int, b: any).\np(X, Y) :- q(X, Y).", {"p": (0,)}),                   # q is undeclared
    ("@decl n(a: number).\n@decl p(a: int).\np(X) :- n(X).", {"p": (0,)}),             # a float may come
    ("@decl p(a: float).\np(A) :- A = avg X : { q(X) }.", {}),
    ("@decl p(a: int).\np(X) :- q(Y), X = Y * 2.", {"p": (0,)}),                       # int or float
])
def test_head_columns_not_proven_are_checked_at_run_time(text, unproven):
    assert dict(analyse(parse(text)).unproven) == unproven


def test_a_declared_predicate_without_uses_has_its_arity():
    assert analyse(parse(EDGE)).arities["edge"] == 2


# ---- text cells ------------------------------------------------------------------------------

@pytest.mark.parametrize("type_name, cell, value", [
    ("string", "007", ("string", "007")),
    ("string", "42", ("string", "42")),
    ("string", "1.5", ("string", "1.5")),
    ("string", '"x"', ("string", '"x"')),          # exactly as written: the quotes are the string's
    ("string", "<http://x>", ("string", "<http://x>")),
    ("int", "42", ("int", 42)),
    ("int", "-7", ("int", -7)),
    ("int", "007", ("int", 7)),                   # declared int: the number, whatever its spelling
    ("float", "1.50", ("float", 1.5)),
    ("float", "2", ("float", 2.0)),
    ("float", "-0.0", ("float", 0.0)),
    ("number", "3", ("int", 3)),
    ("number", "3.0", ("float", 3.0)),
    ("iri", "<http://x>", ("iri", "http://x")),
    ("iri", "http://x", ("iri", "http://x")),
    ("any", "007", ("string", "007")),
    ("any", "42", ("int", 42)),
])
def test_a_declared_text_column_is_typed_by_its_declaration(tmp_path, type_name, cell, value):
    (tmp_path / "p.tsv").write_text(f"{cell}\t1\n")
    reasoner = Reasoner(f"@decl p(a: {type_name}, n: int).")
    reasoner.load("p", tmp_path / "p.tsv")
    assert stored(reasoner, "p") == {(value, ("int", 1))}


@pytest.mark.parametrize("type_name, cell, message", [
    ("int", "1.5", "'1.5' is not an int"),
    ("int", "abc", "'abc' is not an int"),
    ("int", "", "'' is not an int"),
    ("int", "99999999999999999999", "does not fit 64 bits"),
    ("float", "abc", "'abc' is not a number"),
    ("float", "1e400", "is no value"),
    ("number", "nan", "'nan' is not a number"),
    ("iri", "a b", "is not an IRI"),
])
def test_a_bad_cell_is_refused_with_file_line_and_column(tmp_path, type_name, cell, message):
    path = tmp_path / "p.tsv"
    path.write_text(f"x\t1\n\ny\t{cell}\n")
    with pytest.raises(InputError) as raised:
        Reasoner(f"@decl p(s: string, a: {type_name}).").load("p", path)
    assert f"{path}:3:3:" in str(raised.value)
    assert message in str(raised.value) and f"p.a (column 2) is declared {type_name}" in str(raised.value)


def test_a_bad_csv_cell_is_located_past_quoted_commas(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text('"a,b",1\n"c,d",x\n')
    with pytest.raises(InputError, match=rf"{path}:2:7: error: 'x' is not an int"):
        Reasoner("@decl p(s: string, a: int).").load("p", path)


def test_declared_files_are_typed_on_both_backends(tmp_path, backend_name):
    (tmp_path / "edge.tsv").write_text('1\t007\n2\t"x"\n3\t42\n')
    pl.DataFrame({"dst": ["a"], "src": [7]}).write_parquet(tmp_path / "e2.parquet")   # by name
    program = EDGE + "@decl e2(src: int, dst: string).\npath(X, Y) :- edge(X, Y).\npath(X, Y) :- e2(X, Y)."
    reasoner = Reasoner(program, backend=backend_name)
    reasoner.load_directory(tmp_path)
    reasoner.materialise()
    assert stored(reasoner, "path") == {(("int", 1), ("string", "007")), (("int", 2), ("string", '"x"')),
                                        (("int", 3), ("string", "42")), (("int", 7), ("string", "a"))}
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "edge.tsv").write_text("1\ta\n2.5\tb\n")
    with pytest.raises(InputError, match=r"edge\.tsv:2:1: error: '2\.5' is not an int"):
        Reasoner(EDGE, backend=backend_name).load_directory(tmp_path / "bad")


# ---- typed tables ----------------------------------------------------------------------------

@pytest.mark.parametrize("frame, expected", [
    (pl.DataFrame({"src": [1], "dst": ["7"]}), {(("int", 1), ("string", "7"))}),
    (pl.DataFrame({"dst": ["7"], "src": [1]}), {(("int", 1), ("string", "7"))}),          # by name
    (pl.DataFrame({"a": [1], "b": ["x"]}), {(("int", 1), ("string", "x"))}),              # by position
    (pl.DataFrame({"src": pl.Series([1], dtype=pl.Int8), "dst": ["<x>"]}), {(("int", 1), ("string", "<x>"))}),
])
def test_a_dataframe_is_matched_by_name_or_position(frame, expected):
    reasoner = Reasoner(EDGE)
    reasoner.load("edge", frame)
    assert stored(reasoner, "edge") == expected


@pytest.mark.parametrize("data, message", [
    (pl.DataFrame({"src": ["1"], "dst": ["x"]}), "dtype String, but the attribute is declared int"),
    (pl.DataFrame({"src": [1.0], "dst": ["x"]}), "dtype Float64, but the attribute is declared int"),
    (pl.DataFrame({"src": [1], "dst": [2]}), "dtype Int64, but the attribute is declared string"),
    (pl.DataFrame({"src": [1], "dst": [None]}, schema={"src": pl.Int64, "dst": pl.String}), "a null is no value"),
    ([(1.5, "x")], "1.5 is a float, not int"),
    ([(1, 2)], "2 is an int, not string"),
    ([(1, IRI("http://x"))], "is not string"),
])
def test_a_table_that_does_not_fit_is_refused(data, message):
    with pytest.raises(InputError, match=message):
        Reasoner(EDGE).load("edge", data)


def test_python_rows_of_the_declared_kinds_load():
    reasoner = Reasoner("@decl p(a: number, b: iri, c: any).")
    reasoner.load("p", [(1, IRI("http://x"), "1"), (2.5, IRI("http://y"), 1)])
    assert stored(reasoner, "p") == {(("int", 1), ("iri", "http://x"), ("string", "1")),
                                     (("float", 2.5), ("iri", "http://y"), ("int", 1))}


# ---- output ----------------------------------------------------------------------------------

def test_relation_has_the_declared_names_and_query_the_variables():
    reasoner = Reasoner(EDGE + "@decl path(from: int, to: string).\npath(X, Y) :- edge(X, Y).")
    reasoner.load("edge", [(1, "42"), (2, "x")])
    reasoner.materialise()
    path = reasoner.relation("path")
    assert path.columns == ["from", "to"] and path.dtypes == [pl.Int64, pl.String]
    assert sorted(path.rows()) == [(1, "42"), (2, "x")]          # the strings themselves, not quoted
    assert reasoner.query("path(X, Y)").columns == ["X", "Y"]
    empty = Reasoner("@decl p(a: int, b: float).").relation("p")
    assert empty.columns == ["a", "b"] and empty.dtypes == [pl.Int64, pl.Float64]


def test_declared_output_round_trips_through_every_format(tmp_path):
    program = "@decl p(a: int, b: string, c: iri, d: number).\n"
    rows = [(1, "007", IRI("http://x"), 2), (2, '"q"', IRI("http://y"), 2.5), (3, "42", IRI("http://z"), 3)]
    reasoner = Reasoner(program)
    reasoner.load("p", rows)
    expected = stored(reasoner, "p")
    for fmt in ("tsv", "csv", "parquet"):
        reasoner.write(tmp_path / fmt, format=fmt, predicates=["p"])
        again = Reasoner(program)
        again.load("p", tmp_path / fmt / f"p.{fmt}")
        assert stored(again, "p") == expected, fmt
    written = pl.read_parquet(tmp_path / "parquet" / "p.parquet")
    assert written.columns == ["a", "b", "c:cells", "d:cells"] and written.dtypes[:2] == [pl.Int64, pl.String]
    assert (tmp_path / "tsv" / "p.tsv").read_text().splitlines()[1] == '2\t"q"\t<http://y>\t2.5'


def test_an_empty_string_cannot_be_a_line_of_a_one_column_tsv(tmp_path):
    reasoner = Reasoner("@decl p(a: string).")
    reasoner.load("p", [("",)])
    with pytest.raises(InputError, match="empty string"):
        reasoner.write(tmp_path, predicates=["p"])


# ---- derived facts ---------------------------------------------------------------------------

def test_a_rule_deriving_a_misfit_fails_the_materialisation(backend_name):
    reasoner = Reasoner("@decl p(a: int).\np(X) :- q(X).", backend=backend_name)
    reasoner.load("q", [(1,), ("a",)])
    with pytest.raises(TypeCheckError, match=r"derived the string 'a' into p\.a \(column 1\), which is declared int"):
        reasoner.materialise()


def test_an_update_deriving_a_misfit_is_rolled_back():
    reasoner = Reasoner("@decl p(a: int).\np(X) :- q(X).")
    reasoner.load("q", [(1,)])
    reasoner.materialise()
    with pytest.raises(TypeCheckError, match="derived the string 'zz'"):
        reasoner.update(add={"q": [("zz",)]})
    assert stored(reasoner, "p") == {(("int", 1),)} and stored(reasoner, "q") == {(("int", 1),)}
    reasoner.update(add={"q": [(2,)]})
    assert stored(reasoner, "p") == {(("int", 1),), (("int", 2),)}


@pytest.mark.parametrize("algorithm", ["dred", "counting", "remat", "auto"])
def test_a_refused_update_that_deleted_most_of_a_relation_keeps_every_fact(backend_name, algorithm):
    """The update deletes 6 of e's 10 facts (past half its rows: worth compacting) and then fails the
    check of its derived facts: the rollback needs the deleted rows, so they are not compacted away
    before the update is accepted (they were, and e and r lost 0..5 for good)."""
    reasoner = Reasoner("@decl p(a: int).\np(X) :- q(X).\nr(X) :- e(X).\n" + "".join(f"e({i}).\n" for i in range(10)),
                        backend=backend_name)
    reasoner.materialise()
    with pytest.raises(TypeCheckError, match="derived the string 'x'"):
        reasoner.update(add={"q": [("x",)]}, delete={"e": [(i,) for i in range(6)]}, algorithm=algorithm)
    every = {(("int", i),) for i in range(10)}
    assert stored(reasoner, "e") == every and stored(reasoner, "r") == every and not stored(reasoner, "p")
    reasoner.update(delete={"e": [(i,) for i in range(6)]}, algorithm=algorithm)
    assert stored(reasoner, "e") == stored(reasoner, "r") == {(("int", i),) for i in range(6, 10)}


def test_undeclared_predicates_keep_todays_behaviour():
    reasoner = Reasoner(EDGE + "path(X, Y) :- edge(X, Y).")
    reasoner.load("edge", [(1, "42")])
    reasoner.materialise()
    assert reasoner.relation("path").columns == ["c0", "c1"]
    assert reasoner.relation("path").rows() == [(1, '"42"')]


def test_check_lists_the_declarations(tmp_path, capsys):
    program = tmp_path / "p.dl"
    program.write_text(EDGE + "@decl p(a: int, b: string).\np(X, Y) :- q(X, Y).\n")
    assert main(["check", str(program)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == ["@decl edge(src: int, dst: string)",
                       "@decl p(a: int, b: string)  (checked on derived facts: a, b)"]
