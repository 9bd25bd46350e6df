import sys, time, collections, statistics, importlib
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
ds = make("lubm"); r = Reasoner(ds.program); r.load_tables(ds.facts); r.materialise()
samples = list(uniform_samples(ds, 1000, 9))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
acc = collections.defaultdict(list); cur = collections.Counter(); ncall = collections.Counter()
depth = [0]
def wrap(owner, name, label):
    f = getattr(owner, name)
    def w(*a, **k):
        t = time.perf_counter()
        try: return f(*a, **k)
        finally: cur[label] += time.perf_counter() - t; ncall[label] += 1
    setattr(owner, name, w)
from deltalog.backends.local import backend as B, exists as E, membership as M
from deltalog.storage import relation as R
for n in ["insert", "delete", "evaluate", "count", "distinct"]:
    if hasattr(B.LocalBackend, n): wrap(B.LocalBackend, n, "backend." + n)
for n in ["insert", "delete", "keyed", "contains", "count_view", "covers_live", "index"]:
    wrap(R.Relation if hasattr(R, "Relation") else None, n, "rel." + n)
wrap(E, "indexed_check", "exists.indexed_check(build)")
for sel in samples[2:9]:
    rows = {p: f.rows() for p, f in sel.items()}
    cur.clear(); t = time.perf_counter(); c = time.process_time()
    r.update(delete=rows, algorithm="dred")
    cur["TOTAL wall"] += time.perf_counter() - t; cur["TOTAL cpu"] += time.process_time() - c
    for k, v in cur.items(): acc[k].append(v)
    r.update(add=rows, algorithm="dred")
for k in sorted(acc, key=lambda k: -statistics.median(acc[k])):
    print(f"{statistics.median(acc[k])*1e3:7.2f} ms  {ncall[k]//7:5d}  {k}")
