"""The command line: outputs, statistics, and every class of user error as file:line:col with exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltalog.cli import main

EXAMPLES = Path(__file__).parent.parent / "examples"


def run(*argv: str) -> int:
    return main(list(argv))


def test_run_writes_one_file_per_output_predicate(tmp_path):
    out = tmp_path / "out"
    code = run("run", str(EXAMPLES / "transitive" / "program.dl"), "--facts", str(EXAMPLES / "transitive" / "facts"),
               "--out", str(out), "--quiet")
    assert code == 0
    lines = (out / "path.tsv").read_text().splitlines()
    assert len(lines) == 17 and "1\t5" in lines and "2\t2" in lines


@pytest.mark.parametrize("fmt, name", [("csv", "path.csv"), ("parquet", "path.parquet")])
def test_other_output_formats(tmp_path, fmt, name):
    out = tmp_path / "out"
    assert run("run", str(EXAMPLES / "transitive" / "program.dl"), "--out", str(out), "--format", fmt, "--quiet") == 0
    assert (out / name).stat().st_size > 0


def test_stats_report_rules_and_strata(tmp_path, capsys):
    assert run("run", str(EXAMPLES / "transitive" / "program.dl"), "--out", str(tmp_path / "o"), "--stats",
               "--quiet") == 0
    printed = capsys.readouterr().out
    assert "instances" in printed and "path(X, Z) :- path(X, Y), edge(Y, Z)." in printed


def test_query_prints_answers(capsys):
    assert run("query", str(EXAMPLES / "transitive" / "program.dl"), "path(1, Y)") == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "Y" and sorted(rows[1:]) == ["2", "3", "4", "5"]


def test_graph_text_and_dot(tmp_path, capsys):
    assert run("graph", str(EXAMPLES / "rs3" / "program.dl")) == 0
    assert "p13" in capsys.readouterr().out
    dot = tmp_path / "g.dot"
    assert run("graph", str(EXAMPLES / "rs3" / "program.dl"), "--dot", str(dot)) == 0
    text = dot.read_text()
    assert text.startswith("digraph") and text.count("{") == text.count("}")


ERRORS = {
    "parse": ("p(X) :- e(X, Y)\nq(X) :- p(X).\n", "2:1", "expected"),
    "unsafe": ("e(1, 2).\np(X, Y, Z) :- e(X, Y).\n", "2:9", "'Z'"),
    "arity": ("p(X) :- e(X).\nq(X) :- e(X, Y).\n", "2:9", "arity"),
    "negation cycle": ("p(X) :- e(X), not p(X).\n", "1:15", "negation through recursion"),
    "aggregation cycle": ("p(X, N) :- e(X), N = count : { p(X, Y) }.\n", "1:", "recursion"),
    "unknown function": ("p(X, D) :- e(X), D = foo(X).\n", "1:22", "unknown function"),
    "type": ("p(X, D) :- e(X), D = X + <http://a>.\n", "1:26", "IRI"),
}


@pytest.mark.parametrize("kind", list(ERRORS))
def test_user_errors_exit_2_with_location_and_caret(tmp_path, capsys, kind):
    text, where, fragment = ERRORS[kind]
    program = tmp_path / "bad.dl"
    program.write_text(text)
    out = tmp_path / "out"
    assert run("run", str(program), "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert f"bad.dl:{where}" in err and fragment in err and "^" in err
    assert not out.exists(), "a failed run leaves no output directory"


def test_bad_fact_file_names_file_and_line(tmp_path, capsys):
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "e.tsv").write_text("1\t2\n3\n")
    program = tmp_path / "p.dl"
    program.write_text("p(X) :- e(X, Y).\n")
    assert run("run", str(program), "--facts", str(facts), "--out", str(tmp_path / "o")) == 2
    assert "e.tsv:2:1" in capsys.readouterr().err


def test_data_arity_clash_is_reported(tmp_path, capsys):
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "e.tsv").write_text("1\t2\t3\n")
    program = tmp_path / "p.dl"
    program.write_text("p(X) :- e(X, Y).\n")
    assert run("run", str(program), "--facts", str(facts), "--out", str(tmp_path / "o")) == 2
    err = capsys.readouterr().err
    # the reader knows the program's arity: the error names the file, row and column
    assert "e.tsv:1:1" in err and "row has 3 fields, expected 2" in err


def test_missing_program_is_an_error(tmp_path, capsys):
    assert run("run", str(tmp_path / "nope.dl"), "--out", str(tmp_path / "o")) == 2
    assert "nope.dl" in capsys.readouterr().err
