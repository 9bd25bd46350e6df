"""One SparkSession per process, configured for deltalog's workload (small shuffles, Arrow, no UI).

Settings that size the JVM (driver memory) only apply before it starts, so they are taken
from the first call; later calls return the running session whatever they ask for.
"""

from __future__ import annotations

import os
import threading

DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.caseSensitive": "true",          # variables X and x are different columns
    "spark.sql.adaptive.enabled": "true",
    # constraint propagation fails on unions of chunks ("key not found" in UnionBase.rewriteConstraints)
    # and costs much optimiser time on the long CASE expressions of tagged values
    "spark.sql.constraintPropagation.enabled": "false",
    "spark.sql.autoBroadcastJoinThreshold": str(32 * 2**20),
    "spark.driver.extraJavaOptions": "-XX:+UseG1GC",
    "spark.executorEnv.PYTHONWARNINGS": "ignore::FutureWarning",   # pandas 3 nags in every Python worker
}
_lock = threading.Lock()


def shuffle_partitions(master: str) -> int:
    """About two shuffle partitions per core: 200 (Spark's default) is several times slower here."""
    if master.startswith("local["):
        inside = master[len("local["):-1].split(",")[0]
        cores = (os.cpu_count() or 2) if inside == "*" else int(inside)
        return max(2, 2 * cores)
    return 2 * (os.cpu_count() or 2)


def get_session(*, master: str | None = None, driver_memory: str | None = None,
                shuffle: int | None = None, checkpoint_dir: str | None = None, config: dict | None = None):
    """The process's SparkSession, created on first use (master default ``local[2]``)."""
    from pyspark.sql import SparkSession
    with _lock:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        master = master or os.environ.get("DELTALOG_SPARK_MASTER", "local[2]")
        builder = SparkSession.builder.appName("deltalog").master(master)
        shuffle = shuffle or int(os.environ.get("DELTALOG_SPARK_SHUFFLE_PARTITIONS", 0)) or shuffle_partitions(master)
        settings = {**DEFAULTS, "spark.sql.shuffle.partitions": str(shuffle),
                    "spark.driver.memory": driver_memory or os.environ.get("DELTALOG_SPARK_DRIVER_MEMORY", "4g"),
                    **(config or {})}
        for key, value in settings.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("WARN")
        if checkpoint_dir:
            spark.sparkContext.setCheckpointDir(checkpoint_dir)
        return spark
