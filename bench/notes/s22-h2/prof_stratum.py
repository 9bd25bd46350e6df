"""cProfile of one stratum (the one holding PREDICATE) over N LUBM-like 1,000-fact deletions.
PYTHONPATH=<tree>/src python prof_stratum.py PREDICATE N [SORT] [LIMIT]"""
import cProfile
import pstats
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.algorithms import strategies  # noqa: E402

pred, n = sys.argv[1], int(sys.argv[2])
sort = (sys.argv[3:4] or ["cumulative"])[0]
limit = int((sys.argv[4:5] or [50])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
prof = cProfile.Profile()
phase = ["warm"]
original = strategies.StratumByStratum.for_stratum


def for_stratum(self, stratum):
    f = original(self, stratum)
    if pred not in stratum.predicates or phase[0] != "delete":
        return f

    def run(*a, **k):
        prof.enable()
        try:
            return f(*a, **k)
        finally:
            prof.disable()
    return run


strategies.StratumByStratum.for_stratum = for_stratum
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    phase[0] = "delete" if i >= 2 else "warm"
    r.update(delete=rows, algorithm="dred")
    phase[0] = "add"
    r.update(add=rows, algorithm="dred")
st = pstats.Stats(prof)
print("calls per deletion", st.total_calls / n)
st.sort_stats(sort).print_stats(limit)
for f in sys.argv[5:]:
    st.print_callers(f)
