"""Sample 0 after a warm-up update on a small Claros-like store in the same process (process one-offs paid there)."""
import sys, os, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
small = make("claros-300")
w = Reasoner(small.program, modules="auto"); w.load_tables(small.facts); w.materialise()
for sel in uniform_samples(small, 20, 1):
    rows = {p: f.rows() for p, f in sel.items()}
    c = time.process_time(); w.update(delete=rows, algorithm="auto"); print("warm delete", round(time.process_time() - c, 3))
    w.update(add=rows, algorithm="auto")
ds = make("claros-15000")
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
for i, sel in enumerate(uniform_samples(ds, 1000, 2)):
    rows = {p: f.rows() for p, f in sel.items()}
    c = time.process_time(); r.update(delete=rows, algorithm="auto"); d = time.process_time() - c
    c = time.process_time(); r.update(add=rows, algorithm="auto"); a = time.process_time() - c
    print(i, round(d, 3), round(a, 3), "scipy" , "scipy.sparse.csgraph" in sys.modules)
