"""In-process A/B of two closure-check changes, each toggled per update (4 variants, rotated)."""
import sys, time, statistics, collections
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.backend as B
from deltalog.backends.local import exists as E, closure_diff as CD
from deltalog.backends.local.membership import dense_check
name = sys.argv[2]; k = int(sys.argv[3]); reps = int(sys.argv[4]); closure_rel = sys.argv[5]
ds = make(name); r = Reasoner(ds.program); r.load_tables(ds.facts); r.materialise()
samples = list(uniform_samples(ds, k, reps + 2))
strip_on = E.exists_check
def strip_off(node, ctx):
    return dense_check(node.right, node.on, ctx.relations, ctx.writing, lambda: E.indexed_check(node, ctx))
few_on = CD._reaches_few
stmt = [0.0]
orig = B.LocalBackend.delete
def d(self, *a, **kw):
    t = time.process_time(); out = orig(self, *a, **kw)
    if kw["relation"] == closure_rel: stmt[0] += time.process_time() - t
    return out
B.LocalBackend.delete = d
variants = ["base", "reaches", "strip", "both"]
res = collections.defaultdict(lambda: ([], [], []))
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    for v in variants[i % 4:] + variants[:i % 4]:
        E.exists_check = strip_on if v in ("strip", "both") else strip_off
        CD._reaches_few = few_on if v in ("reaches", "both") else (lambda *a: None)
        stmt[0] = 0.0
        t = time.process_time(); r.update(delete=rows, algorithm="dred"); dd = time.process_time() - t
        t = time.process_time(); r.update(add=rows, algorithm="dred"); da = time.process_time() - t
        if i >= 2: res[v][0].append(dd); res[v][1].append(da); res[v][2].append(stmt[0])
for v in variants:
    dd, da, st = res[v]
    print(f"{v:8s} delete {statistics.median(dd)*1e3:6.2f} ms  re-add {statistics.median(da)*1e3:6.2f} ms  {closure_rel} statements {statistics.median(st)*1e3:5.3f} ms  ({len(dd)})")
