"""Time one tuple-set probe (`Relation.contains`) of a few keys after LUBM-like updates, and its parts.
PYTHONPATH=<tree>/src python probe.py [RELATION] [ROWS]"""
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.storage.tupleset import pack  # noqa: E402

name = (sys.argv[1:2] or ["degreeFrom"])[0]
rows = int((sys.argv[2:3] or [60])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
for sel in list(uniform_samples(ds, 1000, 4)):
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
rel = r.backend._relations[name]
cols = [c[5000:5000 + rows].copy() for c in rel.columns()]
ts = rel.tuples
keys = ts._packed()
print(type(keys).__name__, len(keys), "bits", keys._bits, "tombs", keys._tombs, "sorted", keys._sorted is not None)


def best(f, n=200):
    out = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(n):
            f()
        out.append((time.perf_counter() - t) / n * 1e6)
    return min(out)


packed = pack(cols, ts._radix)
print("rel.contains us", round(best(lambda: rel.contains(cols)), 1))
print("ts.contains us", round(best(lambda: ts.contains(cols)), 1))
print("_inside us", round(best(lambda: ts._inside(cols)), 1))
print("pack us", round(best(lambda: pack(cols, ts._radix)), 1))
print("hash contains us", round(best(lambda: keys.contains(packed)), 1))
print("found", rel.contains(cols).sum())
