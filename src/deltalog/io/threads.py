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
    """The threads to use: the cores this process may run on, at most MAX_WORKERS and at most the
    environment's ``DELTALOG_THREADS`` (1: no thread but the caller's)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    chosen = os.environ.get("DELTALOG_THREADS", "")
    limit = int(chosen) if chosen.strip().isdigit() else MAX_WORKERS
    return max(min(cores, MAX_WORKERS, limit), 1)


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
