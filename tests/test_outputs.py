"""Issue 10 item 8: the files of a run appear together or not at all, and a run never writes into the
directory that holds its inputs."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.errors import DeltalogError, InputError
from deltalog.io import writers
from deltalog.io.writers import write_relations

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAM = "p(X) :- e(X).\nq(X) :- e(X), X > 1.\n"


def old_output(out: Path) -> None:
    out.mkdir()
    (out / "p.tsv").write_text("old p\n")
    (out / "q.tsv").write_text("old q\n")
    (out / "notes.txt").write_text("mine\n")
    (out / "sub").mkdir()
    (out / "sub" / "kept.txt").write_text("kept\n")


def test_a_write_replaces_all_files_at_once_and_keeps_the_rest(tmp_path):
    out = tmp_path / "out"
    old_output(out)
    write_relations({"p": pl.DataFrame({"c0": [1]}), "q": pl.DataFrame({"c0": [2]})}, out)
    assert (out / "p.tsv").read_text() == "1\n" and (out / "q.tsv").read_text() == "2\n"
    assert (out / "notes.txt").read_text() == "mine\n" and (out / "sub" / "kept.txt").read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]   # no staging or old directory left


@pytest.mark.parametrize("fail_at", ["write", "publish"])
def test_a_failed_write_leaves_the_old_output_whole(tmp_path, monkeypatch, fail_at):
    out = tmp_path / "out"
    old_output(out)
    if fail_at == "publish":
        def broken(staging, target):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(writers, "_publish", broken)
        tables = {"p": pl.DataFrame({"c0": [1]}), "q": pl.DataFrame({"c0": [2]})}
    else:   # the second table cannot be written as TSV
        tables = {"p": pl.DataFrame({"c0": [1]}), "q": pl.DataFrame({"c0": ["a\tb"]})}
    with pytest.raises((OSError, DeltalogError)):
        write_relations(tables, out)
    assert (out / "p.tsv").read_text() == "old p\n" and (out / "q.tsv").read_text() == "old q\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_new_output_directory_gets_the_usual_permissions(tmp_path):
    out = tmp_path / "fresh"
    write_relations({"p": pl.DataFrame({"c0": [1]})}, out)
    mask = os.umask(0)
    os.umask(mask)
    assert (out.stat().st_mode & 0o777) == (0o777 & ~mask)


def test_a_failing_run_writes_nothing(tmp_path, capsys):
    (tmp_path / "p.dl").write_text("n(0).\nn(Y) :- n(X), Y = X + 1.\n")
    out = tmp_path / "out"
    old_output(out)
    assert main(["run", str(tmp_path / "p.dl"), "--out", str(out), "--quiet", "--max-facts", "100"]) == 2
    assert (out / "p.tsv").read_text() == "old p\n" and not (out / "n.tsv").exists()


def layout(tmp_path: Path) -> Path:
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "e.tsv").write_text("1\n2\n")
    (tmp_path / "p.dl").write_text(PROGRAM)
    (tmp_path / "at.dl").write_text('@input e "facts/e.tsv"\n' + PROGRAM)
    return facts


@pytest.mark.parametrize("program, use_facts, out", [
    ("p.dl", True, "facts"),          # --out equal to --facts
    ("p.dl", True, "."),              # --out holding --facts
    ("at.dl", False, "facts"),        # --out holding an @input file
])
def test_refuse_an_output_directory_holding_the_inputs(tmp_path, capsys, program, use_facts, out):
    facts = layout(tmp_path)
    extra = ["--facts", str(facts)] if use_facts else []
    code = main(["run", str(tmp_path / program), "--out", str(tmp_path / out), "--quiet", *extra])
    assert code == 2 and "holds the input" in capsys.readouterr().err
    assert sorted(p.name for p in facts.iterdir()) == ["e.tsv"]


def test_an_output_directory_beside_the_inputs_is_fine(tmp_path):
    facts = layout(tmp_path)
    assert main(["run", str(tmp_path / "p.dl"), "--facts", str(facts), "--out", str(facts / "results"),
                 "--quiet"]) == 0
    assert (facts / "results" / "q.tsv").read_text() == "2\n"


def test_the_api_refuses_too(tmp_path):
    facts = layout(tmp_path)
    reasoner = Reasoner(tmp_path / "p.dl")
    reasoner.load_directory(facts)
    with pytest.raises(InputError, match="holds the input"):
        reasoner.write(facts)
