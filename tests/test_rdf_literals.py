"""Issue 10 item 10: RDF literals keep their language tag and datatype through every reader, writer and
both backends; N-Triples output; deterministic predicate names for --rdf-predicates and --rdf-map."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.errors import InputError, ParseError
from deltalog.io.cells import classify, string_cells
from deltalog.io.rdf import read_rdf, read_rdf_files
from deltalog.io.rdf_names import predicate_names, read_rdf_map
from deltalog.io.readers import read_facts_dir
from deltalog.io.writers import cell_strings, write_relations
from deltalog.storage.values import KIND_NAMES, LANGUAGE_TAG, format_value, parse_cell, rdf_literal, value_text
from deltalog.syntax.parser import parse

XSD = "http://www.w3.org/2001/XMLSchema#"
INT, DOUBLE = f"^^<{XSD}int>", f"^^<{XSD}double>"

# ---- the value of an RDF literal ------------------------------------------------------------------

LITERALS = [   # (lexical, language, datatype) -> (kind, value)
    ("chat", "fr", None, ("literal", '"chat"@fr')),
    ("chat", "FR-be", None, ("literal", '"chat"@fr-be')),           # tags are case-insensitive: lower case
    ("1", None, XSD + "int", ("literal", f'"1"{INT}')),              # the datatype is kept
    ("42", None, XSD + "integer", ("int", 42)),                      # canonical xsd:integer: an int
    ("042", None, XSD + "integer", ("literal", f'"042"^^<{XSD}integer>')),   # not canonical: kept as written
    ("99999999999999999999", None, XSD + "integer", ("literal", f'"99999999999999999999"^^<{XSD}integer>')),
    ("1.5", None, XSD + "double", ("float", 1.5)),                   # Python's repr: a float
    ("1.5E0", None, XSD + "double", ("literal", f'"1.5E0"{DOUBLE}')),
    ("-0.0", None, XSD + "double", ("literal", f'"-0.0"{DOUBLE}')),
    ("2.5", None, XSD + "decimal", ("literal", f'"2.5"^^<{XSD}decimal>')),   # decimals are no doubles
    ("x", None, XSD + "string", ("string", "x")),                    # xsd:string is the plain literal
    ("x", None, None, ("string", "x")),
    ('a "q"\t\\', "en", None, ("literal", '"a \\"q\\"\\t\\\\"@en')),
]


@pytest.mark.parametrize("lexical, language, datatype, expected", LITERALS)
def test_the_value_of_an_rdf_literal(lexical, language, datatype, expected):
    assert rdf_literal(lexical, language, datatype) == expected


CELLS = [   # a cell -> the value it reads as: only the canonical text of a literal is a literal
    ('"chat"@fr', ("literal", '"chat"@fr')),
    (f'"1"{INT}', ("literal", f'"1"{INT}')),
    ('"chat"@FR', ("string", '"chat"@FR')),                       # not canonical (upper case): as written
    (f'"42"^^<{XSD}integer>', ("string", f'"42"^^<{XSD}integer>')),   # the int 42 is written 42
    (f'"x"^^<{XSD}string>', ("string", f'"x"^^<{XSD}string>')),
    ('"a\\qb"@en', ("string", '"a\\qb"@en')),                     # an unknown escape
    ('"\\"chat\\"@fr"', ("string", '"chat"@fr')),                 # a quoted string that spells a literal
]


@pytest.mark.parametrize("cell, expected", CELLS)
def test_cells_read_as_literals_only_in_canonical_form(cell, expected):
    assert parse_cell(cell) == expected
    typed = classify(pl.Series([cell]))
    assert KIND_NAMES[typed["kind"][0]] == expected[0]
    assert format_value(*expected) == (cell if expected[0] == "literal" else format_value(*expected))


def test_a_string_spelling_a_literal_is_written_quoted():
    assert string_cells(pl.Series(['"chat"@fr', '"chat"@FR'])).to_list() == ['"\\"chat\\"@fr"', '"chat"@FR']
    assert format_value("string", '"chat"@fr') == '"\\"chat\\"@fr"'


def test_str_of_a_literal_is_its_lexical_form():
    assert value_text("literal", '"a\\tb"@en') == "a\tb"


# ---- literals in programs -------------------------------------------------------------------------

PROGRAM_LITERALS = [
    ('"chat"@fr', ("literal", '"chat"@fr')),
    ('"chat"@FR', ("literal", '"chat"@fr')),
    (f'"1"^^<{XSD}int>', ("literal", f'"1"{INT}')),
    ('"1"^^xsd:int', ("literal", f'"1"{INT}')),
    ('"7"^^xsd:integer', ("int", 7)),
    ('"x"^^xsd:string', ("string", "x")),
    ('"a\\tb"@en', ("literal", '"a\\tb"@en')),
]


@pytest.mark.parametrize("text, expected", PROGRAM_LITERALS)
def test_literals_in_programs(text, expected):
    program = parse(f"@prefix xsd: <{XSD}> .\np({text}).\nq(X) :- p(X), X = {text}.\n")
    fact = program.facts[0].atom.terms[0]
    assert (fact.kind, fact.value) == expected
    assert str(program.rules[0]).endswith(f"= {fact}.")


def test_a_bad_literal_in_a_program_is_a_parse_error():
    with pytest.raises(ParseError, match="undeclared prefix"):
        parse('p("1"^^nope:int).')
    with pytest.raises(ParseError, match="invalid RDF literal"):
        parse('p("x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>).')


def test_literals_compute_and_compare(backend_name):
    r = Reasoner(f"""@prefix xsd: <{XSD}> .
        p("chat"@fr). p("chat"@en). p("1"^^xsd:int). p("chat"). p(<http://x>). p(3).
        fr(X) :- p(X), X = "chat"@fr.
        text(S) :- p(X), S = str(X).
        n(N) :- p(X), X = "1"^^xsd:int, N = int(str(X)) + 1.
        top(M) :- M = max X : {{ p(X) }}.
        """, backend=backend_name)
    r.materialise()
    assert r.relation("fr").rows() == [('"chat"@fr',)]
    assert sorted(r.relation("text")["c0"].to_list()) == ['"1"', '"3"', "chat", "http://x"]
    assert r.relation("n").rows() == [(2,)]
    assert r.relation("top").rows() == [('"chat"@fr',)]   # literals sort last, by their canonical text


# ---- N-Triples in, N-Triples out ------------------------------------------------------------------

NT = f"""<http://a.org/x> <http://a.org/name> "chat"@FR .
<http://a.org/x> <http://b.org/name> "1"^^<{XSD}int> .
<http://a.org/x> <http://a.org/age> "42"^^<{XSD}integer> .
_:b1 <http://a.org/knows> "say \\"hi\\"\\ttab" .
<http://a.org/x> <http://a.org/w> "2.5"^^<{XSD}decimal> .
"""


def test_ntriples_output_reads_back_as_the_same_facts(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "data.nt").write_text(NT)
    program = tmp_path / "t.dl"
    program.write_text("t(S, P, O) :- triple(S, P, O).\n")
    for fmt in ("nt", "tsv"):
        assert main(["run", str(program), "--facts", str(tmp_path / "in"), "--out", str(tmp_path / fmt),
                     "--format", fmt, "--quiet"]) == 0
    assert '<http://a.org/x> <http://a.org/name> "chat"@fr .' in (tmp_path / "nt" / "t.nt").read_text()
    assert read_rdf(tmp_path / "nt" / "t.nt")["triple"].sort("c2").rows() == \
        read_facts_dir(tmp_path / "tsv")["t"].sort("c2").rows()


NT_REFUSALS = [
    (pl.DataFrame({"c0": [1], "c1": [2]}), "arity 3"),
    (pl.DataFrame({"c0": ["plain"], "c1": ["<http://p>"], "c2": [1]}), "subject .* is plain, which is not an IRI"),
    (pl.DataFrame({"c0": ["<http://s>"], "c1": ['"chat"@fr'], "c2": [1]}), "predicate .* not an IRI"),
]


@pytest.mark.parametrize("table, message", NT_REFUSALS, ids=["arity", "subject", "predicate"])
def test_ntriples_output_refuses_what_rdf_cannot_hold(tmp_path, table, message):
    with pytest.raises(InputError, match=message):
        write_relations({"p": table}, tmp_path / "out", format="nt")
    assert not (tmp_path / "out").exists()


# ---- predicate names ------------------------------------------------------------------------------

NAMES = [
    (["http://a.org/name", "http://a.org/age"], None, {"http://a.org/name": "name", "http://a.org/age": "age"}),
    (["http://a.org/name", "http://b.org/name"], None, {"http://a.org/name": "a_name", "http://b.org/name": "b_name"}),
    (["http://www.w3.org/2000/01/rdf-schema#label", "http://xmlns.com/foaf/0.1/label"], None,
     {"http://www.w3.org/2000/01/rdf-schema#label": "w3_label", "http://xmlns.com/foaf/0.1/label": "xmlns_label"}),
    (["http://a.org/name", "http://b.org/name"], {"http://b.org/name": "name"},
     {"http://a.org/name": "a_name", "http://b.org/name": "name"}),
    (["http://a.org/x", "http://b.org/y"], {"http://a.org/x": "xy", "http://b.org/y": "xy"},
     {"http://a.org/x": "xy", "http://b.org/y": "xy"}),
]


@pytest.mark.parametrize("iris, explicit, expected", NAMES)
def test_predicate_names(iris, explicit, expected):
    assert predicate_names(iris, explicit) == expected
    assert predicate_names(list(reversed(iris)), explicit) == expected   # order does not matter


def test_unsettled_name_clashes_are_refused():
    with pytest.raises(InputError, match="--rdf-map"):
        predicate_names(["http://a.org/v1/name", "http://a.org/v2/name"])
    with pytest.raises(InputError, match="--rdf-map"):
        predicate_names(["http://a.org/name"], {"http://b.org/other": "name", "http://c.org/o": "a_name"})


def test_names_do_not_depend_on_file_order(tmp_path):
    first, second = tmp_path / "1.nt", tmp_path / "2.nt"
    first.write_text("<http://s> <http://a.org/name> <http://o> .\n")
    second.write_text("<http://s> <http://b.org/name> <http://o> .\n")
    one = read_rdf_files([first, second], per_predicate=True)
    two = read_rdf_files([second, first], per_predicate=True)
    assert list(one) == list(two) == ["a_name", "b_name"] and one.iris == two.iris


RDF_MAP_ERRORS = [
    ("<http://a>\tname\n<http://a>\tother\n", "mapped twice", 2),
    ("http://a\tnot-a-name\n", "not a valid predicate name", 1),
    ("# names\n\nhttp://a name\n", "an IRI, a tab and a predicate", 3),
]


@pytest.mark.parametrize("text, message, line", RDF_MAP_ERRORS, ids=["twice", "name", "format"])
def test_rdf_map_errors_name_the_line(tmp_path, text, message, line):
    (tmp_path / "map.tsv").write_text(text)
    with pytest.raises(InputError, match=message) as info:
        read_rdf_map(tmp_path / "map.tsv")
    assert info.value.span.line == line


def test_rdf_map_and_predicates_on_both_backends(tmp_path, backend_name):
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "data.nt").write_text(NT)
    (tmp_path / "map.tsv").write_text("<http://b.org/name>\tnumber\n")
    r = Reasoner("out(S, O) :- name(S, O).\nout(S, O) :- number(S, O).\n", backend=backend_name)
    r.load_directory(tmp_path / "facts", rdf_map=tmp_path / "map.tsv")
    r.materialise()
    assert sorted(r.predicates()) == ["age", "knows", "name", "number", "out", "w"]   # mapped: no clash left
    assert sorted(r.relation("out").rows()) == [("<http://a.org/x>", '"1"^^<' + XSD + 'int>'),
                                                ("<http://a.org/x>", '"chat"@fr')]
    assert r.relation("age").rows() == [("<http://a.org/x>", 42)]
    assert r.relation("knows").rows() == [("_:b1", '"say \\"hi\\"\\ttab"')]


# ---- every value through every output format and back ---------------------------------------------

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8)
_LANGUAGE = st.from_regex(LANGUAGE_TAG, fullmatch=True).flatmap(
    lambda tag: st.sampled_from([tag, tag.upper(), tag.title()]))
_DATATYPES = st.sampled_from([XSD + t for t in ("int", "integer", "double", "decimal", "string", "boolean")]
                             + ["http://e.org/my#type"])
_LITERAL = st.one_of(st.builds(rdf_literal, _TEXT, _LANGUAGE), st.builds(lambda t, d: rdf_literal(t, None, d),
                                                                        st.one_of(_TEXT, st.integers().map(str)),
                                                                        _DATATYPES))
# at most one "#": an IRI has one fragment (N-Triples readers refuse a second one)
_IRI = st.from_regex(r"http://e\.org/[a-z0-9_/]{0,6}(#[a-z0-9_/]{0,3})?", fullmatch=True).map(lambda i: ("iri", i))
_VALUE = st.one_of(_LITERAL, _IRI, st.integers(-(2**63), 2**63 - 1).map(lambda i: ("int", i)),
                   st.floats(allow_nan=False, allow_infinity=False).map(lambda f: ("float", f + 0.0)),
                   _TEXT.map(lambda t: ("string", t)),
                   _LITERAL.map(lambda v: ("string", format_value(*v))))      # strings spelling literals
_SUBJECT = st.one_of(_IRI, st.from_regex(r"_:b[0-9]{1,3}", fullmatch=True).map(lambda b: ("string", b)))


def _cells(table: pl.DataFrame) -> set:
    return set(zip(*[cell_strings(table[c]).to_list() for c in table.columns]))


@settings(max_examples=60)   # each example writes and reads four formats
@given(st.lists(st.tuples(_SUBJECT, _IRI, _VALUE), min_size=1, max_size=6))
def test_every_value_round_trips_through_every_format(tmp_path_factory, rows):
    cells = pl.DataFrame([pl.Series(f"c{j}", [format_value(*row[j]) for row in rows], dtype=pl.String)
                          for j in range(3)])
    r = Reasoner("q(S, P, O) :- p(S, P, O).")
    r.load("p", cells, format="cells")
    r.materialise()
    expected = _cells(r.relation("q"))
    assert expected == _cells(cells)
    for fmt in ("tsv", "csv", "parquet", "nt"):
        out = tmp_path_factory.mktemp(fmt)
        write_relations({"q": r.relation("q")}, out, format=fmt)
        back = read_facts_dir(out)
        assert _cells(back["triple" if fmt == "nt" else "q"]) == expected, fmt


CELL_SAMPLES = st.one_of(
    st.integers(-2**63, 2**63 - 1).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from([c for c, _ in CELLS] + ["-0.0", "1.5E0", "007", "<http://e.org/a>", "", "x y", '"q"']),
    st.text(max_size=6),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(CELL_SAMPLES, min_size=1, max_size=30))
def test_a_column_is_typed_cell_by_cell_as_parse_cell_types_each(cells):
    """classify's shortcuts (an all-int column; only float- and literal-shaped cells formatted back)
    agree with the scalar rules on every mix of cells."""
    typed = classify(pl.Series(cells, dtype=pl.String))
    assert [KIND_NAMES[k] for k in typed["kind"]] == [parse_cell(c)[0] for c in cells]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(alphabet='ab_é "<>-07.e\\', max_size=5), min_size=1, max_size=8))
def test_columns_of_names_take_the_plain_shortcut_and_agree_with_parse_cell(cells):
    """Columns where no cell starts like a number, an IRI or a quoted form are typed in one pattern
    match (all strings, text as is); any other column goes the long way: both agree with parse_cell."""
    typed = classify(pl.Series(cells, dtype=pl.String))
    expected = [parse_cell(c) for c in cells]
    assert [KIND_NAMES[k] for k in typed["kind"]] == [kind for kind, _ in expected]
    assert [t for t, (kind, _) in zip(typed["text"], expected) if kind == "string"] == \
        [value for kind, value in expected if kind == "string"]
