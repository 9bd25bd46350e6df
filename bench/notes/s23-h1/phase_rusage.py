"""Wall, user, system CPU and minor faults of each step of a run (bench/phase_cpu.py's steps), fresh processes.

    PYTHONPATH=src python bench/notes/s23-h1/phase_rusage.py CASE [REPEAT]
"""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"
STEPS = ("start", "import", "program", "read", "load", "materialise", "write")


def mark():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return (time.perf_counter(), r.ru_utime, r.ru_stime, r.ru_minflt)


def one(case):
    marks = [mark()]
    from deltalog.process import configure_command_process, start_up_done
    configure_command_process()
    from deltalog.api import Reasoner
    from deltalog.io.datasets import read_facts_dir
    marks.append(mark())
    reasoner = Reasoner(DATA / case / "program.dl")
    marks.append(mark())
    tables = read_facts_dir(DATA / case / "facts", arities=reasoner._arities, declarations=reasoner.declarations)
    marks.append(mark())
    reasoner.load_tables(tables)
    start_up_done()
    marks.append(mark())
    reasoner.materialise()
    marks.append(mark())
    out = Path("/tmp/h1_phase_out")
    shutil.rmtree(out, ignore_errors=True)
    reasoner.write(out)
    marks.append(mark())
    return {s: [b[i] - a[i] for i in range(4)] for s, a, b in zip(STEPS[1:], marks, marks[1:])}


if __name__ == "__main__":
    if sys.argv[-1] == "--one":
        print(json.dumps(one(sys.argv[1])))
        sys.stdout.flush()
        os._exit(0)
    case, repeat = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    runs = [json.loads(subprocess.run([sys.executable, __file__, case, "--one"], check=True, capture_output=True,
                                      text=True).stdout) for _ in range(repeat)]
    print(f"{case}: step  wall / user / sys ms, minor faults (medians of {repeat})")
    for step in STEPS[1:]:
        cols = [statistics.median(r[step][i] for r in runs) for i in range(4)]
        print(f"  {step:12s} {1000*cols[0]:7.1f} {1000*cols[1]:7.1f} {1000*cols[2]:7.1f} {cols[3]:8.0f}")
