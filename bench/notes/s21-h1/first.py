"""Sample 0's deletion and re-add CPU after one of: nothing (cold), scipy.sparse.csgraph imported before
(scipy), a warm-up update of claros-300 in the same process (warm). One process per mode.
Usage: TREE=<tree> PYTHONPATH=<tree>/src python first.py DATASET MODE [samples]"""
import os, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
name, mode = sys.argv[1], sys.argv[2]
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 2
if mode == "scipy":
    import scipy.sparse.csgraph  # noqa
if mode == "warm":
    small = make("claros-300")
    w = Reasoner(small.program, modules="auto"); w.load_tables(small.facts); w.materialise()
    for sel in uniform_samples(small, 20, 1):
        rows = {p: f.rows() for p, f in sel.items()}
        w.update(delete=rows, algorithm="auto"); w.update(add=rows, algorithm="auto")
ds = make(name)
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts)
c = time.process_time(); r.materialise(); m = time.process_time() - c
out = []
for i, sel in enumerate(uniform_samples(ds, 1000, samples)):
    rows = {p: f.rows() for p, f in sel.items()}
    c = time.process_time(); r.update(delete=rows, algorithm="auto"); d = time.process_time() - c
    c = time.process_time(); r.update(add=rows, algorithm="auto"); a = time.process_time() - c
    out.append(f"{d:.3f}/{a:.3f}")
print(mode, f"mat {m:.3f}", " ".join(out), "scipy" if "scipy.sparse.csgraph" in sys.modules else "no-scipy")
