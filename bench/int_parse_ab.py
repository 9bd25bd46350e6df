"""Reading int files in a fresh process, this checkout beside another (``--base``): the int reader alone.

    PYTHONPATH=src python bench/int_parse_ab.py --base /tmp/base-h3/src --repeat 11 \
        bench/data/wl-reach-tiny/facts/edge.tsv bench/data/wl-pipeline/facts/node.tsv

Each repeat runs, in turn (who goes first rotates), a child process per way: ``base`` (the other
checkout), ``branch`` (this one) and ``branch-1t`` (this one with ``io.int_reader.workers`` 1: the
slices parsed on one thread, to tell the slicing's gain from the threads'), and with ``--slices`` this
one on one thread with each ``SLICE_BYTES`` given (``1t-<kB>k``; a size above the file's: one pass).
Each child makes the command line's process settings (one BLAS thread, ``process.retain_freed_memory``),
imports NumPy and the reader, then times ``io.formats.read_decoded`` of every file given; prints the
median wall and CPU seconds (``time.process_time``: all threads) of the reads alone (issue 15, stop 19).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
CHILD = """
import sys, time
from deltalog.process import one_blas_thread, retain_freed_memory
one_blas_thread()   # as the command line does, before NumPy is imported
retain_freed_memory()
from deltalog.io import formats, int_reader
if sys.argv[1] == "1":
    int_reader.workers = lambda: 1
if int(sys.argv[2]):
    int_reader.SLICE_BYTES = int(sys.argv[2])
start, wall = time.process_time(), time.perf_counter()
tables = [formats.read_decoded(path) for path in sys.argv[3:]]
print(time.perf_counter() - wall, time.process_time() - start, type(tables[0]).__name__)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--base", type=Path, required=True, help="src/ of the checkout to compare with")
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--slices", default="", help="comma-separated SLICE_BYTES to try on one thread as well")
    args = ap.parse_args()
    ways = {"base": (args.base, "0", "0"), "branch": (SRC, "0", "0"), "branch-1t": (SRC, "1", "0")}
    ways.update({f"1t-{int(size) >> 10}k": (SRC, "1", size) for size in args.slices.split(",") if size})
    times: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
    files = [str(Path(f).resolve()) for f in args.files]
    for repeat in range(args.repeat):
        order = list(ways)
        for way in order[repeat % len(order):] + order[:repeat % len(order)]:
            src, one, slice_bytes = ways[way]
            out = subprocess.run([sys.executable, "-c", CHILD, one, slice_bytes, *files], capture_output=True,
                                 text=True, check=True, env={**os.environ, "PYTHONPATH": str(src)}).stdout.split()
            assert out[2] == "IntTable", out   # the int reader took the files (else another reader was timed)
            times[way].append((float(out[0]), float(out[1])))
    for way, runs in times.items():
        print(f"{way:10} wall {statistics.median(w for w, _ in runs) * 1000:6.1f} ms"
              f"  cpu {statistics.median(c for _, c in runs) * 1000:6.1f} ms")
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
