"""Work spread over a few threads: NumPy's passes over large arrays and file writes release the GIL, so
independent pieces of a load or a write (slices of a file, the files of an output directory) can run on
several cores at once (issue 15: DuckDB reads and writes on every core). Only when asked
(``DELTALOG_THREADS``): measured, it did not pay (``workers``)."""

from __future__ import annotations

import os
import threading
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
U = TypeVar("U")

MAX_WORKERS = 4   # beyond this the passes are bound by memory bandwidth, not by cores (not measured above 2)


def workers() -> int:
    """The threads to use: ``DELTALOG_THREADS`` if the environment sets it (at most MAX_WORKERS), else 1.

    One by default because a second thread bought no wall time in whole runs, only CPU (page faults in
    a fresh malloc arena, the GIL handed back and forth): issue 15's workloads at load 1.2, 11
    interleaved runs, two threads vs one: wall within +-5 ms, CPU +19-40 ms (docs/benchmarks.md, Stop
    19; stop 16's two halves found the same). The slices themselves are the gain, on one thread."""
    chosen = os.environ.get("DELTALOG_THREADS", "").strip()
    return max(min(int(chosen), MAX_WORKERS), 1) if chosen.isdigit() else 1


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
