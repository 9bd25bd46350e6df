"""Tests of the concrete syntax: every construct, every syntax error, spans, large inputs, print/parse round trip."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltalog.errors import ParseError
from deltalog.syntax import parse, parse_atom, parse_file
from deltalog.syntax.ast import (
    AGGREGATE_FUNCTIONS, COMPARISON_OPERATORS, KEYWORDS, Aggregate, Atom, BinaryOp, Call, Comparison,
    Constant, Negation, Span, Variable,
)
from deltalog.syntax.statements import Fact, InputDirective, OutputDirective, Program, Rule

X, Y, Z = Variable("X"), Variable("Y"), Variable("Z")


def c(value, kind=None) -> Constant:
    kinds = {int: "int", float: "float", str: "string"}
    return Constant(value, kind or kinds[type(value)])


def rule(text: str) -> Rule:
    program = parse(text)
    assert len(program.rules) == 1 and not program.facts
    return program.rules[0]


def body(text: str) -> tuple:
    return rule(f"h :- {text}.").body


def fact_terms(text: str) -> tuple:
    return parse(text).facts[0].atom.terms


# ---------------------------------------------------------------- facts and constants


@pytest.mark.parametrize("literal, expected", [
    ("42", c(42)), ("-3", c(-3)), ("0", c(0)), ("1.5", c(1.5)), ("-2e3", c(-2000.0)), (".5", c(0.5)),
    ("6.02E+23", c(6.02e23)), ("1e-05", c(1e-05)), ('"Alice"', c("Alice")), ("alice", c("alice")),
    ('"a\\"b\\\\c\\nd\\te\\rf"', c('a"b\\c\nd\te\rf')), ("<http://ex.org/a>", c("http://ex.org/a", "iri")),
    ("_x", c("_x")), ('"count"', c("count")), ("count", c("count")),
    ("9223372036854775807", c(2**63 - 1)), ("-9223372036854775808", c(-(2**63))),
])
def test_constants_in_facts(literal, expected):
    for text in (f"p({literal}).", f"p(\n  {literal}\n)."):  # the fast path and the general one
        (term,) = fact_terms(text)
        assert term == expected and type(term.value) is type(expected.value)


def test_one_and_one_point_zero_are_different_constants():
    assert fact_terms("p(1, 1.0).") == (c(1), c(1.0)) and c(1) != c(1.0)


def test_fact_source_order_and_kinds():
    program = parse("edge(1, 2).\nedge(2, 3).\n p(a). q(). r.")
    assert [str(f) for f in program.facts] == ["edge(1, 2).", "edge(2, 3).", "p(a).", "q().", "r()."]
    assert all(isinstance(f, Fact) for f in program.facts) and program.rules == ()


def test_zero_arity_atoms_everywhere():
    r = rule("p :- q(), not r, s.")
    assert r.head == Atom("p", ()) and r.body == (Atom("q", ()), Negation(Atom("r", ())), Atom("s", ()))


def test_prefixed_names_expand_in_order():
    program = parse("@prefix ex: <http://ex.org/> .\n@prefix : <http://d.org/>\np(ex:a, :b).\n"
                    "@prefix ex: <http://other/> .\nq(X) :- r(X, ex:a).")
    assert program.facts[0].atom.terms == (c("http://ex.org/a", "iri"), c("http://d.org/b", "iri"))
    assert program.rules[0].body[0].terms[1] == c("http://other/a", "iri")
    assert program.prefixes == (("ex", "http://ex.org/"), ("", "http://d.org/"), ("ex", "http://other/"))


def test_parse_atom_prefixes_argument():
    assert parse_atom("p(ex:a)", prefixes=[("ex", "http://e/")]).terms == (c("http://e/a", "iri"),)


# ---------------------------------------------------------------- rules, variables, labels


def test_rule_with_every_kind_of_literal():
    r = rule("head(X, Y) :- b1(X, Z), b2(Z, Y), not n(X, Y), X != Y.")
    assert r.head == Atom("head", (X, Y))
    assert r.body == (Atom("b1", (X, Z)), Atom("b2", (Z, Y)), Negation(Atom("n", (X, Y))), Comparison("!=", X, Y))


def test_variables_question_mark_and_anonymous():
    r = rule("p(?x, Y) :- q(?x, _, Y, _), not r(_).\n")
    assert r.head.terms[0] == Variable("?x")
    anonymous = [r.body[0].terms[1], r.body[0].terms[3], r.body[1].atom.terms[0]]
    assert [v.name for v in anonymous] == ["_0", "_1", "_2"] and all(v.anonymous for v in anonymous)
    assert str(r) == "p(?x, Y) :- q(?x, _, Y, _), not r(_)."


def test_anonymous_numbering_restarts_per_rule():
    program = parse("p(X) :- q(X, _).\np(X) :- r(X, _).")
    assert [r.body[0].terms[1].name for r in program.rules] == ["_0", "_0"]


def test_uppercase_predicates_need_a_parenthesis():
    r = rule("SensorAnomalyWindTurbine(X) :- MoreThan3Neighbours (X), Foo(X) > 3, X = Bar.")
    assert r.head.predicate == "SensorAnomalyWindTurbine" and r.body[0] == Atom("MoreThan3Neighbours", (X,))
    assert r.body[1] == Comparison(">", Call("Foo", (X,)), c(3)) and r.body[2] == Comparison("=", X, Variable("Bar"))


def test_keywords_can_be_predicate_and_function_names():
    program = parse("count(1).\nmin(X) :- count(X), not sum(X), Y = max(X, 2), Y > min(X, 1).")
    assert program.facts[0].atom.predicate == "count"
    r = program.rules[0]
    assert r.head.predicate == "min" and r.body[0] == Atom("count", (X,)) and r.body[1] == Negation(Atom("sum", (X,)))
    assert r.body[2] == Comparison("=", Y, Call("max", (X, c(2))))


@pytest.mark.parametrize("text", ["r1: p(X) :- q(X).", "r1 : p(X) :- q(X).", "@name r1\np(X) :- q(X).",
                                  "@name r1 .\np(X) :- q(X).", "r1:p(X) :- q(X)."])
def test_rule_labels(text):
    assert rule(text).label == "r1"


def test_label_may_equal_a_predicate_or_keyword():
    assert rule("pc: pc(X) :- q(X).").label == "pc" and rule("count: p(X) :- q(X).").label == "count"


def test_identifiers_that_start_with_keywords_are_names():
    r = body("notable(X), counter(X), Z = minimum, W = county")
    assert [lit.predicate for lit in r[:2]] == ["notable", "counter"] and r[2].right == c("minimum")


def test_zero_arity_head_is_not_a_label():
    r = rule("r1 :- q.")
    assert r.label is None and r.head == Atom("r1", ())


def test_windows_line_endings_and_byte_order_mark(tmp_path):
    text = "edge(1, 2).\r\nedge(2, 3). % c\r\np(X, Y) :- edge(X, Y),\r\n  X < Y. // c\r\n"
    path = tmp_path / "crlf.dl"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    program = parse_file(path)
    assert program == parse(text, source_name=str(path)) and len(program.facts) == 2
    assert program.facts[1].span.line == 2 and program.rules[0].span.line == 3


def test_raw_carriage_return_in_a_string_survives_a_file(tmp_path):
    program = Program(facts=(Fact(Atom("p", (c("a\rb"),))),))
    path = tmp_path / "cr.dl"
    path.write_text(str(program), encoding="utf-8", newline="")
    assert parse_file(path).facts == program.facts


def test_comments_both_styles():
    program = parse("% a comment\nedge(1, 2). // another\n// p(1).\n% q(1).\nr(X) :- edge(X, _), % end\n  X > 1.")
    assert len(program.facts) == 1 and len(program.rules) == 1


# ---------------------------------------------------------------- comparisons and expressions


@pytest.mark.parametrize("op", COMPARISON_OPERATORS)
def test_comparison_operators(op):
    assert body(f"p(X), X {op} 3") [1] == Comparison(op, X, c(3))


def test_assignment_is_a_comparison():
    assert body("p(X), Y = X + 1")[1] == Comparison("=", Y, BinaryOp("+", X, c(1)))


def test_precedence_and_associativity():
    e = body("p(X), Y = 1 + 2 * X - 8 / 4 % 3")[1].right
    assert e == BinaryOp("-", BinaryOp("+", c(1), BinaryOp("*", c(2), X)),
                         BinaryOp("%", BinaryOp("/", c(8), c(4)), c(3)))
    assert body("p(X), Y = (1 + 2) * X")[1].right == BinaryOp("*", BinaryOp("+", c(1), c(2)), X)


def test_unary_minus_on_numbers_and_binary_minus():
    assert body("p(X), Y = X - -3")[1].right == BinaryOp("-", X, c(-3))
    assert body("p(X), Y = X -3")[1].right == BinaryOp("-", X, c(3))
    assert body("p(X), Y = -1.5 * X")[1].right == BinaryOp("*", c(-1.5), X)


def test_modulo_after_a_value_and_comment_elsewhere():
    assert body("p(Q), Q % 2 = 0")[1] == Comparison("=", BinaryOp("%", Variable("Q"), c(2)), c(0))
    assert body("p(Q), % a comment\n Q > 0")[1] == Comparison(">", Variable("Q"), c(0))


def test_function_calls_known_and_unknown():
    r = body('p(T, M), D = abs(T - M), S = concat("a", str(D), x), U = sqrt(D), V = f()')
    T, M, D = Variable("T"), Variable("M"), Variable("D")
    assert r[1].right == Call("abs", (BinaryOp("-", T, M),))
    assert r[2].right == Call("concat", (c("a"), Call("str", (D,)), c("x")))
    assert r[3].right == Call("sqrt", (D,)) and r[4].right == Call("f", ())


def test_comparison_with_constants_and_calls_on_the_left():
    r = body('p(X), alice = X, "b" < X, -3 <= X, <http://a> != X, int(X) = int(Y)')
    assert [lit.left for lit in r[1:]] == [c("alice"), c("b"), c(-3), c("http://a", "iri"), Call("int", (X,))]


# ---------------------------------------------------------------- aggregates


@pytest.mark.parametrize("fn", AGGREGATE_FUNCTIONS)
def test_aggregate_functions(fn):
    r = rule(f"agg(X, A) :- A = {fn} T : {{ hasNeighbour(X, Y), temp(Y, T) }}.")
    T, A = Variable("T"), Variable("A")
    assert r.body == (Aggregate(A, fn, T, (Atom("hasNeighbour", (X, Y)), Atom("temp", (Y, T)))),)


def test_count_without_argument_and_aggregate_next_to_literals():
    r = rule("busy(X, N) :- node(X), N = count : { edge(X, _), not bad(X) }, N > 3.")
    N = Variable("N")
    assert r.body[0] == Atom("node", (X,)) and r.body[2] == Comparison(">", N, c(3))
    agg = r.body[1]
    assert agg.result == N and agg.function == "count" and agg.arg is None
    assert agg.body == (Atom("edge", (X, Variable("_0"))), Negation(Atom("bad", (X,))))


def test_aggregates_without_spaces_around_the_colon():
    r = body("q(X, Y), N = count:{ q(X, _) }, M = sum Y:{q(X, Y)}")
    assert (r[1].function, r[1].arg, r[2].function, r[2].arg) == ("count", None, "sum", Y)


def test_min_aggregate_versus_min_call():
    r = body("p(A, B), M = min X : { q(X) }, K = min(A, B)")
    assert isinstance(r[1], Aggregate) and r[1].function == "min" and r[1].arg == X
    assert r[2] == Comparison("=", Variable("K"), Call("min", (Variable("A"), Variable("B"))))


# ---------------------------------------------------------------- directives and program structure


@pytest.mark.parametrize("text, expected", [
    ('@input edge "edge.tsv"', InputDirective("edge", "edge.tsv")),
    ('@input edge "e.csv" csv', InputDirective("edge", "e.csv", "csv")),
    ('@input edge "e.csv" csv .', InputDirective("edge", "e.csv", "csv")),
    ('@input Edge "a\\"b.tsv".', InputDirective("Edge", 'a"b.tsv')),
])
def test_input_directives(text, expected):
    assert parse(text).inputs == (expected,)


def test_format_word_must_be_on_the_path_line():
    program = parse('@input edge "e.tsv"\ncsv(1).')
    assert program.inputs == (InputDirective("edge", "e.tsv"),) and program.facts[0].atom.predicate == "csv"


def test_directives_without_dots_then_statements():
    program = parse("@output path\n@output MoreThan3Neighbours .\npath(X, Y) :- edge(X, Y).\n@output edge")
    assert program.outputs == (OutputDirective("path"), OutputDirective("MoreThan3Neighbours"), OutputDirective("edge"))


def test_program_fields_and_source_name():
    program = parse("@output p\np(1).\np(X) :- q(X).", source_name="prog.dl")
    assert program.source_name == "prog.dl" and len(program.facts) == len(program.rules) == 1
    assert program.rules[0].span.file == "prog.dl" and program.facts[0].span.file == "prog.dl"


def test_empty_program():
    assert parse("") == Program() and parse("  % only a comment\n") == Program()


def test_parse_file_uses_the_path_as_given(tmp_path):
    path = tmp_path / "p.dl"
    path.write_text("p(1).\nq(X) :- p(X).\n", encoding="utf-8")
    program = parse_file(path)
    assert program.source_name == str(path) and program.rules[0].span == Span(str(path), 2, 1, 2, 14)
    assert parse_file(str(path)).source_name == str(path)


@pytest.mark.parametrize("text", ["path(1, Y)", "path(1, Y)?", "path(1,?y).", "  path(1, Y) ? "])
def test_parse_atom_forms(text):
    atom = parse_atom(text)
    assert atom.predicate == "path" and atom.terms[0] == c(1) and isinstance(atom.terms[1], Variable)
    assert atom.span.file == "<query>"


def test_parse_atom_zero_arity_and_anonymous():
    assert parse_atom("p") == Atom("p", ()) and parse_atom("q(_, _)").terms == (Variable("_0"), Variable("_1"))


# ---------------------------------------------------------------- spans


def test_spans_of_rule_nodes():
    r = parse("\n  r1: p(X, Y) :-\n    q(X, 10), X < Y + 1.\n", source_name="s.dl").rules[0]
    assert r.span == Span("s.dl", 2, 3, 3, 25)
    assert r.head.span == Span("s.dl", 2, 7, 2, 14) and r.head.terms[1].span == Span("s.dl", 2, 12, 2, 13)
    q, comparison = r.body
    assert q.span == Span("s.dl", 3, 5, 3, 13) and q.terms[1].span == Span("s.dl", 3, 10, 3, 12)
    assert comparison.span == Span("s.dl", 3, 15, 3, 24) and comparison.right.span == Span("s.dl", 3, 19, 3, 24)


def test_spans_of_fast_path_facts():
    program = parse('x(1).\n  edge(1, "two").  e(-3, <i>).\n')
    fact = program.facts[1]
    assert fact.span == Span("<string>", 2, 3, 2, 18) and fact.atom.span == Span("<string>", 2, 3, 2, 17)
    assert [t.span.column for t in fact.atom.terms] == [8, 11]
    assert program.facts[2].atom.terms[1].span == Span("<string>", 2, 26, 2, 29)


def test_fast_and_general_paths_agree():
    fast = parse('p(1, -2.5, "a,b)", <http://x>, sym).  q(x).')
    slow = parse('p( 1 , - 2.5 ,\n "a,b)" , <http://x>, sym\n). q(x).')
    assert fast == slow


def test_every_node_has_a_span():
    r = rule("a(X, A) :- A = avg T : { h(X, Y), t(Y, T) }, B = abs(X) * 2, not z(X).")
    nodes = [r, r.head, *r.body, r.body[0].result, r.body[0].arg, *r.body[0].body, r.body[1].right,
             r.body[1].right.left, r.body[1].right.right, r.body[2].atom]
    assert all(n.span.line > 0 and n.span.column > 0 and n.span.file == "<string>" for n in nodes)


# ---------------------------------------------------------------- errors

ERRORS = [
    ("edge(1, 2)", 1, 11, "unexpected end of input; expected one of: '.', ':-'"),
    ("edge(1, 2)\nedge(2, 3).", 2, 1, "unexpected 'edge'"),
    ("p(X) :- q(X)).", 1, 13, "unexpected ')'; expected one of: ',', '.'"),
    ("p(X) :- q(X) r(X).", 1, 14, "unexpected 'r'"),
    ("p(X :- q(X).", 1, 5, "expected one of: ')', ','"),
    ("p(X) :- .", 1, 9, "unexpected '.'"),
    ("X :- q(X).", 1, 1, "unexpected 'X'"),
    ("p(1,).", 1, 5, "unexpected ')'"),
    ("p(X) :- q(X), X = -Y.", 1, 20, "expected a number"),
    ("p(X) :- q(X), X # 3.", 1, 17, "unexpected character '#'"),
    ('p("abc).', 1, 3, "unterminated string"),
    ('p(1).\np("a\\qb").', 2, 5, "unknown escape sequence '\\q'"),
    ("edge(1, X).", 1, 9, "facts must be ground"),
    ("edge(1, _).", 1, 9, "facts must be ground"),
    ("p(ex:a).", 1, 3, "undeclared prefix 'ex:'"),
    ("p(X) :- q(X, ex:a).", 1, 14, "undeclared prefix 'ex:'"),
    ("@include x.", 1, 1, "unknown directive '@include'"),
    ("r1: p(1).", 1, 1, "a fact cannot have a label"),
    ("p(X) :- q(X + 1).", 1, 11, "arguments of an atom must be variables or constants"),
    ("p(X) :- q(X), 3 = count : { r(X) }.", 1, 15, "the result of an aggregate must be a variable"),
    ("p(99999999999999999999).", 1, 3, "outside the 64-bit range"),
    ("p(X) :- q(X), not X > 1.", 1, 19, "unexpected 'X'"),
    ("p(X) :- q(X), Y = count T { q(T) }.", 1, 27, "unexpected '{'; expected ':'"),
    ('@input edge e.tsv', 1, 13, "expected a string"),
    ("@prefix ex <http://e/> .", 1, 9, "unexpected 'ex'"),
]


@pytest.mark.parametrize("text, line, column, fragment", ERRORS)
def test_syntax_errors(text, line, column, fragment):
    with pytest.raises(ParseError) as info:
        parse(text, source_name="bad.dl")
    error = info.value
    assert (error.span.file, error.span.line, error.span.column) == ("bad.dl", line, column)
    assert fragment in error.message
    rendered = error.render(text).splitlines()
    assert rendered[0].startswith(f"bad.dl:{line}:{column}: error: ") and rendered[2].strip().startswith("^")


def test_missing_dot_note():
    with pytest.raises(ParseError) as info:
        parse("edge(1, 2)\nedge(2, 3).")
    assert any("missing its final '.'" in n for n in info.value.notes)


@pytest.mark.parametrize("text, column", [("", 1), ("p(1", 4), ("p(X) :- q", 6), ("p(1) q", 6)])
def test_query_errors(text, column):
    with pytest.raises(ParseError) as info:
        parse_atom(text)
    assert info.value.span.file == "<query>" and info.value.span.column == column


# ---------------------------------------------------------------- large inputs (speed: bench/parse_speed.py)


def test_ten_thousand_facts_parse():
    text = "".join(f"edge({i}, {i + 1}).\n" for i in range(10_000))
    program = parse(text)
    assert not program.rules and len(program.facts) == 10_000
    assert program.facts[-1].atom == Atom("edge", (c(9_999), c(10_000)))


def test_long_comment_runs_after_a_fact_parse():
    text = "p(1).\n" + " " * 5000 + "%" * 5000 + "\n" + "/" * 5000 + "\nq(X) :- p(X)."
    program = parse(text)
    assert [f.atom for f in program.facts] == [Atom("p", (c(1),))]
    assert [r.head for r in program.rules] == [Atom("q", (X,))]


# ---------------------------------------------------------------- round trip: parse(str(p)) == p

_KEYWORDS = sorted(KEYWORDS)
names = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True).filter(lambda s: s != "not")
upper_names = st.from_regex(r"[A-Z][A-Za-z0-9_]{0,5}", fullmatch=True)
predicates = st.one_of(names, upper_names, st.from_regex(r"_[a-z0-9]{1,3}", fullmatch=True))
variables = st.one_of(upper_names.map(Variable), names.map(lambda n: Variable("?" + n)))
iris = st.from_regex(r"[A-Za-z0-9:/#._~-]{0,20}", fullmatch=True).map(lambda s: Constant(s, "iri"))
constants = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(lambda i: Constant(i, "int")),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: Constant(f, "float")),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=8).map(lambda s: Constant(s, "string")),
    st.sampled_from(_KEYWORDS + ["alice", "x1"]).map(lambda s: Constant(s, "string")),
    iris,
)
terms = st.one_of(variables, constants)
exprs = st.recursive(terms, lambda inner: st.one_of(
    st.builds(BinaryOp, st.sampled_from("+-*/%"), inner, inner),
    st.builds(Call, st.one_of(names, st.sampled_from(["min", "max", "count"])), st.lists(inner, max_size=3).map(tuple)),
), max_leaves=6)
atoms = st.builds(Atom, predicates, st.lists(terms, max_size=3).map(tuple))
comparisons = st.builds(Comparison, st.sampled_from(COMPARISON_OPERATORS), exprs, exprs)
simple_literals = st.one_of(atoms, atoms.map(Negation), comparisons)
aggregates = st.builds(Aggregate, variables, st.sampled_from(AGGREGATE_FUNCTIONS), st.one_of(st.none(), terms),
                       st.lists(simple_literals, min_size=1, max_size=3).map(tuple))
literals = st.one_of(simple_literals, aggregates)
labels = st.one_of(st.none(), names, upper_names)
rules = st.builds(Rule, atoms, st.lists(literals, min_size=1, max_size=4).map(tuple), labels)
facts = st.builds(Atom, predicates, st.lists(constants, max_size=3).map(tuple)).map(Fact)
paths = st.from_regex(r"[A-Za-z0-9_./ -]{1,12}", fullmatch=True)
inputs = st.builds(InputDirective, predicates, paths, st.one_of(st.none(), st.sampled_from(["csv", "tsv", "nt"])))
prefixes = st.tuples(st.from_regex(r"[a-z]{0,3}", fullmatch=True), iris.map(lambda c: c.value))
programs = st.builds(Program, st.lists(rules, max_size=3).map(tuple), st.lists(facts, max_size=3).map(tuple),
                     st.lists(inputs, max_size=2).map(tuple),
                     st.lists(predicates.map(OutputDirective), max_size=2).map(tuple),
                     st.lists(prefixes, max_size=2).map(tuple))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs)
def test_round_trip_generated_programs(program):
    text = str(program)
    assert parse(text) == program, text


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs)
def test_printing_a_parsed_program_is_stable(program):
    text = str(parse(str(program)))
    assert str(parse(text)) == text


def test_round_trip_with_anonymous_variables_and_labels():
    text = ('@prefix ex: <http://ex.org/> .\n@input e "e.tsv" csv .\n@output p .\nedge(1, "a b").\n'
            'r1: p(X, _) :- q(X, _), not r(_, X), N = count : { s(X, _) }, N > 2.\n')
    program = parse(text)
    assert str(program) == text and parse(str(program)) == program
