"""cProfile of K-fact LUBM-like deletions (or re-adds): PYTHONPATH=<tree>/src python prof.py [DATASET K N KIND SORT LIMIT].
Two warm-up pairs, then N deletions (each followed by its re-add, unprofiled unless KIND=add)."""
import cProfile
import pstats
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

name, k, n = (sys.argv[1:2] or ["lubm"])[0], int((sys.argv[2:3] or [1000])[0]), int((sys.argv[3:4] or [10])[0])
kind = (sys.argv[4:5] or ["delete"])[0]
sort = (sys.argv[5:6] or ["tottime"])[0]
limit = int((sys.argv[6:7] or [60])[0])
ds = make(name)
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, k, n + 2))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
prof = cProfile.Profile()
for sel in samples[2:]:
    rows = {p: f.rows() for p, f in sel.items()}
    if kind == "delete":
        prof.enable()
    r.update(delete=rows, algorithm="dred")
    prof.disable()
    if kind == "add":
        prof.enable()
    r.update(add=rows, algorithm="dred")
    prof.disable()
st = pstats.Stats(prof)
st.sort_stats(sort).print_stats(limit)
for f in sys.argv[7:]:
    st.print_callers(f)
