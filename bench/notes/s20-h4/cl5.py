import re, sys, time, collections, statistics
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
ds = make("lubm"); r = Reasoner(ds.program); r.load_tables(ds.facts); r.materialise()
samples = list(uniform_samples(ds, 1000, 9))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
from deltalog.backends.local import closure_diff as CD, closure_nodes as CN, execute as EX, few_sources as FS, reach as RC
import deltalog.storage.uniques as U
acc = collections.defaultdict(float); n = collections.Counter()
def wrap(mod, name, label):
    f = getattr(mod, name)
    def w(*a, **k):
        t = time.process_time()
        try: return f(*a, **k)
        finally: acc[label] += time.process_time() - t; n[label] += 1
    setattr(mod, name, w)
wrap(CN, "_closure_input", "closure_input(materialise edges)")
wrap(CD, "_ancestors", "ancestors")
wrap(CD, "positions_of", "positions_of")
wrap(CD, "sorted_unique", "sorted_unique")
wrap(CD, "_reached_part", "reached_part")
wrap(FS, "difference", "few_sources.difference")
wrap(CD, "reaches", "reaches (whole)")
from deltalog.backends.local import exists as EX2
mats = collections.defaultdict(list)
_m = EX2.materialise
def m(node, ctx):
    t = time.process_time(); out = _m(node, ctx); dt = time.process_time() - t
    mats[re.sub(r'(gen\[[0-9:]*\)|visible@[0-9]*|deleted\[[0-9:]*\)|N:|#body)', '', str(node))].append((dt, out.length)); return out
EX2.materialise = m
from deltalog.backends.local import backend as B
orig = B.LocalBackend.delete
def d(self, *a, **k):
    t = time.process_time(); out = orig(self, *a, **k)
    if k["relation"] == "subOrganizationOf": acc["STATEMENTS"] += time.process_time() - t; n["STATEMENTS"] += 1
    return out
B.LocalBackend.delete = d
for sel in samples[2:9]:
    rows = {p: f.rows() for p, f in sel.items()}
    r.update(delete=rows, algorithm="dred"); r.update(add=rows, algorithm="dred")
for k, v in sorted(acc.items(), key=lambda x: -x[1]): print(f"{v/7*1e3:6.3f} ms/deletion  {n[k]/7:4.1f} calls  {k}")

for k, v in sorted(mats.items(), key=lambda kv: -sum(x[0] for x in kv[1])):
    print(f"{sum(x[0] for x in v)/7*1e3:.3f} ms/deletion, {len(v)/7:.1f} calls, rows {[x[1] for x in v][:4]}"); print(k[:1500]); print()
