"""deltalog (hd off / auto / all) beside clingo and DuckDB on the hypertree cases (issue 14).

Usage: python bench/hd_peers.py [--cases exp,lubm-lc-3] [--engines off,auto,all,clingo,duckdb] [--repeat 3]

Each (case, engine) runs in its own process: the case's facts are generated (untimed), then the
engine loads them from memory and materialises; the table gives the median seconds of load +
materialise over ``--repeat`` processes and the count of the checked predicate (which every engine
must agree on). clingo grounds the same rules (``%`` becomes ``\\``, its modulo); DuckDB runs Exp as a
recursive CTE with ``USING KEY (n, a)`` whose two branches take the delta at either child (the
seminaive rule variants), and has no translation of the LUBM program (recursive, 60 rules).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "src"))

CHECK = {"exp": "val", "lubm": "classmatesSameAdvisor"}


def family(case: str) -> str:
    return "exp" if case.startswith("exp") else "lubm"


def run_deltalog(case, mode: str) -> int:
    from deltalog.api import Reasoner
    reasoner = Reasoner(case.program, hd=mode)
    for predicate, frame in case.facts.items():
        reasoner.load(predicate, frame)
    reasoner.materialise()
    return reasoner.relation(CHECK[family(case.name)]).height


def clingo_program(case) -> str:
    rules = case.program.replace(") % 1000003", ") \\ 1000003")
    facts = []
    for predicate, frame in case.facts.items():
        for row in frame.iter_rows():
            args = ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in row)
            facts.append(f"{predicate}({args}).")
    return rules + "\n" + "\n".join(facts) + f"\n#show {CHECK[family(case.name)]}/{arity(case)}.\n"


def arity(case) -> int:
    return 3 if family(case.name) == "exp" else 2


def run_clingo(case) -> int:
    import clingo
    control = clingo.Control(["--warn=none"])
    control.add("base", [], clingo_program(case))
    control.ground([("base", [])])
    name = CHECK[family(case.name)]
    return sum(1 for a in control.symbolic_atoms.by_signature(name, arity(case)))


EXP_SQL = """
CREATE TABLE result AS WITH RECURSIVE v(n, a, x) USING KEY (n, a) AS (
  SELECT c0, c1, c2 FROM val
  UNION
  ({delta_left} UNION {delta_right})
) SELECT * FROM v
"""

EXP_BRANCH = """SELECT o.c0 AS n, {left}.a, CASE o.c1 WHEN 'add' THEN ({left}.x + {right}.x) % 1000003
    WHEN 'sub' THEN ({left}.x - {right}.x + 1000003) % 1000003 ELSE ({left}.x * {right}.x) % 1000003 END AS x
  FROM op o JOIN "left" l ON l.c0 = o.c0 JOIN "right" r ON r.c0 = o.c0
  JOIN expr en ON en.c0 = o.c0 JOIN expr el ON el.c0 = l.c1 AND el.c1 = en.c1
  JOIN expr er ON er.c0 = r.c1 AND er.c1 = en.c1
  JOIN {left_table} {left} ON {left}.n = l.c1 JOIN {right_table} {right} ON {right}.n = r.c1 AND {right}.a = {left}.a
  JOIN assignment asg ON asg.c0 = en.c1 AND asg.c1 = {left}.a"""


def run_duckdb(case) -> int:
    import duckdb
    if family(case.name) != "exp":
        raise SystemExit("no DuckDB translation of the LUBM program")
    con = duckdb.connect()
    for predicate, frame in case.facts.items():
        table = frame.to_arrow()
        con.register("t_arrow", table)
        con.execute(f'CREATE TABLE "{predicate}" AS SELECT * FROM t_arrow')
        con.unregister("t_arrow")
    delta_left = EXP_BRANCH.format(left="d", right="f", left_table="v", right_table="recurring.v")
    delta_right = EXP_BRANCH.format(left="f", right="d", left_table="recurring.v", right_table="v")
    con.execute(EXP_SQL.format(delta_left=delta_left, delta_right=delta_right))
    return con.execute("SELECT count(*) FROM result").fetchone()[0]


def worker(case_name: str, engine: str) -> dict:
    from hd_generators import CASES
    case = CASES[case_name]()
    started = time.perf_counter()
    if engine == "clingo":
        count = run_clingo(case)
    elif engine == "duckdb":
        count = run_duckdb(case)
    else:
        count = run_deltalog(case, engine)
    return {"seconds": time.perf_counter() - started, "count": count}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="exp,lubm-lc-3")
    ap.add_argument("--engines", default="off,auto,all,clingo,duckdb")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return
    print("| case | engine | load + materialise (median) | count |\n|---|---|---|---|")
    for case in args.cases.split(","):
        for engine in args.engines.split(","):
            if engine == "duckdb" and family(case) != "exp":
                continue
            runs = []
            for _ in range(args.repeat):
                try:
                    done = subprocess.run([sys.executable, __file__, "--worker", case, engine], capture_output=True,
                                          text=True, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    runs.append(None)
                    break
                if done.returncode:
                    raise SystemExit(f"{case} {engine}: {done.stderr.strip().splitlines()[-1:]}")
                runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
            if None in runs:
                print(f"| {case} | {engine} | > {args.timeout:.0f} s | |", flush=True)
                continue
            seconds = statistics.median(r["seconds"] for r in runs)
            print(f"| {case} | {engine} | {seconds:.2f} s | {runs[0]['count']:,} |", flush=True)


if __name__ == "__main__":
    main()
