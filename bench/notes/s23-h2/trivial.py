"""cProfile of trivial statements on a warmed LUBM-like store: `LocalBackend.insert` of a 2-row scan into a scratch
relation, repeated. PYTHONPATH=<tree>/src python trivial.py [REPS]"""
import cProfile
import pstats
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.reasoning.update import tuples_of  # noqa: E402
from deltalog.plan.rules import View  # noqa: E402

reps = int((sys.argv[1:2] or [500])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
be = r.backend
be.create_relation(relation="t", arity=2)
src = be._relations["subOrganizationOf#explicit"]
g = r.reasoning.tick()
plan = tuples_of("subOrganizationOf#explicit", 2, View(since=0, until=1))
ts = []
for i in range(reps):
    be.create_relation(relation=f"t{i}", arity=2)
    t = time.perf_counter()
    be.insert(relation=f"t{i}", plan=plan, generation=g)
    ts.append((time.perf_counter() - t) * 1e6)
    be.drop(relation=f"t{i}")
ts.sort()
print(f"insert of {src.rows_for(0, 1)} rows: median {ts[len(ts)//2]:.1f} us")
prof = cProfile.Profile()
prof.enable()
for i in range(reps):
    be.create_relation(relation=f"t{i}", arity=2)
    be.insert(relation=f"t{i}", plan=plan, generation=g)
    be.drop(relation=f"t{i}")
prof.disable()
pstats.Stats(prof).sort_stats("tottime").print_stats(25)
