"""CI runs every bundled example with --strict: no undefined predicate, no unread fact file, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltalog.cli import main

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*/program.dl"))


@pytest.mark.parametrize("program", EXAMPLES, ids=lambda p: p.parent.name)
def test_example_runs_strict(tmp_path, capsys, program):
    facts = program.parent / "facts"
    code = main(["run", str(program), "--facts", str(facts), "--out", str(tmp_path / "out"), "--strict",
                 "--quiet", "--timeout", "300"])
    err = capsys.readouterr().err
    assert code == 0 and "warning" not in err and "error" not in err, err
    assert any((tmp_path / "out").iterdir())
