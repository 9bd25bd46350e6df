"""cProfile of one run's steps in process (bench/phase_cpu.py's steps), printed by tottime.

    PYTHONPATH=src python bench/notes/s23-h1/profile_steps.py wl-pipeline [load|materialise|write|read|all] [N]
"""
import cProfile
import pstats
import shutil
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"
case = sys.argv[1]
step = sys.argv[2] if len(sys.argv) > 2 else "all"
top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
from deltalog.process import configure_command_process, start_up_done
configure_command_process()
from deltalog.api import Reasoner
from deltalog.io.datasets import read_facts_dir
prof = cProfile.Profile()
reasoner = Reasoner(DATA / case / "program.dl")
def on(name):
    if step in (name, "all"):
        prof.enable()
def off():
    prof.disable()
on("read"); tables = read_facts_dir(DATA / case / "facts", arities=reasoner._arities, declarations=reasoner.declarations); off()
on("load"); reasoner.load_tables(tables); off()
start_up_done()
on("materialise"); reasoner.materialise(); off()
out = Path("/tmp/h1_profile_out"); shutil.rmtree(out, ignore_errors=True)
on("write"); reasoner.write(out); off()
pstats.Stats(prof).sort_stats("tottime").print_stats(top)
