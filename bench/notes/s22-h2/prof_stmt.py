"""cProfile of the backend statements writing one relation during N LUBM-like 1,000-fact deletions.
PYTHONPATH=<tree>/src python prof_stmt.py RELATION N [METHOD] [SORT] [LIMIT]"""
import cProfile
import pstats
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.backends.local.backend import LocalBackend  # noqa: E402

relation, n = sys.argv[1], int(sys.argv[2])
method = (sys.argv[3:4] or ["delete"])[0]
sort = (sys.argv[4:5] or ["cumulative"])[0]
limit = int((sys.argv[5:6] or [40])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
prof = cProfile.Profile()
original = getattr(LocalBackend, method)
phase = ["delete"]


def wrapped(self, *a, **k):
    if phase[0] == "delete" and (relation == "ALL" or k.get("relation") == relation):
        prof.enable()
        try:
            return original(self, *a, **k)
        finally:
            prof.disable()
    return original(self, *a, **k)


setattr(LocalBackend, method, wrapped)
for sel in samples[2:]:
    rows = {p: f.rows() for p, f in sel.items()}
    phase[0] = "delete"
    r.update(delete=rows, algorithm="dred")
    phase[0] = "add"
    r.update(add=rows, algorithm="dred")
st = pstats.Stats(prof).sort_stats(sort)
st.print_stats(limit)
if len(sys.argv) > 6:
    st.print_callers(sys.argv[6])
