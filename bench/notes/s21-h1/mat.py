"""Materialisation CPU of a bench/maint_generators.py dataset, in a fresh process: mat.py DATASET (TREE=<tree>)."""
import os, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make
from deltalog.api import Reasoner
ds = make(sys.argv[1])
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts)
c = time.process_time(); r.materialise(); print(sys.argv[1], os.environ["TREE"], f"materialise cpu {time.process_time() - c:.3f}")
