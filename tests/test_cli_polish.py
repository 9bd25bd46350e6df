"""Issue 10 items 9 and 11: API and CLI polish (empty frames for unchanged predicates, queries that
materialise, --version, -v/--log-level, --stats --json, --out -, progress) and the README's claims."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deltalog import __version__
from deltalog.api import Reasoner
from deltalog.algorithms.context import Live, StratumStats
from deltalog.cli import main
from deltalog.errors import UnknownPredicateError
from deltalog.report import Progress

ROOT = Path(__file__).parent.parent
TRANSITIVE = ROOT / "examples" / "transitive"
RULES = "path(X, Y) :- edge(X, Y).  path(X, Z) :- edge(X, Y), path(Y, Z)."


def test_the_readme_api_snippet_runs():
    r = Reasoner(RULES)
    r.load("edge", [(1, 2), (2, 3)])
    r.materialise()
    result = r.update(add={"edge": [(3, 4)]}, delete={"edge": [(1, 2)]})
    assert result.added["path"].height == 2 and result.removed["path"].height == 2   # +(2,4) (3,4) -(1,2) (1,3)


@pytest.mark.parametrize("side", ["added", "removed"])
def test_unchanged_predicates_read_as_empty_frames(side):
    r = Reasoner(RULES + " other(X) :- edge(X, _), X > 100.")
    r.load("edge", [(1, 2)])
    result = r.update(add={"edge": [(2, 3)]})
    frame = getattr(result, side)["other"]
    assert frame.height == 0 and frame.columns == ["c0"]
    assert "other" not in getattr(result, side)   # iteration still shows only the changes
    with pytest.raises(UnknownPredicateError):
        getattr(result, side)["nope"]
    with pytest.raises(KeyError):   # also a KeyError, as dictionaries raise
        getattr(result, side)["nope"]


@pytest.mark.parametrize("read", [
    lambda r: r.query("path(1, Y)").height,
    lambda r: r.relation("path").height,
    lambda r: r.write_and_count(),
])
def test_reading_before_materialise_materialises(tmp_path, read):
    r = Reasoner(RULES)
    r.load("edge", [(1, 2), (2, 3)])
    r.write_and_count = lambda: len(r.write(tmp_path / "out")) and len(
        (tmp_path / "out" / "path.tsv").read_text().splitlines())
    assert read(r) in (2, 3)
    assert r.relation("path").height == 3


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"deltalog {__version__}\n"


@pytest.mark.parametrize("flags, level", [
    ([], logging.WARNING), (["-v"], logging.INFO), (["-vv"], logging.DEBUG), (["--log-level", "error"], logging.ERROR),
])
def test_verbosity_flags_set_the_log_level(tmp_path, monkeypatch, flags, level):
    seen = {}
    monkeypatch.setattr(logging, "basicConfig", lambda **kw: seen.update(kw))
    for where in ("before", "after"):
        argv = [*flags, "check", str(TRANSITIVE / "program.dl")] if where == "before" else \
            ["check", str(TRANSITIVE / "program.dl"), *flags]
        assert main(argv) == 0
        assert logging.getLevelName(seen["level"]) == level


def test_verbose_run_logs_strata(tmp_path):
    done = subprocess.run([sys.executable, "-m", "deltalog", "-v", "run", str(TRANSITIVE / "program.dl"),
                           "--out", str(tmp_path / "o"), "--quiet", "--modules", "none"],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0 and "INFO deltalog.algorithms.seminaive: stratum 0 (path): 3 rounds" in done.stderr


def test_stats_as_json(tmp_path, capsys):
    assert main(["run", str(TRANSITIVE / "program.dl"), "--out", str(tmp_path / "o"), "--stats", "--json",
                 "--quiet", "--modules", "none"]) == 0   # seminaive: rule instances are counted
    stats = json.loads(capsys.readouterr().out)
    assert stats["derived"] == 17 and stats["strata"][0]["predicates"] == ["path"]
    assert {r["rule"] for r in stats["rules"]} == {"rule 0", "rule 1"} and stats["rules"][1]["instances"] > 0


@pytest.mark.parametrize("fmt, first", [("tsv", "1\t2"), ("csv", "1,2")])
def test_out_dash_writes_the_one_relation_to_stdout(capfd, fmt, first):
    assert main(["run", str(TRANSITIVE / "program.dl"), "--out", "-", "--format", fmt, "--quiet"]) == 0
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) == 17 and lines[0] == first


@pytest.mark.parametrize("program, extra, message", [
    ("a(X) :- e(X). b(X) :- e(X). e(1).", [], "--out - writes one relation, but the program writes 2: a, b"),
    ("a(X) :- e(X). e(1).", ["--format", "parquet"], "--out - writes TSV or CSV"),
    ("a(X) :- e(X). e(1).", ["--stats"], "where --stats would print too"),
])
def test_out_dash_refusals(tmp_path, capsys, program, extra, message):
    (tmp_path / "p.dl").write_text(program)
    assert main(["run", str(tmp_path / "p.dl"), "--out", "-", "--quiet", *extra]) == 2
    assert message in capsys.readouterr().err


class PlainConsole:
    is_terminal = False


def live(rounds: int, derived: int) -> Live:
    return Live(StratumStats(0, ("n",)), rounds, derived)


def test_plain_progress_lines_when_stderr_is_not_a_terminal(capsys):
    progress = Progress(PlainConsole(), total=2, interval=0)
    progress.round(live(5, 40))
    progress.advance(StratumStats(0, ("n",), rounds=6, seconds=1.5, derived=50))
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("stratum 1 (n): round 5, 40 facts, ")
    assert err[1] == "stratum 1/2 (n) done: 6 rounds, 50 facts, 1.5 s"


def test_plain_progress_is_periodic(capsys):
    progress = Progress(PlainConsole(), total=1, interval=3600)
    progress.round(live(1, 1))
    progress.advance(StratumStats(0, ("n",), rounds=1, seconds=0.1))
    assert capsys.readouterr().err == ""   # a short run prints nothing


def test_terminal_progress_names_the_stratum_round_and_facts():
    from rich.console import Console
    console = Console(file=io.StringIO(), force_terminal=True)
    with Progress(console, total=3) as progress:
        progress.round(live(7, 1234))
        assert progress._bar.tasks[0].description == "stratum 1 (n): round 7, 1,234 facts"


def test_a_cli_run_reports_rounds_in_plain_lines(tmp_path):
    (tmp_path / "p.dl").write_text("n(0).\nn(Y) :- n(X), Y = X + 1, X < 3000.\n")
    done = subprocess.run([sys.executable, "-m", "deltalog", "run", str(tmp_path / "p.dl"), "--out",
                           str(tmp_path / "o")], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "DELTALOG_PROGRESS_INTERVAL": "0.2"})
    assert done.returncode == 0 and "stratum 1 (n): round " in done.stderr


def test_loaded_counts_input_and_program_facts(tmp_path, capsys):
    """The README quick start: facts that come through @input are counted (issue 10 item 11)."""
    assert main(["run", str(TRANSITIVE / "program.dl"), "--out", str(tmp_path / "o")]) == 0
    edges = len((TRANSITIVE / "facts" / "edge.tsv").read_text().splitlines())
    assert f"loaded {edges} facts" in capsys.readouterr().err.replace("\n", " ")


def test_readme_mentions_the_extras_and_is_consistent_about_counting():
    readme = (ROOT / "README.md").read_text()
    assert "'.[rdf]'" in readme and "'.[spark]'" in readme
    not_yet = readme.split("## What does not work yet")[1]
    assert "Counting" not in not_yet
