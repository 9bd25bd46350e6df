"""The core guarantee: on random stratified programs, the engine equals the naive reference evaluator."""

from __future__ import annotations

from hypothesis import given, note

from deltalog.api import Reasoner
from deltalog.syntax.ast import Atom, Constant
from deltalog.syntax.statements import Fact, Program
from reference import naive_materialise
from strategies import programs_and_facts


def with_facts(program: Program, facts) -> Program:
    """The program with the facts stated inline (exact kinds, no text round trip)."""
    stated = tuple(Fact(Atom(p, tuple(Constant(v, k) for k, v in row))) for p, rows in facts.items() for row in rows)
    return Program(rules=program.rules, facts=program.facts + stated)


def engine_materialise(program: Program, facts, backend: str) -> dict[str, set]:
    reasoner = Reasoner(with_facts(program, facts), backend=backend)
    reasoner.materialise()
    return {p: reasoner.backend.typed_rows(relation=p) for p in reasoner.predicates()}


def nonempty(materialisation) -> dict[str, set]:
    return {p: rows for p, rows in materialisation.items() if rows}


@given(programs_and_facts())
def test_seminaive_equals_naive(backend_name, case):
    program, facts = case
    note(str(with_facts(program, facts)))
    expected = naive_materialise(program, facts)
    assert nonempty(engine_materialise(program, facts, backend_name)) == nonempty(expected)


@given(programs_and_facts())
def test_parsed_text_gives_the_same_result(backend_name, case):
    """Printing the program and parsing it back changes nothing (the text path users take)."""
    program, facts = case
    text = str(with_facts(program, facts))
    reasoner = Reasoner(text, backend=backend_name)
    reasoner.materialise()
    got = {p: reasoner.backend.typed_rows(relation=p) for p in reasoner.predicates()}
    assert nonempty(got) == nonempty(naive_materialise(program, facts))
