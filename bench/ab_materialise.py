"""Materialisation CPU of deltalog checkouts on bench cases, in-process, interleaved (loading and writing excluded).

    python bench/ab_materialise.py --src /work/base/src,src --cases wl-pipeline,wl-sg-forest --repeat 5

Each repeat runs every checkout once per case (a fresh process each, so imports and first calls
count as in a real run) before the next repeat; the medians of ``time.process_time`` around
``Reasoner.materialise`` are printed with the ratio of the last checkout to the first, and the
derived fact counts must agree. bench/ab_cpu.py measures the whole process instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
CHILD = """
import json, sys, time
from deltalog.api import Reasoner
r = Reasoner(sys.argv[1] + "/program.dl")
r.load_directory(sys.argv[1] + "/facts")
start = time.process_time()
r.materialise()
seconds = time.process_time() - start
print(json.dumps({"cpu": seconds, "facts": sum(len(r.relation(p)) for p in r.derived_predicates())}))
"""


def run_once(src: str, case: Path) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()))
    out = subprocess.run([sys.executable, "-c", CHILD, str(case)], env=env, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    return result["cpu"], result["facts"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", required=True, help="comma-separated src directories (the first is the base)")
    parser.add_argument("--cases", required=True, help="comma-separated directories under bench/data")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    srcs, cases = args.src.split(","), args.cases.split(",")
    times: dict[tuple[str, str], list[float]] = {(c, s): [] for c in cases for s in srcs}
    facts: dict[str, set[int]] = {c: set() for c in cases}
    for _ in range(args.repeat):
        for case in cases:
            for src in srcs:
                cpu, derived = run_once(src, DATA / case)
                times[case, src].append(cpu)
                facts[case].add(derived)
    for case in cases:
        medians = [statistics.median(times[case, s]) for s in srcs]
        agree = "same facts" if len(facts[case]) == 1 else f"FACTS DIFFER {sorted(facts[case])}"
        shown = "  ".join(f"{m:.3f} s" for m in medians)
        print(f"{case:16s} {shown}  last/first {medians[-1] / medians[0]:.2f}  {agree}")


if __name__ == "__main__":
    main()
