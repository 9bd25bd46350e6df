"""CPU ms per deletion (and per re-add) inside named functions, by timing wrappers (nested calls counted once).
PYTHONPATH=<tree>/src python tm.py N module:Qual.name ...   e.g. deltalog.storage.relation:Relation.delete"""
import collections
import importlib
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

n = int(sys.argv[1])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
phase = ["delete"]
acc = collections.defaultdict(float)
calls = collections.Counter()
depth = collections.Counter()


def wrap(owner, name, label):
    f = getattr(owner, name)

    def w(*a, **k):
        if depth[label]:
            return f(*a, **k)
        depth[label] += 1
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            acc[(phase[0], label)] += time.process_time() - t
            calls[(phase[0], label)] += 1
            depth[label] -= 1
    setattr(owner, name, w)


for spec in sys.argv[2:]:
    mod, qual = spec.split(":")
    owner = importlib.import_module(mod)
    *path, name = qual.split(".")
    for p in path:
        owner = getattr(owner, p)
    wrap(owner, name, spec.split(".")[-1] if not path else qual)
total = collections.defaultdict(float)
for sel in samples[2:]:
    rows = {p: f.rows() for p, f in sel.items()}
    for kind in ("delete", "add"):
        phase[0] = kind
        t = time.process_time()
        r.update(**{kind: rows}, algorithm="dred")
        total[kind] += time.process_time() - t
for kind in ("delete", "add"):
    print(f"{kind}: {total[kind] / n * 1e3:.2f} ms per update")
    for (k, label), v in sorted(acc.items(), key=lambda x: -x[1]):
        if k == kind:
            print(f"  {v / n * 1e3:7.3f} ms  {calls[(k, label)] / n:6.1f} calls  {label}")
