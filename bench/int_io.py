"""CPU of writing a relation of ints as TSV in a fresh process: NumPy (io/int_columns.py) vs importing Polars.

    PYTHONPATH=src python bench/int_io.py 100000 300000 1000000 2000000

For each row count (2 random int columns below 2,000), three fresh processes each way; prints the
child's CPU seconds (``time.process_time``: all its threads) for the write alone,
the import included. This fixed io/writers.NUMPY_WRITE_CELLS (docs/design.md).
"""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import sys, time, numpy as np
from pathlib import Path
from deltalog.io import writers
from deltalog.io.int_columns import IntTable
rng = np.random.default_rng(1)
n = int(sys.argv[2])
table = IntTable([rng.integers(0, 2000, n), rng.integers(0, 2000, n)])
writers.NUMPY_WRITE_CELLS = 1 << 62   # the way is chosen here, not by the threshold being measured
start = time.process_time()
if sys.argv[1] == "polars":
    import polars   # its import is part of that way's cost
    table = table.to_polars()
writers._write(table, Path("/tmp/int_io.tsv"), "tsv")
print(time.process_time() - start)
"""


def cpu(way: str, rows: int) -> float:
    out = subprocess.run([sys.executable, "-c", CHILD, way, str(rows)], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    for rows in map(int, sys.argv[1:] or ["100000", "1000000"]):
        samples = {way: [cpu(way, rows) for _ in range(3)] for way in ("numpy", "polars")}
        print(rows, " ".join(f"{way} {' / '.join(f'{s:.3f}' for s in v)}" for way, v in samples.items()))


if __name__ == "__main__":
    main()
