"""Classic programs of other engines' suites (Soufflé's same generation, Andersen points-to and CSPA;
RDFS-style triple rules of RDFox and Nemo; stratified negation chains; grouped aggregates over mixed
kinds; bounded recursive arithmetic) on random facts and updates: every algorithm equals the naive
evaluator, and so does the CLI's persistent store (init, update, export)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, note, strategies as st

from deltalog.cli import main
from deltalog.syntax.parser import parse
from reference import naive_materialise, text
from strategies import Facts, apply_update, examples, update_sequences
from test_maintenance import ALGORITHMS, assert_updates_equal_rematerialisation

PROGRAMS = {
    "same generation": """
        sg(X, Y) :- parent(P, X), parent(P, Y), X != Y.
        sg(X, Y) :- parent(A, X), sg(A, B), parent(B, Y).""",
    "andersen": """
        pt(V, O) :- new(V, O).
        pt(V, O) :- assign(V, W), pt(W, O).
        pt(V, O) :- load(V, W, F), pt(W, B), hpt(B, F, O).
        hpt(B, F, O) :- store(V, F, W), pt(V, B), pt(W, O).
        alias(V, W) :- pt(V, O), pt(W, O), V != W.""",
    "cspa": """
        vf(Y, X) :- assign(Y, X).
        vf(X, Y) :- assign(X, Z), ma(Z, Y).
        vf(X, Y) :- vf(X, Z), vf(Z, Y).
        ma(X, W) :- deref(Y, X), va(Y, Z), deref(Z, W).
        va(X, Y) :- vf(Z, X), vf(Z, Y).
        va(X, Y) :- vf(Z, X), ma(Z, W), vf(W, Y).
        vf(X, X) :- assign(X, _).
        vf(X, X) :- assign(_, X).
        ma(X, X) :- assign(_, X).
        ma(X, X) :- assign(X, _).""",
    "rdfs": """
        t(X, "type", C) :- t(X, "type", B), t(B, "subClassOf", C).
        t(B, "subClassOf", D) :- t(B, "subClassOf", C), t(C, "subClassOf", D).
        t(X, Q, Y) :- t(X, P, Y), t(P, "subPropertyOf", Q).
        t(X, "type", C) :- t(X, P, _), t(P, "domain", C).
        t(Y, "type", C) :- t(_, P, Y), t(P, "range", C).
        t(X, P, Y) :- t(Y, Q, X), t(P, "inverseOf", Q).
        untyped(X) :- t(X, _, _), !t(X, "type", _).
        classes(N) :- N = count C : { t(_, "type", C) }.""",
    "negation chain": """
        reach(X, Y) :- edge(X, Y).
        reach(X, Z) :- reach(X, Y), edge(Y, Z).
        node(X) :- edge(X, _).
        node(Y) :- edge(_, Y).
        unreach(X, Y) :- node(X), node(Y), !reach(X, Y).
        cyclic(X) :- reach(X, X).
        acyclic(X) :- node(X), !cyclic(X).
        leaf(X) :- acyclic(X), !edge(X, _).
        lonely(X) :- node(X), !reach(X, _), !reach(_, X), !leaf(X).
        out(X, N) :- node(X), N = count Y : { reach(X, Y) }.""",
    "grouped aggregates": """
        deg(X, N) :- N = count Y : { w(X, Y, _) }.
        total(X, S) :- S = sum W : { w(X, _, W) }.
        low(X, Y, M) :- M = min W : { w(X, Y, W) }.
        high(X, M) :- M = max W : { w(X, _, W) }, M > 1.
        mean(X, A) :- A = avg W : { w(X, _, W), W != "a" }.
        busy(X) :- deg(X, N), total(X, S), N >= 2, S < 10.
        between(X, Y) :- w(X, Y, W), W >= 1, W < 3.5.
        allmin(M) :- M = min W : { w(_, _, W) }.""",
    "bounded arithmetic": """
        nat(0) :- start(_).
        nat(M) :- nat(N), N < 12, M = N + 1.
        even(N) :- nat(N), N % 2 = 0, !skip(N).
        sq(N, S) :- even(N), S = N * N.
        fib(0, 0) :- start(_). fib(1, 1) :- start(_).
        fib(M, F) :- fib(N, A), fib(K, B), K = N + 1, M = K + 1, F = A + B, M < 15.""",
}

VALUES = (("int", 0), ("int", 1), ("int", 2), ("int", 3), ("int", 4), ("int", 5), ("int", 6), ("int", 7))
MIXED = VALUES[:4] + (("float", 1.0), ("float", 2.5), ("int", -1), ("string", "a"), ("float", 3.5))
RDF = (("string", "type"), ("string", "subClassOf"), ("string", "subPropertyOf"), ("string", "domain"),
       ("string", "range"), ("string", "inverseOf"), ("string", "C"), ("string", "D"), ("string", "x"),
       ("string", "y"), ("string", "p"), ("string", "q"))
ARITIES = {"parent": 2, "new": 2, "assign": 2, "load": 3, "store": 3, "deref": 2, "t": 3, "edge": 2,
           "w": 3, "start": 1, "skip": 1}


def domain_of(name: str) -> tuple:
    return {"rdfs": RDF, "grouped aggregates": MIXED}.get(name, VALUES)


@st.composite
def classic_cases(draw, max_batches: int = 4) -> tuple[str, Facts, list]:
    name = draw(st.sampled_from(sorted(PROGRAMS)))
    program = parse(PROGRAMS[name])
    domain = domain_of(name)[:draw(st.integers(3, len(domain_of(name))))]
    inputs = sorted({a.predicate for r in program.rules for lit in r.body
                     for a in [getattr(lit, "atom", lit)] if getattr(a, "predicate", None) in ARITIES})
    facts = {p: draw(st.sets(st.tuples(*[st.sampled_from(domain)] * ARITIES[p]), max_size=18)) for p in inputs}
    if name == "bounded arithmetic":
        facts = {"start": {(("int", 0),)}, "skip": draw(st.sets(st.tuples(st.sampled_from(VALUES)), max_size=3))}
    return name, facts, draw(update_sequences(facts, program, max_batches, values=domain_of(name)))


@examples(40)
@given(classic_cases(), st.sampled_from(ALGORITHMS))
def test_classic_programs_under_updates(backend_name, case, algorithm):
    name, facts, batches = case
    note(f"{name}, {algorithm}")
    assert_updates_equal_rematerialisation(parse(PROGRAMS[name]), facts, batches, algorithm=algorithm,
                                           backend=backend_name)


def write_facts(directory: Path, facts: Facts) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for predicate, rows in facts.items():
        (directory / f"{predicate}.tsv").write_text("".join("\t".join(text(v) for v in row) + "\n" for row in rows))


def exported(directory: Path, predicates) -> dict[str, set[str]]:
    return {p: set((directory / f"{p}.tsv").read_text().splitlines()) if (directory / f"{p}.tsv").exists()
            else set() for p in predicates}


@examples(10)   # each example runs ~6 CLI commands
@given(classic_cases(max_batches=3), st.sampled_from(["dred", "auto", "counting"]))
def test_classic_programs_through_the_store(tmp_path_factory, case, algorithm):
    """``deltalog init`` over fact files, ``deltalog update`` per batch, ``deltalog export``: the files
    hold the naive evaluator's facts (the TSV text of docs/semantics.md) after every batch."""
    name, facts, batches = case
    note(f"{name}, {algorithm}")
    work = tmp_path_factory.mktemp("store")
    program = parse(PROGRAMS[name])
    (work / "program.dl").write_text(PROGRAMS[name])
    write_facts(work / "facts", facts)
    assert main(["init", str(work / "store"), str(work / "program.dl"), "--facts", str(work / "facts")]) == 0
    derived = sorted({r.head.predicate for r in program.rules})
    for i, (add, delete) in enumerate(batches):
        write_facts(work / f"add{i}", add)
        write_facts(work / f"del{i}", delete)
        assert main(["update", str(work / "store"), "--add", str(work / f"add{i}"), "--delete",
                     str(work / f"del{i}"), "--algorithm", algorithm]) == 0
        facts = apply_update(facts, add, delete)
    assert main(["export", str(work / "store"), "--out", str(work / "out")]) == 0
    expected = naive_materialise(program, facts)
    assert exported(work / "out", derived) == {p: {"\t".join(text(v) for v in row) for row in expected.get(p, ())}
                                                for p in derived}
