"""Every bundled example parses, round-trips, and ships the files its program names."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltalog.syntax import parse, parse_file
from deltalog.syntax.ast import Aggregate, Negation

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PROGRAMS = sorted(EXAMPLES.glob("*/program.dl"))
EXPECTED = {"transitive", "symmetric_transitive", "rs1_windfarm", "rs2", "rs3", "pc_rule", "rdf_family",
            "bind_comparisons"}


def test_all_examples_are_present():
    assert EXPECTED <= {p.parent.name for p in PROGRAMS}


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.parent.name)
def test_example_parses_and_round_trips(path):
    program = parse_file(path)
    assert program.rules and program.source_name == str(path)
    assert parse(str(program), source_name=program.source_name) == program


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.parent.name)
def test_example_ships_readme_and_input_files(path):
    folder = path.parent
    assert (folder / "README.md").read_text(encoding="utf-8").strip()
    program = parse_file(path)
    assert program.inputs
    for directive in program.inputs:
        assert (folder / directive.path).is_file(), directive.path


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*/facts/*.tsv")),
                         ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_tsv_files_are_rectangular_and_headerless(path):
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows and len({len(r) for r in rows}) == 1
    assert all(cell and cell == cell.strip() for row in rows for cell in row)


def test_rs1_uses_count_median_and_abs():
    rules = {r.label: r for r in parse_file(EXAMPLES / "rs1_windfarm" / "program.dl").rules}
    assert sorted(rules) == ["r1", "r2", "r3", "r4", "r5", "r6"]
    assert isinstance(rules["r3"].body[0], Aggregate) and rules["r3"].body[0].function == "count"
    assert rules["r4"].body[0].function == "median"
    assert str(rules["r6"].body[-2]) == "D = abs((T - M))"
    assert rules["r6"].head.predicate == "SensorAnomalyWindTurbine"


def test_rs2_and_rs3_differ_only_in_r10():
    rs2 = {r.label: str(r.head) + str(r.body) for r in parse_file(EXAMPLES / "rs2" / "program.dl").rules}
    rs3 = {r.label: str(r.head) + str(r.body) for r in parse_file(EXAMPLES / "rs3" / "program.dl").rules}
    assert sorted(rs2, key=lambda s: int(s[1:])) == [f"r{i}" for i in range(1, 19)]
    assert set(rs2) - set(rs3) == {"r10"} and set(rs3) - set(rs2) == {"r10new"}
    assert all(rs2[k] == rs3[k] for k in rs2 if k != "r10")
    r10new = next(r for r in parse_file(EXAMPLES / "rs3" / "program.dl").rules if r.label == "r10new")
    assert str(r10new) == "r10new: p20(X, Y) :- p12(X, Y), not p13(Y, Z)."
    assert isinstance(r10new.body[1], Negation)


def test_rdf_family_expands_prefixes_and_reads_ntriples():
    program = parse_file(EXAMPLES / "rdf_family" / "program.dl")
    parent = program.rules[0]
    assert parent.body[0].terms[1].value == "http://example.org/family/parentOf"
    assert program.inputs[0].path.endswith(".nt") and program.inputs[0].format == "nt"
    assert "http://example.org/family/parentOf" in (EXAMPLES / "rdf_family" / "facts" / "triple.nt").read_text()


def test_pc_rule_is_the_papers_rule():
    (rule,) = parse_file(EXAMPLES / "pc_rule" / "program.dl").rules
    assert str(rule) == "pc: pc(X, Y) :- cw(X, Z1), ca(X, Z2), pc(Z1, Y), pc(Z2, Y)."
