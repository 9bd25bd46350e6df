"""Per-iteration fixed cost on Spark: a 10-row delta per round, deltalog's Spark backend vs a naive DataFrame loop.

The program walks 10 disjoint chains of length L from their heads, so every seminaive round
has a delta of exactly 10 rows and the whole run is L rounds of pure overhead:

    reach(X) :- start(X).      reach(Y) :- reach(X), edge(X, Y).

deltalog runs it on the Spark executor with the driver offload turned off (offload would do it
in one transfer); the naive baseline is the textbook loop (join, left_anti, union) with no
lineage handling, whose plans grow every round.

    python bench/spark_overhead.py --rounds 30 --engine deltalog
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spark_common import peak_rss_mb, spark_session  # noqa: E402

PROGRAM = "reach(X) :- start(X).\nreach(Y) :- reach(X), edge(X, Y).\n"
CHAINS = 10


def chains(rounds: int) -> tuple[list[tuple[int, int]], list[tuple[int]]]:
    """10 disjoint chains of ``rounds`` edges each, and their heads."""
    edges = [(c * 10_000 + i, c * 10_000 + i + 1) for c in range(CHAINS) for i in range(rounds)]
    return edges, [(c * 10_000,) for c in range(CHAINS)]


def run_deltalog(rounds: int, master: str) -> dict:
    from deltalog.api import Reasoner
    from deltalog.backends.spark.backend import SparkBackend
    edges, starts = chains(rounds)
    backend = SparkBackend(spark_session(master))
    reasoner = Reasoner(PROGRAM, backend=backend, offload=None)
    reasoner.load("edge", edges)
    reasoner.load("start", starts)
    actions = backend.actions
    started = time.perf_counter()
    reasoner.materialise()
    seconds = time.perf_counter() - started
    stratum = reasoner.reasoning.stats.strata[-1]
    return {"engine": "deltalog-spark", "rows": backend.count(relation="reach"), "rounds": stratum.rounds + 1,
            "seconds": seconds, "per_round": seconds / (stratum.rounds + 1), "spark_actions": backend.actions - actions}


def run_naive(rounds: int, master: str, budget: float) -> dict:
    """join + left_anti + union per round, counting the delta to know when to stop (no checkpoints);
    gives up after ``budget`` seconds (its rounds grow with the lineage) and reports what it did."""
    from pyspark.sql import functions as F
    spark = spark_session(master)
    edges, starts = chains(rounds)
    edge = spark.createDataFrame(edges, "x long, y long")
    reach = delta = spark.createDataFrame(starts, "y long")
    started, times = time.perf_counter(), []
    while time.perf_counter() - started < budget:
        begun = time.perf_counter()
        step = delta.join(edge.withColumnRenamed("y", "z"), delta["y"] == F.col("x")).select(F.col("z").alias("y"))
        delta = step.distinct().join(reach, ["y"], "left_anti")
        found = delta.count()
        times.append(time.perf_counter() - begun)
        if found == 0:
            break
        reach = reach.union(delta)
    seconds = time.perf_counter() - started
    return {"engine": "naive-dataframe", "rounds": len(times), "finished": found == 0, "seconds": seconds,
            "per_round": seconds / len(times), "round_seconds": [round(t, 2) for t in times]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--engine", choices=("deltalog", "naive"), default="deltalog")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds the naive loop may take")
    args = ap.parse_args(argv)
    result = run_deltalog(args.rounds, args.master) if args.engine == "deltalog" else \
        run_naive(args.rounds, args.master, args.budget)
    print(json.dumps({**{k: round(v, 3) if isinstance(v, float) else v for k, v in result.items()},
                      "peak_mb": peak_rss_mb()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
