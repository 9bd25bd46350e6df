"""Every golden program gives exactly its expected output on every backend."""

from __future__ import annotations

import pytest

from golden import CASES, expected, expected_by_reference, run_case


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_output(case, backend_name, tmp_path):
    assert run_case(case, backend_name, tmp_path / "out") == expected(case)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_expected_files_agree_with_the_reference(case):
    """The checked-in expectations are what the naive evaluator computes (guards hand edits)."""
    assert expected_by_reference(case) == expected(case)
