"""Whole-process A/B of deltalog checkouts on bench cases: CPU (user + sys of the process tree) and wall, interleaved.

    python bench/ab_cpu.py --src /work/base/src,src --cases wl-reach-tiny,dag-s-linear --repeat 5

Each repeat runs every checkout once per case before the next repeat (a shared machine's load hits
all alike); medians are printed. CPU time is steadier than wall time on a loaded 2-core VM, but
counts Polars' worker threads too. Outputs are compared (sorted lines) against the first checkout's.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def run_once(src: str, case: Path) -> tuple[float, float, dict[str, list[bytes]]]:
    out = Path(tempfile.mkdtemp(prefix="deltalog-ab-"))
    try:
        env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()))
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run([sys.executable, "-m", "deltalog", "run", str(case / "program.dl"), "--facts",
                        str(case / "facts"), "--out", str(out), "--quiet"], env=env, check=True)
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return cpu, wall, {f.name: sorted(f.read_bytes().splitlines()) for f in out.iterdir()}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="comma-separated src/ directories (the first is the reference)")
    ap.add_argument("--cases", required=True, help="comma-separated directories under bench/data")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    srcs, cases = args.src.split(","), args.cases.split(",")
    times: dict[tuple[str, str], list[tuple[float, float]]] = {(c, s): [] for c in cases for s in srcs}
    for _ in range(args.repeat):
        for case in cases:
            reference = None
            for src in srcs:
                cpu, wall, outputs = run_once(src, DATA / case)
                reference = outputs if reference is None else reference
                if outputs != reference:
                    sys.exit(f"{case}: {src} wrote other facts than {srcs[0]}")
                times[case, src].append((cpu, wall))
    print(f"{'case':16} {'src':28} {'cpu s':>7} {'wall s':>7}")
    for (case, src), samples in times.items():
        cpu, wall = statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)
        print(f"{case:16} {src:28} {cpu:7.3f} {wall:7.3f}")


if __name__ == "__main__":
    main()
