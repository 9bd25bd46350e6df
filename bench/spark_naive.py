"""The baseline: a hand-written naive DataFrame loop for linear TC (join, left_anti, union), no lineage handling.

What a Spark user writes first: every round joins the delta with the edges, removes what
``path`` already holds, and unions the rest into ``path``; the plans grow every round because
nothing is checkpointed. Prints ``{"counts": {"path": N}}`` like the peers do.

    python bench/spark_naive.py bench/data/dag-s-linear --master 'local[2]'
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from spark_common import peak_rss_mb, spark_session  # noqa: E402


def naive_closure(edge) -> tuple[int, int]:
    """(rows of path, rounds) by the textbook loop."""
    path = delta = edge
    rounds = 0
    while True:
        rounds += 1
        step = edge.withColumnRenamed("y", "m").join(delta.withColumnRenamed("x", "m"), "m").select("x", "y")
        delta = step.distinct().join(path, ["x", "y"], "left_anti")
        if delta.count() == 0:
            return path.count(), rounds
        path = path.union(delta)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("case", type=Path)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args(argv)
    spark = spark_session(args.master)
    edge = spark.read.csv(str(args.case / "facts" / "edge.tsv"), sep="\t", schema="x long, y long")
    started = time.perf_counter()
    rows, rounds = naive_closure(edge)
    print(json.dumps({"counts": {"path": rows}, "rounds": rounds, "seconds": round(time.perf_counter() - started, 2),
                      "peak_mb": peak_rss_mb()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
