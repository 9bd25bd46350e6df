"""Numeric corner cases of aggregates and functions (docs/semantics.md, Expressions and Aggregates), on
both backends against the naive evaluator and against the values the semantics name: exact int sums
up to the 64-bit bounds, exactly rounded float sums and means (a set has no order to add in), int
means rounded once, and ``int()`` of a string only when it reads as an int."""

from __future__ import annotations

import math

import pytest

from deltalog.api import Reasoner
from deltalog.syntax import parse
from reference import naive_materialise

BIG = 2**63 - 1
CASES = {
    # int sums: exact to the bounds, no result beyond them
    "sum_at_2_62": ("a1(4611686018427387904).", "sum", "a1", [("int", 2**62)]),
    "sum_at_max": ("a2(4611686018427387904). a2(4611686018427387903).", "sum", "a2", [("int", BIG)]),
    "sum_back_in_range": (f"a3({BIG}). a3({BIG - 1}). a3(-{BIG}).", "sum", "a3", [("int", BIG - 1)]),
    "sum_overflow": (f"a4({BIG}). a4(1).", "sum", "a4", []),
    # float sums and means: exactly rounded (math.fsum), whatever order the values are stored in
    "sum_cancelling": ("a5(1e16). a5(1.0). a5(-1e16).", "sum", "a5", [("float", 1.0)]),
    "sum_tie": ("a6(1e16). a6(1.0).", "sum", "a6", [("float", math.fsum([1e16, 1.0]))]),
    "sum_mixed": ("a7(0.1). a7(0.2). a7(3).", "sum", "a7", [("float", math.fsum([0.1, 0.2, 3]))]),
    "avg_mixed": ("a8(0.1). a8(0.2). a8(3).", "avg", "a8", [("float", math.fsum([0.1, 0.2, 3]) / 3)]),
    # int means: the exact quotient rounded once, also when the int sum leaves 64 bits
    "avg_beyond_64_bits": (f"a9({BIG}). a9({BIG - 1}). a9(-5).", "avg", "a9", [("float", (2 * BIG - 6) / 3)]),
    "avg_over_2_53": ("b1(9007199254740993). b1(2).", "avg", "b1", [("float", (2**53 + 3) / 2)]),
    "median_over_2_53": ("b2(9007199254740993). b2(9007199254740994).", "median", "b2",
                         [("float", (2 * 2**53 + 3) / 2)]),
    "median_even_ints": ("b3(1). b3(2). b3(3). b3(4).", "median", "b3", [("float", 2.5)]),
}


def case_program(name: str) -> str:
    facts, function, predicate, _ = CASES[name]
    return f"{facts}\n{predicate}_{function}(R) :- R = {function} X : {{ {predicate}(X) }}.\n"


def materialised(text: str, backend: str) -> dict[str, set]:
    reasoner = Reasoner(text, backend=backend)
    reasoner.materialise()
    return {p: reasoner.backend.typed_rows(relation=p) for p in reasoner.predicates()}


def test_aggregate_corners_have_the_values_the_semantics_name(backend_name):
    """All cases in one program (one run per backend: a Spark run costs seconds)."""
    got = materialised("".join(case_program(name) for name in CASES), backend_name)
    for name, (_, function, predicate, expected) in CASES.items():
        assert got.get(f"{predicate}_{function}", set()) == set((v,) for v in expected), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_aggregate_corners_equal_the_naive_evaluator(name):
    text = case_program(name)
    expected = {p: rows for p, rows in naive_materialise(parse(text)).items() if rows}
    assert {p: rows for p, rows in materialised(text, "local").items() if rows} == expected


CONVERSIONS = """
s("42"). s(" 42\t"). s("4.5"). s("-0"). s("007"). s("1e3"). s("1e400"). s("nan"). s("99999999999999999999").
i(X, Y) :- s(X), Y = int(X).
f(X, Y) :- s(X), Y = float(X).
"""


def test_int_of_a_string_needs_an_int_spelling(backend_name):
    """``int("4.5")`` has no result (a float string is no int); ``float()`` reads it; whitespace aside."""
    got = materialised(CONVERSIONS, backend_name)
    strings = lambda *xs: {("string", x) for x in xs}  # noqa: E731
    assert {(x[1], y) for x, y in got["i"]} == {("42", ("int", 42)), (" 42\t", ("int", 42)), ("-0", ("int", 0)),
                                                 ("007", ("int", 7))}
    assert {x for x, _ in got["f"]} == strings("42", " 42\t", "4.5", "-0", "007", "1e3", "99999999999999999999")
    expected = {p: rows for p, rows in naive_materialise(parse(CONVERSIONS)).items() if rows}
    assert {p: rows for p, rows in got.items() if rows} == expected


BEYOND_2_53 = """
big(9007199254740993). near(9007199254740992.0). near(9007199254740994.0).
gt :- big(X), near(Y), X > Y, Y < 9007199254740993.
eq :- big(X), near(Y), X = Y.
ne :- big(X), near(Y), X != Y, Y = 9007199254740992.0.
lt_constant :- big(X), X < 9007199254740994.0, X > 9007199254740992.0.
both(X) :- big(X).
both(X) :- near(X).
top(M) :- M = max X : { both(X) }.
bottom(M) :- M = min X : { both(X) }.
middle(M) :- M = median X : { both(X) }.
larger(M) :- big(X), M = max(X, 9007199254740992.0).
"""


def test_ints_beyond_2_53_compare_with_floats_by_exact_value(backend_name):
    """9007199254740993 (2^53 + 1) is no double: it lies between the floats 2^53 and 2^53 + 2, and every
    comparison, min, max and median says so (the int's nearest double alone made it equal to 2^53)."""
    got = materialised(BEYOND_2_53, backend_name)
    for fact in ("gt", "ne", "lt_constant"):
        assert got[fact] == {()}, fact
    assert got.get("eq", set()) == set()
    assert got["top"] == {(("float", 2.0**53 + 2),)} and got["bottom"] == {(("float", 2.0**53),)}
    assert got["middle"] == {(("int", 2**53 + 1),)} and got["larger"] == {(("int", 2**53 + 1),)}
    expected = {p: rows for p, rows in naive_materialise(parse(BEYOND_2_53)).items() if rows}
    assert {p: rows for p, rows in got.items() if rows} == expected
