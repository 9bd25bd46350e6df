"""Issue 10 item 6: no silently empty results. Typos in body predicates, fact files no rule reads and a
forgotten --facts are warnings on stderr (errors with --strict); updates refuse unknown predicates."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.errors import UndefinedPredicateWarning, UnknownPredicateError

PATH_RULES = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"


def setup(tmp_path: Path, program: str, files: dict[str, str]) -> tuple[Path, Path]:
    (tmp_path / "p.dl").write_text(program)
    facts = tmp_path / "facts"
    facts.mkdir()
    for name, text in files.items():
        (facts / name).write_text(text)
    return tmp_path / "p.dl", facts


# (program, fact files, use --facts, expected warnings on stderr)
CASES = [
    pytest.param("edge(1, 2).\npath(X, Y) :- egde(X, Y).\n", {}, False,
                 ["p.dl:2:15: warning: predicate egde has no rules and no facts", "did you mean 'edge'?"],
                 id="typo-in-body"),
    pytest.param(PATH_RULES, {"edges.tsv": "1\t2\n"}, True,
                 ["edges.tsv: warning: the facts of edges match no predicate of the program", "did you mean 'edge'?",
                  "p.dl:1:15: warning: predicate edge has no rules and no facts"],
                 id="file-matches-no-predicate"),
    pytest.param(PATH_RULES, {}, False, ["p.dl:1:15: warning: predicate edge has no rules and no facts",
                                         "load its facts with --facts DIR (DIR/edge.tsv) or @input"],
                 id="forgotten-facts"),
    pytest.param("q(X) :- edge(X, _), not seen(X).\n", {"edge.tsv": "1\t2\n"}, True,
                 ["p.dl:1:25: warning: predicate seen has no rules and no facts"], id="negated-never-defined"),
]


def test_an_undefined_output_is_warned_about_then_refused(tmp_path, capsys):
    path, facts = setup(tmp_path, "@output reach\npath(X, Y) :- edge(X, Y).\n", {"edge.tsv": "1\t2\n"})
    assert main(["run", str(path), "--facts", str(facts), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "p.dl:1:1: warning: predicate reach has no rules and no facts" in err
    assert "error: unknown predicate 'reach'" in err


@pytest.mark.parametrize("program, files, use_facts, expected", CASES)
def test_run_warns_and_strict_refuses(tmp_path, capsys, program, files, use_facts, expected):
    path, facts = setup(tmp_path, program, files)
    extra = ["--facts", str(facts)] if use_facts else []
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet", *extra]) == 0
    err = capsys.readouterr().err
    for part in expected:
        assert part in err
    assert main(["run", str(path), "--out", str(tmp_path / "strict"), "--quiet", "--strict", *extra]) == 2
    err = capsys.readouterr().err
    assert expected[0].replace("warning:", "error:") in err and "made errors by --strict" in err
    assert not (tmp_path / "strict").exists()   # refused before the run


def test_query_warns_too(tmp_path, capsys):
    path, _ = setup(tmp_path, "edge(1, 2).\npath(X, Y) :- egde(X, Y).\n", {})
    assert main(["query", str(path), "path(X, Y)"]) == 0
    assert "predicate egde has no rules and no facts" in capsys.readouterr().err
    assert main(["query", str(path), "path(X, Y)", "--strict"]) == 2


@pytest.mark.parametrize("program, loads, expected", [
    ("q(X) :- e(X).", {"e": [(1,)]}, []),
    ("q(X) :- e(X).", {}, ["predicate e has no rules and no facts"]),
    ("q(X) :- e(X).", {"e": [(1,)], "f": [(2,)]}, ["the facts of f match no predicate of the program"]),
    ("@input e \"e.tsv\"\nq(X) :- e(X).", {}, []),
    ("e(1). q(X) :- e(X), not r(X). r(X) :- s(X).", {}, ["predicate s has no rules and no facts"]),
])
def test_diagnostics_in_the_api(tmp_path, program, loads, expected):
    (tmp_path / "e.tsv").write_text("1\n")
    (tmp_path / "p.dl").write_text(program)
    reasoner = Reasoner(tmp_path / "p.dl")
    for predicate, rows in loads.items():
        reasoner.load(predicate, rows)
    warnings = reasoner.diagnostics()
    assert all(isinstance(w, UndefinedPredicateWarning) and w.kind == "warning" for w in warnings)
    assert [w.message.split(",")[0].split(";")[0] for w in warnings] == [e.split(";")[0] for e in expected]


def test_the_examples_have_no_warnings():
    examples = Path(__file__).parent.parent / "examples"
    for program in sorted(examples.glob("*/program.dl")):
        reasoner = Reasoner(program)
        reasoner.load_directory(program.parent / "facts")
        assert reasoner.diagnostics() == [], program


@pytest.mark.parametrize("change", ["add", "delete"])
def test_strict_update_refuses_a_new_predicate_and_changes_nothing(change):
    reasoner = Reasoner(PATH_RULES)
    reasoner.load("edge", [(1, 2)])
    reasoner.materialise()
    with pytest.raises(UnknownPredicateError) as caught:
        reasoner.update(**{change: {"egde": [(2, 3)]}}, strict=True)
    assert "egde" in caught.value.message and caught.value.notes == ("did you mean 'edge'?",)
    assert "egde" not in reasoner.predicates() and reasoner.relation("path").height == 1


def test_strict_update_accepts_known_and_stored_predicates():
    reasoner = Reasoner(PATH_RULES)
    reasoner.load("edge", [(1, 2)])
    reasoner.load("extra", [(7,)])   # not in the program, but stored: updating it is no invention
    reasoner.materialise()
    result = reasoner.update(add={"edge": [(2, 3)], "extra": [(8,)]}, strict=True)
    assert result.added["path"].height == 2 and result.added["extra"].height == 1


def test_check_update_is_what_the_store_cli_calls():
    reasoner = Reasoner(PATH_RULES)
    reasoner.check_update({"edge": None})
    with pytest.raises(UnknownPredicateError):
        reasoner.check_update({}, {"paht": None})


def test_non_strict_update_still_declares_new_predicates():
    reasoner = Reasoner(PATH_RULES)
    reasoner.materialise()
    reasoner.update(add={"other": [(1,)]})
    assert reasoner.predicates()["other"] == 1
