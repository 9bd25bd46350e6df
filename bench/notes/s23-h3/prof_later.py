"""cProfile of later deletions (samples 1..N-1) of 003's protocol, after an unprofiled sample 0.
Usage: TREE=<tree> PYTHONPATH=<tree>/src python prof_later.py DATASET [SAMPLES] [delete|add]"""
import cProfile, os, pstats, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
name = sys.argv[1]
samples = int(sys.argv[2]) if len(sys.argv) > 2 else 4
kind = sys.argv[3] if len(sys.argv) > 3 else "delete"
ds = make(name)
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
pr = cProfile.Profile()
for i, sel in enumerate(uniform_samples(ds, 1000, samples)):
    rows = {p: f.rows() for p, f in sel.items()}
    for k in ("delete", "add"):
        c = time.process_time()
        if i and k == kind:
            pr.enable()
        r.update(**{k: rows}, algorithm="auto")
        pr.disable()
        print(i, k, round(time.process_time() - c, 3))
st = pstats.Stats(pr); st.sort_stats("cumulative").print_stats(60)
st.sort_stats("tottime").print_stats(30)
