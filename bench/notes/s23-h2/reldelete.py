"""Micro: one relation's `Relation.delete` of a LUBM-like sample's rows, then re-inserted (appended, as a re-add),
repeated; CPU us per delete broken into its steps by wrappers. PYTHONPATH=<tree>/src python reldelete.py REL [REPS]"""
import sys
import time
import statistics
import numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

name = sys.argv[1]
reps = int((sys.argv[2:3] or [50])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, 3))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
be = r.backend
rel = be._relations[name]
sel = samples[2][name]
cols = be._encoded({name: sel})[name]
print(name, len(rel), "rows;", len(cols[0]), "deleted a time; tuples", type(rel.tuples._keys).__name__,
      "row map", rel._row_map is not None)
g = r.reasoning.tick() if hasattr(r.reasoning, "tick") else 10**6
ts = []
for i in range(reps):
    g = r.reasoning.tick()
    t = time.perf_counter()
    n = rel.delete(cols, generation=g)
    ts.append((time.perf_counter() - t) * 1e6)
    g = r.reasoning.tick()
    rel.insert(cols, generation=g)
print(f"delete {statistics.median(ts):.1f} us (median of {reps}), {n} rows")
if "--lines" in sys.argv:
    from line_profiler import LineProfiler
    from deltalog.storage import relation as relmod, tupleset, hashmap, rowmap, deathcounts
    lp = LineProfiler()
    for f in (relmod.Relation.delete, relmod.Relation._rows_equal_to, relmod.Relation._live_rows_equal_to,
              relmod.Relation._map_rows, relmod.Relation._current_row_map, tupleset.TupleSet.take_rows,
              hashmap.Int64HashMap.pop, rowmap.RowMap.assign, deathcounts.DeathCounts.died):
        lp.add_function(f)
    lp.enable_by_count()
    for i in range(reps):
        g = r.reasoning.tick()
        rel.delete(cols, generation=g)
        g = r.reasoning.tick()
        rel.insert(cols, generation=g)
    lp.disable_by_count()
    lp.print_stats(output_unit=1e-6)
