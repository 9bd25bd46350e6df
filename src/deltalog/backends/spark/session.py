"""One SparkSession per process, configured for deltalog's workload without overriding the user's.

Precedence, highest first: what the caller passes explicitly (``--master``, ``--driver-memory``,
``DELTALOG_SPARK_*``); what the user gave Spark (spark-submit, ``--conf``, ``spark-defaults.conf``,
``PYSPARK_SUBMIT_ARGS``: see ``launch.preset``); deltalog's tuning defaults. The Spark UI and console
progress are left as Spark or the user configure them. Settings that size the JVM (driver memory)
only apply before it starts; a session that exists already is used as it is, apart from the few SQL
settings deltalog's plans need (``REQUIRED``), which are applied per query (``required_settings``).
"""

from __future__ import annotations

import functools
import os
import re
import sys
import threading
from contextlib import contextmanager

TUNING = {
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.autoBroadcastJoinThreshold": str(32 * 2**20),
}
"""Defaults for a session deltalog starts, each only where the user set nothing."""

REQUIRED = {
    "spark.sql.caseSensitive": "true",          # variables X and x are different columns
    # constraint propagation fails on unions of chunks ("key not found" in UnionBase.rewriteConstraints)
    # and costs much optimiser time on the long CASE expressions of tagged values
    "spark.sql.constraintPropagation.enabled": "false",
}
"""SQL settings deltalog's plans are wrong or fail without: set on every session deltalog uses."""

_lock = threading.Lock()
_created: set[str] = set()      # application ids of the sessions deltalog started (it may clean up after them)


def is_local(master: str) -> bool:
    """Local masters run executors inside the driver's JVM (``local``, ``local[4]``, ``local[*, 3]``)."""
    return master == "local" or master.startswith("local[")


def shuffle_partitions(master: str) -> int:
    """About two shuffle partitions per core: 200 (Spark's default) is several times slower here."""
    match = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if match:
        inside = match.group(1) or "1"
        return max(2, 2 * ((os.cpu_count() or 2) if inside == "*" else int(inside)))
    return 2 * (os.cpu_count() or 2)


def resolve(user: dict[str, str], *, master: str | None = None, driver_memory: str | None = None,
            shuffle: int | None = None, config: dict | None = None) -> dict[str, str]:
    """The settings deltalog passes to a session it starts, given those the user set already."""
    master = master or os.environ.get("DELTALOG_SPARK_MASTER")
    memory = driver_memory or os.environ.get("DELTALOG_SPARK_DRIVER_MEMORY")
    shuffle = shuffle or int(os.environ.get("DELTALOG_SPARK_SHUFFLE_PARTITIONS", 0))
    effective = master or user.get("spark.master") or "local[2]"
    settings = {key: value for key, value in TUNING.items() if key not in user}
    if master or "spark.master" not in user:
        settings["spark.master"] = effective
    if memory or "spark.driver.memory" not in user:
        settings["spark.driver.memory"] = memory or "4g"
    if shuffle or "spark.sql.shuffle.partitions" not in user:
        settings["spark.sql.shuffle.partitions"] = str(shuffle or shuffle_partitions(effective))
    settings.update(REQUIRED)
    settings.update(config or {})
    return settings


def get_session(*, master: str | None = None, driver_memory: str | None = None, shuffle: int | None = None,
                config: dict | None = None, quiet: bool = False):
    """The process's SparkSession: the active one if any, else one started as ``resolve`` says."""
    from pyspark.sql import SparkSession
    from deltalog.backends.spark.launch import jvm_running, launch_quietly, preset
    with _lock:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        user = preset()
        settings = resolve(user, master=master, driver_memory=driver_memory, shuffle=shuffle, config=config)
        if quiet and not jvm_running():
            launch_quietly(settings)
        builder = SparkSession.builder.appName(user.get("spark.app.name", "deltalog"))
        for key, value in settings.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        _created.add(spark.sparkContext.applicationId)
        if quiet:
            spark.sparkContext.setLogLevel("ERROR")
        use_worker_python(spark.sparkContext)
        return spark


def created_by_deltalog(spark) -> bool:
    return spark.sparkContext.applicationId in _created


def configured_python(sc) -> str | None:
    """The Python the user chose for the executors, if any (PySpark itself only reads the environment
    variable unless spark-submit started it, so ``spark.pyspark.python`` is honoured here too)."""
    return os.environ.get("PYSPARK_PYTHON") or sc.getConf().get("spark.pyspark.python", None)


def use_worker_python(sc) -> None:
    """Python workers run the user's chosen interpreter, else on local masters the driver's own: the
    ``python3`` on PATH (PySpark's default) need not have deltalog, e.g. from a non-activated venv."""
    chosen = configured_python(sc)
    if chosen:
        sc.pythonExec = chosen
    elif is_local(sc.master):
        sc.pythonExec = sys.executable


@contextmanager
def required_settings(spark):
    """Apply ``REQUIRED`` to a session while deltalog works in it, restoring the user's values after."""
    changed = {}
    for key, value in REQUIRED.items():
        current = spark.conf.get(key, None)
        if current is None or current.lower() != value:
            changed[key] = current
            spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in changed.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def with_required_settings(cls):
    """Class decorator: each public method of a backend working in the user's session (``own_settings``
    false) runs inside ``required_settings``; plans are analysed as they are built, so the settings
    must hold while they are built, not only when a job runs."""
    for name, method in list(vars(cls).items()):
        if callable(method) and not name.startswith("_") and not isinstance(method, type):
            setattr(cls, name, _scoped(method))
    return cls


def _scoped(method):
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        if getattr(self, "own_settings", True):
            return method(self, *args, **kwargs)
        with required_settings(self.spark):
            return method(self, *args, **kwargs)
    return run
