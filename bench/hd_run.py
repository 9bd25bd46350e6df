"""Combined (hd=auto) vs standard (hd=off) on Exp, LUBM L+C and the PC rule (issue 14, seed 000 section 5).

Each (case, mode) runs in its own process: load, materialise, then ``--updates`` rounds of deleting
``--batch`` random explicit facts of the case's update predicates and adding them back (DRed, as 000's
baseline and HD approach both are), reporting seconds per phase, the derived count and the peak RSS.

    python bench/hd_run.py --cases exp-small,lubm-lc-1,pc-small --modes off,auto
    python bench/hd_run.py --cases exp --modes off,auto --batch 1000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(BENCH_DIR.parent / "src"))


def delete_then_add(reasoner, rows: dict, algorithm: str, clock) -> tuple[float, float]:
    """Seconds (by ``clock``) to delete ``rows`` with ``algorithm``, then to add them back."""
    started = clock()
    reasoner.update(delete=rows, algorithm=algorithm)
    deleted = clock() - started
    started = clock()
    reasoner.update(add=rows, algorithm=algorithm)
    return deleted, clock() - started


def worker(case_name: str, mode: str, batch: int, updates: int, algorithm: str, seed: int) -> dict:
    import numpy as np
    import polars as pl

    from deltalog.api import Reasoner
    from hd_generators import CASES
    case = CASES[case_name]()
    reasoner = Reasoner(case.program, hd=mode)
    for predicate, frame in case.facts.items():
        reasoner.load(predicate, frame)
    started = time.perf_counter()
    summary = reasoner.materialise()
    out = {"case": case.name, "mode": mode, "materialise": time.perf_counter() - started,
           "facts": reasoner.fact_count(), "derived": summary.derived,
           "hd_rules": sum(p == "hd" for p in reasoner.rule_paths.values()), "rules": len(reasoner.rule_paths)}
    rng = np.random.default_rng(seed)
    deletes, adds = [], []
    for _ in range(updates):
        chosen = {}
        sizes = {p: case.facts[p].height for p in case.update_predicates}
        total = sum(sizes.values())
        for p, size in sizes.items():
            take = min(size, max(1, round(batch * size / total)))
            chosen[p] = case.facts[p][np.sort(rng.choice(size, take, replace=False)).tolist()]
        rows = {p: [tuple(r) for r in f.iter_rows()] for p, f in chosen.items()}
        deleted, added = delete_then_add(reasoner, rows, algorithm, time.perf_counter)
        deletes.append(deleted)
        adds.append(added)
    out["delete"] = statistics.median(deletes) if deletes else None
    out["add"] = statistics.median(adds) if adds else None
    out["final_facts"] = reasoner.fact_count()
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    del pl
    return out


def run(case: str, mode: str, args) -> dict:
    command = [sys.executable, __file__, "--worker", case, mode, "--batch", str(args.batch), "--updates",
               str(args.updates), "--algorithm", args.algorithm]
    env = dict(os.environ, PYTHONPATH=str(BENCH_DIR.parent / "src"))
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=args.timeout)
    if done.returncode:
        return {"case": case, "mode": mode, "error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default="exp-small,lubm-lc-1,pc-small")
    parser.add_argument("--modes", default="off,auto")
    parser.add_argument("--batch", type=int, default=1000, help="facts per deletion/addition (default 1,000)")
    parser.add_argument("--updates", type=int, default=1)
    parser.add_argument("--algorithm", default="dred")
    parser.add_argument("--repeats", type=int, default=1, help="processes per (case, mode); medians reported")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--worker", nargs=2, metavar=("CASE", "MODE"), help=argparse.SUPPRESS)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker, args.batch, args.updates, args.algorithm, 0)))
        return 0
    results = []
    print(f"{'case':<22}{'mode':<6}{'facts':>11}{'materialise':>13}{'delete':>10}{'add':>10}{'peak MB':>9}  hd rules")
    for case in args.cases.split(","):
        for mode in args.modes.split(","):
            runs = [run(case, mode, args) for _ in range(args.repeats)]
            if any("error" in r for r in runs):
                print(f"{case:<22}{mode:<6} error {runs[0].get('error')}")
                results.append(runs[0])
                continue
            r = dict(runs[0])
            for key in ("materialise", "delete", "add", "peak_mb"):
                values = [x[key] for x in runs if x[key] is not None]
                r[key] = statistics.median(values) if values else None
            results.append(r)
            fmt = lambda v: "-" if v is None else f"{v:.3f}"   # noqa: E731
            print(f"{case:<22}{mode:<6}{r['facts']:>11,}{fmt(r['materialise']):>13}{fmt(r['delete']):>10}"
                  f"{fmt(r['add']):>10}{r['peak_mb']:>9.0f}  {r['hd_rules']}/{r['rules']}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
