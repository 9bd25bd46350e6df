"""Time one keyed existence check (an anti-join's right side ``Scan REL`` keyed on one column, as DRed's
checks build them) after LUBM-like updates: the check's build and its probe of K keys, and the parts.
PYTHONPATH=<tree>/src python keyed.py [RELATION POSITION K]"""
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.backends.local import execute  # noqa: E402,F401
from deltalog.backends.local import exists  # noqa: E402
from deltalog.backends.local.frame import Frame  # noqa: E402
from deltalog.plan import ir  # noqa: E402

name = (sys.argv[1:2] or ["degreeFrom"])[0]
position = int((sys.argv[2:3] or [1])[0])
k = int((sys.argv[3:4] or [58])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
for sel in list(uniform_samples(ds, 1000, 4)):
    rows = {p: f.rows() for p, f in sel.items()}
    r.update(delete=rows, algorithm="dred")
    r.update(add=rows, algorithm="dred")
backend = r.backend
rel = backend._relations[name]
values = np.unique(rel.columns()[position])[::97][:k].astype(np.int64)
terms = tuple(ir.Col("c0") if i == position else ir.Col(f"x{i}#body") for i in range(rel.arity))
node = ir.AntiJoin(ir.Scan("nothing", (ir.Col("c0"),)), ir.Scan(name, terms), ("c0",))
frame = Frame({"c0": values}, values.size)
print(name, "rows", len(rel), "deleted", rel.deleted_rows, "index runs",
      [len(x.keys) for x in rel._indexes[(position,)].runs] if (position,) in rel._indexes else None)


def best(f, n=300):
    out = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(n):
            f()
        out.append((time.perf_counter() - t) / n * 1e6)
    return min(out)


ctx = backend._context()
print("build us", round(best(lambda: exists.indexed_check(node, ctx)), 1))
check = exists.indexed_check(node, ctx)
print("probe us", round(best(lambda: check(frame)), 1), "found", int(check(frame).sum()), "of", values.size)
lookup = execute.lookup_for(node.right, node.on, ctx)
print("lookup_for us", round(best(lambda: execute.lookup_for(node.right, node.on, ctx)), 1))
print("lookup.probe us", round(best(lambda: lookup.probe(frame, ctx)), 1))
probe = lookup.probe(frame, ctx)
print("any_alive us", round(best(lambda: probe.any_alive(lookup.keyed.alive)), 1))
