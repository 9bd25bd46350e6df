"""Capture the graph-kernel inputs of Claros-like updates (weak labellings, reachable, Reaches) into /tmp/h3/graphs.npz.
Usage: PYTHONPATH=<tree>/src python capture.py [DATASET]"""
import sys, pathlib, pickle
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
import numpy as np
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.components as comp
import deltalog.backends.local.reach as reach
import deltalog.backends.local.closure_diff as cd
calls = []
ow, orr, ore = comp.weak_components, cd.reachable, cd.reaches
def weak(s, d, n):
    calls.append(("weak", s.copy(), d.copy(), n)); return ow(s, d, n)
def reachable(s, d, n, roots):
    calls.append(("reach", s.copy(), d.copy(), n, roots.copy())); return orr(s, d, n, roots)
comp.weak_components = weak
import deltalog.backends.local.component_diff as cdd
cdd.weak_components = weak
cd.reachable = reachable
ds = make(sys.argv[1] if len(sys.argv) > 1 else "claros-15000")
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
for sel in uniform_samples(ds, 1000, 2):
    rows = {p: f.rows() for p, f in sel.items()}
    calls.append(("update", "delete")); r.update(delete=rows, algorithm="auto")
    calls.append(("update", "add")); r.update(add=rows, algorithm="auto")
pickle.dump(calls, open("/tmp/h3/graphs.pkl", "wb"))
for c in calls:
    print(c[0], c[1] if c[0] == "update" else (c[1].size, c[3]))
