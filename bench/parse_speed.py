"""Parser speed on large inputs (what tests/test_parser.py checks for results, timed here, not there).

    PYTHONPATH=src python bench/parse_speed.py [--repeat 5]

Cases: 10,000 ground facts; a fact followed by 5,000-character runs of spaces, ``%`` and ``/``
(a lexer whose comment pattern backtracks is quadratic on these); 100,000 facts. Prints the median
wall seconds of each, after one warm-up parse that builds the parser.
"""

from __future__ import annotations

import argparse
import statistics
import time

from deltalog.syntax import parse

CASES = {
    "10k facts": "".join(f"edge({i}, {i + 1}).\n" for i in range(10_000)),
    "comment runs": "p(1).\n" + " " * 5000 + "%" * 5000 + "\n" + "/" * 5000 + "\nq(X) :- p(X).",
    "100k facts": "".join(f"edge({i}, {i + 1}).\n" for i in range(100_000)),
}


def median_seconds(text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        parse(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    parse("p(1).")
    for name, text in CASES.items():
        print(f"{name:>14}: {median_seconds(text, args.repeat):.3f} s")


if __name__ == "__main__":
    main()
