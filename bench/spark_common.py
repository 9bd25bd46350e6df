"""Shared pieces of the Spark benchmarks: one tuned SparkSession and memory of the python + JVM tree."""

from __future__ import annotations

import os
import threading
import time

from pyspark.sql import SparkSession


def spark_session(master: str = "local[2]", driver_memory: str = "8g") -> SparkSession:
    """The session the baselines use: the same settings as deltalog's backends/spark/session.py."""
    from deltalog.backends.spark.session import get_session
    return get_session(master=master, driver_memory=driver_memory)


def _tree(pid: int) -> list[int]:
    """pid and its descendants, from /proc (PySpark does not reap its JVM child)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def tree_rss_mb(pid: int | None = None) -> float:
    """Resident memory of this process tree (python + JVM), in MB."""
    total = 0
    for p in _tree(pid or os.getpid()):
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            continue
    return total / 2**20


class _Sampler:
    """Samples tree RSS every 0.2 s in a daemon thread, keeping the peak."""

    peak = 0.0

    def start(self) -> None:
        def loop() -> None:
            while True:
                self.peak = max(self.peak, tree_rss_mb())
                time.sleep(0.2)
        threading.Thread(target=loop, daemon=True).start()


_SAMPLER = _Sampler()
_SAMPLER.start()


def peak_rss_mb() -> float:
    """The peak python + JVM RSS seen since this module was imported (MB, rounded)."""
    return round(max(_SAMPLER.peak, tree_rss_mb()), 1)
