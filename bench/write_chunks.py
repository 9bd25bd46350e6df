"""Writing pipeline-like int outputs in a fresh process, by rows laid out at once (``writers.WRITE_CHUNK_ROWS``).

    PYTHONPATH=src python bench/write_chunks.py --repeat 9 8192 32768 65536 262144

Each repeat runs one child per row count given (interleaved), with the command line's process settings
(one BLAS thread, ``process.retain_freed_memory``); the child makes four IntTables shaped like
wl-pipeline's outputs (294,637 / 505,363 ids of 0..800k; 294,637 ids with counts 1-8; 276,146 pairs of
ids), then times ``writers._write`` of each as TSV on one thread; prints the median CPU seconds of the
writes per row count (issue 15, stop 19).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHILD = r"""
import sys, time
from deltalog.process import one_blas_thread, retain_freed_memory
one_blas_thread(); retain_freed_memory()
import numpy as np
from pathlib import Path
from deltalog.io import writers
from deltalog.io.int_columns import IntTable
rng = np.random.default_rng(1)
writers.WRITE_CHUNK_ROWS = int(sys.argv[1])
ids = lambda n: np.sort(rng.choice(800_000, n, replace=False))
tables = [IntTable([ids(294_637)]), IntTable([ids(505_363)]), IntTable([ids(294_637), rng.integers(1, 9, 294_637)]),
          IntTable([ids(276_146), rng.integers(0, 800_000, 276_146)])]
start = time.process_time()
for k, table in enumerate(tables):
    writers._write(table, Path(f"/tmp/write_chunks_{k}.tsv"), "tsv")
print(time.process_time() - start)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="+", type=int)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    times: dict[int, list[float]] = {rows: [] for rows in args.rows}
    for _ in range(args.repeat):
        for rows in args.rows:
            out = subprocess.run([sys.executable, "-c", CHILD, str(rows)], capture_output=True, text=True, check=True)
            times[rows].append(float(out.stdout))
    for rows, runs in times.items():
        print(f"{rows:8} rows  cpu {statistics.median(runs) * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
