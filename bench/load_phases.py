"""Where a whole ``deltalog run`` spends its time: imports, reading, encoding, materialisation, decoding, writing.

    PYTHONPATH=src python bench/load_phases.py bench/data/pc [--repeat 7]

Each repeat is a fresh process (the costs of a first run, page faults included, are what a user pays)
running ``deltalog run CASE/program.dl --facts CASE/facts --out DIR --quiet`` from /tmp (``PYTHONPATH``
this checkout's src) with
``perf_counter`` wrappers around the phases; prints the median seconds of each (issue 15, stop 13:
docs/benchmarks.md). A phase a run does not reach (no plain names: no ``encode_plain``) is left out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PROBE = r"""
import json, sys, time
start = time.perf_counter()
import deltalog.algorithms.seminaive as seminaive
import deltalog.backends.local.backend as backend
import deltalog.io.datasets as datasets
import deltalog.io.writers as writers
import deltalog.cli as cli
from deltalog.cli import main
phases = {"imports": time.perf_counter() - start}

def timed(module, name):   # a module's function or a class's method
    original = getattr(module, name)
    def wrapper(*args, **kwargs):
        at = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            phases[name] = phases.get(name, 0.0) + time.perf_counter() - at
    setattr(module, name, wrapper)

for module, name in ((datasets, "read_facts_dir"), (backend.LocalBackend, "load_many"), (backend.LocalBackend, "load"),
                     (backend.LocalBackend, "read"), (cli, "build_parser"), (seminaive, "materialise"),
                     (writers, "write_relations")):
    if hasattr(module, name):   # a phase a checkout does not have (renamed since) is left out
        timed(module, name)
sys.argv = ["deltalog", "run", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
phases["total"] = time.perf_counter() - start
print(json.dumps(phases))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("case", type=Path, help="a directory with program.dl and facts/")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    case = args.case.resolve()
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as out:
            command = [sys.executable, "-c", PROBE, str(case / "program.dl"), "--facts", str(case / "facts"),
                       "--out", str(Path(out) / "out"), "--quiet"]
            done = subprocess.run(command, cwd="/tmp", capture_output=True, text=True, check=True,
                                  env={**os.environ, "PYTHONPATH": str(SRC)})
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    for phase in runs[0]:
        print(f"{phase:16} {statistics.median(r.get(phase, 0.0) for r in runs):.4f} s")


if __name__ == "__main__":
    main()
