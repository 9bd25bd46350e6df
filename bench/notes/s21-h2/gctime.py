"""Time spent in the cyclic garbage collector during K-fact LUBM-like deletions and re-adds (gc.callbacks).
PYTHONPATH=<tree>/src python gctime.py [DATASET K N]"""
import gc
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

name, k, n = (sys.argv[1:2] or ["lubm"])[0], int((sys.argv[2:3] or [1000])[0]), int((sys.argv[3:4] or [10])[0])
ds = make(name)
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, k, n + 2))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
acc = {"t": 0.0, "start": 0.0, "n": [0, 0, 0]}


def cb(phase, info):
    if phase == "start":
        acc["start"] = time.perf_counter()
    else:
        acc["t"] += time.perf_counter() - acc["start"]
        acc["n"][info["generation"]] += 1


gc.callbacks.append(cb)
print("objects tracked", len(gc.get_objects()), "thresholds", gc.get_threshold())
out = {"delete": [], "add": []}
for sel in samples[2:]:
    for kind in ("delete", "add"):
        rows = {p: f.rows() for p, f in sel.items()}
        acc["t"], acc["n"] = 0.0, [0, 0, 0]
        t = time.process_time()
        r.update(**{kind: rows}, algorithm="dred")
        out[kind].append((time.process_time() - t, acc["t"], tuple(acc["n"])))
for kind, v in out.items():
    print(kind, "cpu", statistics.median(x[0] for x in v) * 1000, "gc ms", statistics.median(x[1] for x in v) * 1000,
          [x[2] for x in v])
