"""Physical value encodings on Spark, measured: tagged strings vs long ids on seminaive linear TC.

Both variants run the same loop (broadcast edges, localCheckpointed deltas, path kept as a
union of chunks, left_anti against it per round); only the column type differs:
(a) ``tagged``: one string column per logical column, ``i42`` style (what the backend uses);
(b) ``long``: int values as themselves (what a long-id dictionary encoding would join on).

    python bench/spark_encoding.py bench/data/dag-s-linear --encoding tagged --master 'local[2]'
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import reduce
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession, functions as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spark_common import peak_rss_mb, spark_session  # noqa: E402


def read_edges(spark: SparkSession, case_dir: Path, encoding: str) -> DataFrame:
    raw = spark.read.csv(str(case_dir / "facts" / "edge.tsv"), sep="\t", schema="a string, b string")
    if encoding == "tagged":
        return raw.select(F.concat(F.lit("i"), "a").alias("x"), F.concat(F.lit("i"), "b").alias("y"))
    return raw.select(F.col("a").cast("long").alias("x"), F.col("b").cast("long").alias("y"))


def closure(edges: DataFrame) -> tuple[int, int, list[float]]:
    """Seminaive linear TC, lineage cut per delta; returns (rows, rounds, seconds per round)."""
    edges = edges.localCheckpoint()
    chunks, delta, total, rounds, times = [edges], edges, edges.count(), 0, []
    step = F.broadcast(edges.withColumnRenamed("x", "p").withColumnRenamed("y", "q"))
    while True:
        started = time.perf_counter()
        derived = delta.join(step, delta["x"] == step["q"]).select(F.col("p").alias("x"), "y").distinct()
        path = reduce(DataFrame.unionAll, chunks)
        delta = derived.join(path, ["x", "y"], "left_anti").localCheckpoint()
        added = delta.count()
        times.append(time.perf_counter() - started)
        rounds += 1
        if not added:
            return total, rounds, times
        chunks.append(delta)
        total += added


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("case", type=Path)
    ap.add_argument("--encoding", choices=("tagged", "long"), default="tagged")
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args(argv)
    spark = spark_session(args.master)
    started = time.perf_counter()
    rows, rounds, times = closure(read_edges(spark, args.case, args.encoding))
    seconds = time.perf_counter() - started
    print(json.dumps({"encoding": args.encoding, "rows": rows, "rounds": rounds, "seconds": round(seconds, 2),
                      "round_seconds": [round(t, 2) for t in times], "peak_mb": peak_rss_mb()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
