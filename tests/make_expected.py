"""Writes tests/programs/<case>/expected/<pred>.tsv from the naive reference evaluator (review the diff!).

    python tests/make_expected.py [case ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from golden import CASES, expected_by_reference  # noqa: E402


def main(names: list[str]) -> None:
    for case in CASES:
        if names and case.name not in names:
            continue
        out = case / "expected"
        out.mkdir(exist_ok=True)
        for old in out.glob("*.tsv"):
            old.unlink()
        for predicate, lines in expected_by_reference(case).items():
            (out / f"{predicate}.tsv").write_text("".join(line + "\n" for line in lines))
        print(f"{case.name}: {len(list(out.glob('*.tsv')))} predicates")


if __name__ == "__main__":
    main(sys.argv[1:])
