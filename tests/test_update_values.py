"""Facts added or deleted after materialisation keep their values exactly: ``deltalog update --add/--delete``
reads its files as ``--facts`` does (by form, or by the predicate's ``@decl``), and ``Reasoner.load`` /
``load_directory`` after ``materialise()`` store what they would have stored before it (docs/semantics.md,
Values). Before, both paths handed the readers' text cells to ``update()`` as a plain String column,
which turns every cell into a string: the IRI ``<a>``, the int 7 of a mixed column, the quoted ``"7"``."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltalog import IRI
from deltalog.api import Reasoner
from deltalog.cli import main

CELLS = ["a b", " a", '""', '"x\\ty"', "\\", "é€😀", "9223372036854775807", "-9223372036854775808", "1.0",
         "-0.0", "1e+16", "nan", '"7"', "<http://x/y>", '"chat"@fr', '"1"^^<http://www.w3.org/2001/XMLSchema#int>',
         " a,b ", "007", "7"]
"""TSV cells of every kind in one column: strings with blanks, escapes and Unicode, ints at the 64-bit
bounds, floats, numbers spelt as strings, an IRI and RDF literals."""
PROGRAM = """
@decl d(s: string, n: number).
p(X, Y) :- e(X, Y).
q(X, Y) :- d(X, Y).
"""


def write_facts(directory: Path, rows: dict[str, list[str]]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for predicate, lines in rows.items():
        (directory / f"{predicate}.tsv").write_text("".join(line + "\n" for line in lines))
    return directory


def facts(start: int = 0) -> dict[str, list[str]]:
    return {"e": [f"{cell}\t{start + i}" for i, cell in enumerate(CELLS)],
            "d": [f"{cell}\t{n}" for cell, n in zip(["42", '"x"', "<a>", "007"], ["1", "2.5", "-3", "4.0"])]}


def state(reasoner: Reasoner) -> dict[str, set]:
    return {p: reasoner.backend.typed_rows(relation=p) for p in ("e", "p", "d", "q")}


def fresh(tmp_path: Path, *directories: Path) -> dict[str, set]:
    reasoner = Reasoner(PROGRAM)
    for directory in directories:
        reasoner.load_directory(directory)
    reasoner.materialise()
    return state(reasoner)


def test_store_updates_read_files_as_init_does(tmp_path):
    program = tmp_path / "program.dl"
    program.write_text(PROGRAM)
    seed = write_facts(tmp_path / "seed", {"e": ["seed\t0"], "d": ["s\t0"]})
    add = write_facts(tmp_path / "add", facts(1))
    store = str(tmp_path / "store")
    assert main(["init", store, str(program), "--facts", str(seed)]) == 0
    assert main(["update", store, "--add", str(add)]) == 0
    assert state(Reasoner.open(store)) == fresh(tmp_path, seed, add)
    assert main(["update", store, "--delete", str(add)]) == 0   # deleting the same files removes them all
    assert state(Reasoner.open(store)) == fresh(tmp_path, seed)


def test_loading_after_materialise_stores_what_loading_before_does(tmp_path):
    rows = [("7",), (7,), (IRI("http://a"),), ("",), ("<a>",), (1.0,), ('"x"',)]
    late = Reasoner("p(X) :- e(X).")
    late.materialise()
    late.load("e", rows)
    early = Reasoner("p(X) :- e(X).")
    early.load("e", rows)
    early.materialise()
    assert late.backend.typed_rows(relation="p") == early.backend.typed_rows(relation="p") == {(v,) for v in [
        ("string", "7"), ("int", 7), ("iri", "http://a"), ("string", ""), ("string", "<a>"), ("float", 1.0),
        ("string", '"x"')]}
    directory = write_facts(tmp_path / "more", facts())
    late = Reasoner(PROGRAM)
    late.materialise()
    late.load_directory(directory)
    assert state(late) == fresh(tmp_path, directory)


def test_query_prints_the_cells_out_writes(tmp_path, capsys):
    """``deltalog query`` prints each answer as ``--out`` writes it (a facts-file cell), not CSV-quoted again."""
    directory = write_facts(tmp_path / "facts", facts())
    program = tmp_path / "program.dl"
    program.write_text(PROGRAM)
    assert main(["run", str(program), "--facts", str(directory), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    written = (tmp_path / "out" / "p.tsv").read_text().splitlines()
    capsys.readouterr()
    assert main(["query", str(program), "--facts", str(directory), "p(X, Y)"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "X\tY" and sorted(printed[1:]) == sorted(written)
    assert '"chat"@fr\t14' in printed and '""\t2' in printed


ZERO_ARITY = ("s :- r. t :- not r. u(X) :- e(X), r. v(X) :- e(X), not s. c(N) :- N = count : { e(_) }, r. "
              "w :- e(_). r :- w2. w2 :- e(3).")
ZERO_BATCHES = [({"r": [()]}, {}), ({}, {"r": [()]}), ({"e": [(3,)]}, {}), ({"r": [()]}, {"e": [(3,)]}),
                ({}, {"r": [()], "e": [(1,)]}), ({"e": [(1,), (3,)]}, {"r": [()]}), ({}, {"e": [(1,), (2,), (3,)]})]


def _zero_arity_updates(reasoner: Reasoner, algorithm: str) -> None:
    from deltalog.syntax import parse
    from reference import naive_materialise
    program = parse(ZERO_ARITY)
    facts: dict[str, set] = {"e": {(("int", 1),), (("int", 2),)}}
    for add, delete in ZERO_BATCHES:
        reasoner.update(add=add, delete=delete, algorithm=algorithm)
        for p, rows in delete.items():
            facts[p] = facts.get(p, set()) - {tuple(("int", v) for v in row) for row in rows}
        for p, rows in add.items():
            facts.setdefault(p, set()).update(tuple(("int", v) for v in row) for row in rows)
        expected = {p: rows for p, rows in naive_materialise(program, facts).items() if rows}
        assert {p: rows for p in reasoner.predicates() if (rows := reasoner.backend.typed_rows(relation=p))} \
            == expected, (add, delete)


@pytest.mark.parametrize("algorithm", ["dred", "dredc", "counting", "fbf", "bf", "remat", "auto"])
def test_facts_of_arity_zero_are_added_and_deleted(algorithm):
    """``update(add={"r": [()]})`` adds the fact ``r`` (rows of no values were a frame of no rows)."""
    for modules in ("auto", "none"):
        reasoner = Reasoner(ZERO_ARITY, modules=modules)
        reasoner.load("e", [(1,), (2,)])
        reasoner.materialise()
        _zero_arity_updates(reasoner, algorithm)


def test_facts_of_arity_zero_load_and_update_on_each_backend(backend_name):
    reasoner = Reasoner("s :- r.", backend=backend_name)
    reasoner.load("r", [()])
    reasoner.materialise()
    assert reasoner.backend.typed_rows(relation="s") == {()}
    reasoner.update(delete={"r": [()]})
    assert reasoner.backend.typed_rows(relation="s") == set()
    reasoner.update(add={"r": [()]})
    assert reasoner.backend.typed_rows(relation="s") == {()}
