"""Transitive closure on Spark by the closure nodes (backends/spark/closure.py), one strategy per process.

The Spark backend's ``insert(relation="path", plan=TransitiveClosure(Scan("edge")), generation=1)`` over
a chain of 2,000 edges, the 20,000-edge DAG (2,000 nodes, DAG-S) or DAG-R (10,000 nodes, 100,000 edges),
with the strategy forced (``driver``, ``executors``, ``joins``) or chosen as the CLI would (``auto``, with
``--offload-rows``: 0 is "offload off"); ``naive`` is the textbook DataFrame loop (bench/spark_naive.py).
Prints one JSON line: wall seconds of the insert, Spark jobs it ran (status tracker, by job group), the
closure's rounds and their seconds, and the peak RSS of python + JVM over the whole process.

    python bench/spark_closure.py --case dag-r --strategy executors
    python bench/spark_closure.py --case dag-s --strategy auto --offload-rows 0 --cluster 2
    python bench/spark_closure.py --case chain-2000 --strategy naive
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from generators import random_dag_edges  # noqa: E402
from spark_common import peak_rss_mb, spark_session, tree_rss_mb  # noqa: E402

CASES = {
    "chain-2000": lambda: np.stack([np.arange(2000), np.arange(1, 2001)], axis=1),
    "dag-s": lambda: random_dag_edges(2_000, 20_000, 2),
    "dag-r": lambda: random_dag_edges(10_000, 100_000, 1),
    "chain-64": lambda: np.stack([np.arange(64), np.arange(1, 65)], axis=1),   # the per-round fixed cost
}
EXPECTED = {"chain-2000": 2_001_000, "dag-s": 1_104_884, "dag-r": 22_214_305, "chain-64": 2_080}


def jobs_in(spark, group: str) -> int:
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


def run_closure(spark, edges: np.ndarray, strategy: str, offload_rows: int | None, checkpoint_dir: str | None) -> dict:
    from deltalog.backends.spark.backend import SparkBackend
    from deltalog.plan import ir
    backend = SparkBackend(spark, checkpoint_dir=checkpoint_dir)
    backend.create_relation(relation="edge", arity=2)
    backend.create_relation(relation="path", arity=2)
    table = pa.table({"c0": pa.array(np.char.add("i", edges[:, 0].astype(str))),
                      "c1": pa.array(np.char.add("i", edges[:, 1].astype(str)))})
    backend.import_rows(relation="edge", table=table, generation=0)
    backend.count(relation="edge")
    spark.range(10).count()                                   # the first job of a session is slow: not timed
    backend.closure_strategy = None if strategy == "auto" else strategy
    if offload_rows is not None:
        backend.closure_driver_rows = offload_rows
    spark.sparkContext.setJobGroup("closure", "closure")
    rss_before = tree_rss_mb()
    started = time.perf_counter()
    rows = backend.insert(relation="path", plan=ir.TransitiveClosure(ir.Scan("edge", (ir.Col("X"), ir.Col("Y")))),
                          generation=1)
    seconds = time.perf_counter() - started
    run = backend.closure_log[-1]
    out = {"engine": "deltalog-closure", "strategy": run.strategy, "rows": rows, "seconds": round(seconds, 2),
           "closure_seconds": round(run.seconds, 2), "spark_jobs": jobs_in(spark, "closure"),
           "backend_actions": backend.actions, "rounds": run.rounds,
           "round_seconds": [round(s, 2) for s in run.round_seconds], "rss_before_mb": round(rss_before)}
    if run.rounds:
        out["per_round"] = round(sum(run.round_seconds) / run.rounds, 2)
    backend.close()
    return out


def run_naive(spark, edges: np.ndarray) -> dict:
    from spark_naive import naive_closure
    frame = spark.createDataFrame(pa.table({"x": edges[:, 0], "y": edges[:, 1]}))
    spark.sparkContext.setJobGroup("closure", "closure")
    started = time.perf_counter()
    rows, rounds = naive_closure(frame)
    return {"engine": "naive-dataframe", "rows": rows, "rounds": rounds,
            "seconds": round(time.perf_counter() - started, 2), "spark_jobs": jobs_in(spark, "closure")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", choices=sorted(CASES), required=True)
    ap.add_argument("--strategy", choices=("auto", "driver", "executors", "joins", "naive"), default="auto")
    ap.add_argument("--offload-rows", type=int, help="the driver path's bound (0: off); default the backend's")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="8g")
    ap.add_argument("--cluster", type=int, default=0, help="start a standalone master with this many workers")
    ap.add_argument("--worker-memory", default="1g")
    args = ap.parse_args(argv)
    edges = CASES[args.case]()
    cluster, checkpoint_dir, workdir = None, None, None
    master = args.master
    if args.cluster:
        from spark_cluster import Cluster
        workdir = tempfile.TemporaryDirectory(prefix="closure-cluster-")
        cluster = Cluster(Path(workdir.name))
        cluster.start_master()
        for _ in range(args.cluster):
            cluster.start_worker(memory=args.worker_memory)
        master, checkpoint_dir = cluster.url, str(Path(workdir.name) / "checkpoints")
    try:
        if args.cluster:
            from deltalog.backends.spark.session import get_session
            spark = get_session(master=master, driver_memory="2g", config={
                "spark.pyspark.python": sys.executable, "spark.executor.memory": args.worker_memory})
        else:
            spark = spark_session(master, args.driver_memory)
        spark.sparkContext.setLogLevel("ERROR")
        if args.strategy == "naive":
            result = run_naive(spark, edges)
        else:
            result = run_closure(spark, edges, args.strategy, args.offload_rows, checkpoint_dir)
        result.update(case=args.case, master=master, expected=EXPECTED[args.case],
                      correct=result["rows"] == EXPECTED[args.case], peak_mb=peak_rss_mb())
        print(json.dumps(result), flush=True)
        spark.stop()
    finally:
        if cluster is not None:
            cluster.stop()
            workdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
