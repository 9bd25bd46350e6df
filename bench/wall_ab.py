"""Whole-process wall time of small cases: deltalog, another deltalog checkout and DuckDB, interleaved.

    python bench/wall_ab.py --base /work/base-h2/src --repeat 5 rs1-200 chain-linear dag-s-linear wl-sg-small

Each repeat runs every engine once on every case before the next repeat (so a burst of load on the
shared machine hits all of them; which engine goes first on a case rotates), from /tmp, as
``python -m deltalog run PROGRAM --facts FACTS --out DIR --quiet`` (DIR fresh; ``PYTHONPATH`` this
checkout's src, or ``--base``; with ``--threads 1,2`` also this checkout under ``DELTALOG_THREADS=1``, 2;
with ``--env DELTALOG_PREFETCH=on,DELTALOG_PREFETCH=off`` under each of those settings)
and as ``bench/peers.py duckdb CASE`` (``bench/workloads.py peer duckdb`` for the ``wl-`` cases); prints
the median wall seconds of each, the ratios, the median CPU seconds (user + system, all threads) and
the load average before and after (issue 15: start-up and I/O dominate these cases).

Compile both checkouts first (``python -m compileall -q src BASE``): with ``PYTHONDONTWRITEBYTECODE=1``
in the environment (as on the agents' machine) imports never write ``__pycache__``, and every run
then compiles deltalog's ~90 modules from source (~0.13 s of CPU, more than the run's own work).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ab_cases import case_arguments

BENCH = Path(__file__).resolve().parent
SRC = BENCH.parent / "src"
OUT = Path("/tmp/wall_ab_out")


def commands(case: Path, base: Path | None, threads: tuple[str, ...] = (),
             settings: tuple[str, ...] = ()) -> dict[str, tuple[list[str], dict[str, str]]]:
    def run(engine: str) -> list[str]:   # a fresh output directory per engine and case (emptied before each run)
        return [sys.executable, "-m", "deltalog", "run", str(case / "program.dl"), "--facts", str(case / "facts"),
                "--out", str(OUT / f"{engine}-{case.name}"), "--quiet"]
    peer = ([sys.executable, str(BENCH / "workloads.py"), "peer", "duckdb", str(case)] if case.name.startswith("wl-")
            else [sys.executable, str(BENCH / "peers.py"), "duckdb", str(case)])
    engines = {"deltalog": (run("deltalog"), {"PYTHONPATH": str(SRC)})}
    if base is not None:
        engines["base"] = (run("base"), {"PYTHONPATH": str(base)})
    for count in threads:   # this checkout on that many threads, whatever the load (io/threads.py)
        engines[f"threads-{count}"] = (run(f"threads-{count}"), {"PYTHONPATH": str(SRC), "DELTALOG_THREADS": count})
    for setting in settings:   # this checkout with one environment variable set (NAME=VALUE)
        name, _, value = setting.partition("=")
        engines[setting] = (run(setting.replace("=", "-")), {"PYTHONPATH": str(SRC), name: value})
    engines["duckdb"] = (peer, {"PYTHONPATH": str(SRC)})
    return engines


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU user + system) seconds of one run (the CPU of all its threads, from the child's rusage)."""
    if "--out" in command:
        shutil.rmtree(command[command.index("--out") + 1], ignore_errors=True)   # not timed
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env={**os.environ, **env}, cwd="/tmp", check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    ap = case_arguments(repeat=5)
    ap.add_argument("--base", type=Path, help="src/ of the checkout to compare with")
    ap.add_argument("--threads", default="", help="comma-separated DELTALOG_THREADS to run this checkout with too")
    ap.add_argument("--env", default="", help="comma-separated NAME=VALUE: this checkout run with each set too")
    args = ap.parse_args()
    threads = tuple(count for count in args.threads.split(",") if count)
    settings = tuple(setting for setting in args.env.split(",") if "=" in setting)
    cases = {name: commands(BENCH / "data" / name, args.base, threads, settings) for name in args.cases}
    times: dict[str, dict[str, list[tuple[float, float]]]] = {name: {e: [] for e in c} for name, c in cases.items()}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for repeat in range(args.repeat):
        for name, engines in cases.items():
            order = list(engines)
            for engine in order[repeat % len(order):] + order[:repeat % len(order)]:   # who goes first rotates
                times[name][engine].append(timed(*engines[engine]))
    for name, by_engine in times.items():
        medians = {e: statistics.median(w for w, _ in t) for e, t in by_engine.items()}
        cpu = {e: statistics.median(c for _, c in t) for e, t in by_engine.items()}
        ratios = " ".join(f"/{e} {medians['deltalog'] / m:.2f}" for e, m in medians.items() if e != "deltalog")
        print(name, "wall", " ".join(f"{e} {m:.3f}" for e, m in medians.items()), ratios,
              "| cpu", " ".join(f"{e} {c:.3f}" for e, c in cpu.items()))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
