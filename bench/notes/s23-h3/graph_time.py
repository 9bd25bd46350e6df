"""CPU inside the graph kernels of each update (weak labellings, closure_diff.reaches, component_diff.connects)
of 003's protocol. Usage: TREE=<tree> PYTHONPATH=<tree>/src python graph_time.py DATASET [samples]"""
import os, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.components as comp
import deltalog.backends.local.closure_diff as cd
import deltalog.backends.local.component_diff as cdd
T = {"t": 0.0, "depth": 0}
def timed(owner, name):
    orig = getattr(owner, name)
    def f(*a, **k):
        T["depth"] += 1
        c = time.process_time(); out = orig(*a, **k)
        T["depth"] -= 1
        if T["depth"] == 0:
            T["t"] += time.process_time() - c
        return out
    setattr(owner, name, f)
timed(cd, "reaches")
if hasattr(cdd, "connects"):
    timed(cdd, "connects")
timed(cdd, "weak_components")   # the labellings of ComponentDifference (and of connects, counted once)
name = sys.argv[1]
samples = int(sys.argv[2]) if len(sys.argv) > 2 else 6
ds = make(name)
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
out = []
for i, sel in enumerate(uniform_samples(ds, 1000, samples)):
    rows = {p: f.rows() for p, f in sel.items()}
    for kind in ("delete", "add"):
        T["t"] = 0.0
        r.update(**{kind: rows}, algorithm="auto")
        out.append(f"{kind[0]}{i}:{T['t'] * 1e3:.1f}")
print(" ".join(out), "scipy" if "scipy.sparse.csgraph" in sys.modules else "no-scipy")
