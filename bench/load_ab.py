"""Loading a case's facts in fresh processes: CPU and page faults of ``Reasoner.load_directory``, checkouts interleaved.

    python bench/load_ab.py --src /work/base-h2/src,src --repeat 15 wl-reach-tiny wl-pipeline

Each repeat starts one process per checkout (the order alternates) that makes the command line's
process settings (``process.configure_command_process``: malloc thresholds, collector), builds the
case's Reasoner and times ``load_directory`` alone with ``time.process_time`` and the process's minor
page faults (the first use of memory is part of a load's cost: issue 15, stop 16); prints medians.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

from ab_cases import case_arguments

DATA = Path(__file__).resolve().parent / "data"
PROBE = r"""
import resource, sys, time
from deltalog.process import configure_command_process
configure_command_process()
from deltalog.api import Reasoner
reasoner = Reasoner(sys.argv[1] + "/program.dl")
faults, start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.process_time()
reasoner.load_directory(sys.argv[1] + "/facts")
print(time.process_time() - start, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults)
"""


def main() -> None:
    ap = case_arguments(repeat=9)
    ap.add_argument("--src", required=True, help="comma-separated src directories")
    args = ap.parse_args()
    sources = [str(Path(s).resolve()) for s in args.src.split(",")]
    for case in args.cases:
        cpu: dict[str, list[float]] = {s: [] for s in sources}
        faults: dict[str, list[int]] = {s: [] for s in sources}
        for repeat in range(args.repeat):
            for src in sources if repeat % 2 == 0 else sources[::-1]:
                out = subprocess.run([sys.executable, "-c", PROBE, str(DATA / case)], check=True, capture_output=True,
                                     text=True, env={**os.environ, "PYTHONPATH": src}, cwd="/tmp").stdout.split()
                cpu[src].append(float(out[0]))
                faults[src].append(int(out[1]))
        for src in sources:
            print(f"{case} {src}: load CPU {statistics.median(cpu[src]) * 1e3:.1f} ms "
                  f"(min {min(cpu[src]) * 1e3:.1f}), page faults {statistics.median(faults[src]):.0f}")
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
