"""cProfile of the first deletion of a process (sample 0 of 003's protocol) on a dataset of bench/maint_generators.py.
Usage: TREE=<tree> PYTHONPATH=<tree>/src python prof0.py DATASET [K] [warm]  (warm: a small Claros-like update first)."""
import cProfile, os, pstats, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
name = sys.argv[1]
k = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
if "warm" in sys.argv:
    small = make("claros-300")
    w = Reasoner(small.program, modules="auto"); w.load_tables(small.facts); w.materialise()
    for sel in uniform_samples(small, 20, 1):
        rows = {p: f.rows() for p, f in sel.items()}
        w.update(delete=rows, algorithm="auto"); w.update(add=rows, algorithm="auto")
ds = make(name)
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts)
c = time.process_time(); r.materialise(); print("materialise cpu", round(time.process_time() - c, 3))
print("scipy after materialise:", "scipy.sparse.csgraph" in sys.modules)
sel = next(iter(uniform_samples(ds, k, 1)))
rows = {p: f.rows() for p, f in sel.items()}
pr = cProfile.Profile()
c = time.process_time(); pr.enable(); r.update(delete=rows, algorithm="auto"); pr.disable()
print("delete cpu", round(time.process_time() - c, 3), "scipy:", "scipy.sparse.csgraph" in sys.modules)
st = pstats.Stats(pr); st.sort_stats("cumulative").print_stats(45)
st.sort_stats("tottime").print_stats(25)
