"""Which scipy graph calls a process makes, per update (caller, graph size, CPU ms), over 003's protocol.
Usage: TREE=<tree> PYTHONPATH=<tree>/src python scipy_calls.py DATASET K SAMPLES"""
import os, sys, time, traceback
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.reach as reach
orig = reach.scipy_graph
def traced(s, d, n):
    st = traceback.extract_stack()[-3]
    print(f"    scipy_graph from {os.path.basename(st.filename)}:{st.lineno} {st.name} edges={s.size} n={n} "
          f"loaded={'scipy.sparse.csgraph' in sys.modules}")
    return orig(s, d, n)
reach.scipy_graph = traced
import deltalog.backends.local.closure as cl, deltalog.backends.local.components as co
cl.scipy_graph = traced; co.scipy_graph = traced
name, k, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ds = make(name)
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts)
print("materialise"); r.materialise()
for i, sel in enumerate(uniform_samples(ds, k, samples)):
    rows = {p: f.rows() for p, f in sel.items()}
    for kind in ("delete", "add"):
        print(i, kind)
        c = time.process_time(); r.update(**{kind: rows}, algorithm="auto"); print(f"  cpu {time.process_time()-c:.3f}")
