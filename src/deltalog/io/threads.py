"""Work spread over a few threads: NumPy's passes over large arrays and file writes release the GIL, so
independent pieces of a load or a write (slices of a file, the files of an output directory) run on
several cores at once (issue 15: DuckDB reads and writes on every core; docs/benchmarks.md, Stop 19)."""

from __future__ import annotations

import os
import threading
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
U = TypeVar("U")

MAX_WORKERS = 4   # beyond this the passes are bound by memory bandwidth, not by cores (not measured above 2)


def workers() -> int:
    """The threads to use: ``DELTALOG_THREADS`` if the environment sets it (1: no thread but the
    caller's), else this thread and one more per core this process may run on that the last minute's
    load left idle, rounded (the rule of ``make -l``: on two cores, two threads below a load average
    of 1.5, this process included); at most MAX_WORKERS. A busy core gives a thread no wall time back
    but costs it CPU (page faults in a fresh malloc arena, the GIL handed back and forth): at load 2-6,
    two threads ran the issue-15 workloads in 0-12% more CPU and no less wall (docs/benchmarks.md, Stop 19)."""
    chosen = os.environ.get("DELTALOG_THREADS", "").strip()
    if chosen.isdigit():
        return max(min(int(chosen), MAX_WORKERS), 1)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return max(min(cores, MAX_WORKERS, 1 + int(max(cores - load, 0.0) + 0.5)), 1)


def map_in_threads(work: Callable[[T], U], items: Sequence[T], threads: int) -> list[U]:
    """``[work(item) for item in items]`` on up to ``threads`` threads (the calling one among them), item
    k on thread k mod threads, in order. A thread stops at its first exception; once all have stopped,
    the exception of the earliest item that raised one is raised here: the error the serial loop would
    raise (every item before it was worked on, by whichever thread had it)."""
    threads = max(min(threads, len(items)), 1)
    if threads == 1:
        return [work(item) for item in items]
    results: list = [None] * len(items)
    errors: dict[int, BaseException] = {}

    def run(first: int) -> None:
        for k in range(first, len(items), threads):
            try:
                results[k] = work(items[k])
            except BaseException as error:   # noqa: BLE001 -- raised in the calling thread below
                errors[k] = error
                return

    started = [threading.Thread(target=run, args=(first,), daemon=True) for first in range(1, threads)]
    for thread in started:
        thread.start()
    run(0)
    for thread in started:
        thread.join()
    if errors:
        raise errors[min(errors)]
    return results
