"""Writing a relation of ints as TSV in a fresh process: NumPy (io/int_columns.py) vs importing Polars.

    PYTHONPATH=src python bench/int_io.py 100000 300000 1000000 2000000 [--high 2000]

For each row count (2 random int columns below ``--high``, default 2,000), five fresh processes each
way, interleaved, each with the command line's malloc settings (``process.retain_freed_memory``);
prints the median of the child's wall seconds and of its CPU seconds (``time.process_time``: all
its threads; Polars writes with several) for the write alone, the import included. This fixed
io/writers.NUMPY_WRITE_CELLS (docs/design.md).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHILD = """
import sys, time
from deltalog.process import retain_freed_memory
retain_freed_memory()   # as the command line does, before NumPy allocates
import numpy as np
from pathlib import Path
from deltalog.io import writers
from deltalog.io.int_columns import IntTable
rng = np.random.default_rng(1)
n, high = int(sys.argv[2]), int(sys.argv[3])
table = IntTable([rng.integers(0, high, n), rng.integers(0, high, n)])
writers.NUMPY_WRITE_CELLS = 1 << 62   # the way is chosen here, not by the threshold being measured
start, wall = time.process_time(), time.perf_counter()
if sys.argv[1] == "polars":
    import polars   # its import is part of that way's cost
    table = table.to_polars()
writers._write(table, Path("/tmp/int_io.tsv"), "tsv")
print(time.perf_counter() - wall, time.process_time() - start)
"""


def timed(way: str, rows: int, high: int) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, way, str(rows), str(high)], capture_output=True, text=True,
                         check=True)
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="*", type=int, default=[100000, 1000000])
    ap.add_argument("--high", type=int, default=2000, help="the values are below this")
    args = ap.parse_args()
    for rows in args.rows:
        samples: dict[str, list[tuple[float, float]]] = {"numpy": [], "polars": []}
        for _ in range(5):
            for way in samples:
                samples[way].append(timed(way, rows, args.high))
        print(rows, " ".join(f"{way} wall {statistics.median(w for w, _ in v):.3f} cpu "
                              f"{statistics.median(c for _, c in v):.3f}" for way, v in samples.items()))


if __name__ == "__main__":
    main()
