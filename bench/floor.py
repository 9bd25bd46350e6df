"""Closure programs beside the copy program that writes the same output (issue 13, "near the floor").

Usage: python bench/floor.py [CASE ...] [--repeat N] [--modules auto|none]

For each case of bench/generators.py (default: the closure cases) the closure program runs once,
untimed, to produce its output; its output relations become the facts ``P_in`` of a copy program
``P(X1, ..., Xn) :- P_in(X1, ..., Xn).`` written to ``bench/data/<case>/copy/``. Then both run as
whole processes (``deltalog run ... --out DIR --quiet``: start-up, load, evaluate, write TSV),
interleaved, ``--repeat`` times; the table gives the medians and the ratio closure / copy. The copy
program reads its rows from TSV where the closure program derives them, so the ratio is a bound on
what the closure itself costs over the work of emitting its output.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from generators import ensure_case  # noqa: E402

CLOSURE_CASES = ("dag-r-linear", "dag-r-nonlinear", "dag-s-linear", "dag-s-nonlinear",
                 "chain-linear", "chain-nonlinear", "cycle-symtrans", "rs1-200", "rs2-400")


def run(program: Path, facts: Path, out: Path, modules: str) -> float:
    """Seconds of one whole-process ``deltalog run``; raises if it fails."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "deltalog", "run", str(program), "--facts", str(facts),
           "--out", str(out), "--quiet", "--modules", modules]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def make_copy_case(case_dir: Path, out: Path) -> Path:
    """Write ``copy/program.dl`` and ``copy/facts/<P>_in.tsv`` from the closure's output files."""
    copy = case_dir / "copy"
    shutil.rmtree(copy, ignore_errors=True)
    (copy / "facts").mkdir(parents=True)
    rules = []
    for tsv in sorted(out.glob("*.tsv")):
        pred = tsv.stem
        with tsv.open() as f:
            first = f.readline()
        arity = first.rstrip("\n").count("\t") + 1 if first else 2
        shutil.copyfile(tsv, copy / "facts" / f"{pred}_in.tsv")
        args = ", ".join(f"X{i}" for i in range(arity))
        rules.append(f"{pred}({args}) :- {pred}_in({args}).")
    (copy / "program.dl").write_text("\n".join(rules) + "\n")
    return copy


def measure(case: str, repeat: int, modules: str) -> tuple[float, float]:
    """Median seconds of the closure program and of its copy program, interleaved."""
    case_dir = ensure_case(case)
    out = Path(f"/tmp/floor-{case}")
    run(case_dir / "program.dl", case_dir / "facts", out, modules)
    copy = make_copy_case(case_dir, out)
    closure_t, copy_t = [], []
    for _ in range(repeat):
        closure_t.append(run(case_dir / "program.dl", case_dir / "facts", out, modules))
        copy_t.append(run(copy / "program.dl", copy / "facts", Path(f"/tmp/floor-{case}-copy"), modules))
    return statistics.median(closure_t), statistics.median(copy_t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=list(CLOSURE_CASES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modules", default="auto")
    args = ap.parse_args()
    print("| case | closure | copy | ratio |\n|---|---|---|---|")
    for case in args.cases:
        closure, copy = measure(case, args.repeat, args.modules)
        print(f"| {case} | {closure:.2f} s | {copy:.2f} s | {closure / copy:.2f} |", flush=True)


if __name__ == "__main__":
    main()
