"""CPU us of the explicit changes' pieces in LUBM-like 1,000-fact deletions: the encode (`_encoded`) and each
relation's `Relation.delete` inside `delete_tables`, medians over N deletions after two warm-up pairs, with a
rematerialisation between deletions when REMAT=1 (cold caches, as bench/maint_closure_cpu.py).
PYTHONPATH=<tree>/src python deltables.py [N] [REMAT]"""
import collections
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.backends.local import backend as lb  # noqa: E402
from deltalog.storage import relation as rel  # noqa: E402

n = int((sys.argv[1:2] or [9])[0])
remat = (sys.argv[2:3] or ["0"])[0] == "1"
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
r2 = None
if remat:
    r2 = Reasoner(ds.program)
    r2.load_tables(ds.facts)
    r2.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
times = collections.defaultdict(list)
current = {}
on = [False]


def timed(label_of, f):
    def run(*a, **k):
        if not on[0]:
            return f(*a, **k)
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            label = label_of(*a, **k)
            current[label] = current.get(label, 0) + (time.process_time() - t) * 1e6
    return run


lb.LocalBackend._encoded = timed(lambda *a, **k: "encode", lb.LocalBackend._encoded)
lb.LocalBackend.delete_tables = timed(lambda *a, **k: "delete_tables", lb.LocalBackend.delete_tables)
orig_delete = rel.Relation.delete
rel.Relation.delete = timed(lambda self, *a, **k: "Relation.delete " + self.name, orig_delete)
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    if r2 is not None:
        r2.update(delete=rows, algorithm="remat")
        r2.update(add=rows, algorithm="remat")
    current.clear()
    on[0] = i >= 2
    t = time.process_time()
    r.update(delete=rows, algorithm="dred")
    current["TOTAL"] = (time.process_time() - t) * 1e6
    on[0] = False
    if i >= 2:
        for k, v in current.items():
            times[k].append(v)
    r.update(add=rows, algorithm="dred")
for k, v in sorted(times.items(), key=lambda kv: -statistics.median(kv[1])):
    print(f"{statistics.median(v):8.0f} us  ({len(v)})  {k}")
