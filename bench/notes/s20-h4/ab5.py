"""In-process A/B of closure_diff.reaches' few-sources path: CPU inside reaches() per update, toggled per update pair."""
import sys, time, statistics, collections
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.backend  # noqa
from deltalog.backends.local import closure_diff as CD
name = sys.argv[2]; k = int(sys.argv[3]); reps = int(sys.argv[4])
ds = make(name); r = Reasoner(ds.program); r.load_tables(ds.facts); r.materialise()
samples = list(uniform_samples(ds, k, reps + 2))
few_on = CD._reaches_few; inside = [0.0, 0]; orig = CD.reaches
def timed(*a):
    t = time.process_time(); out = orig(*a); inside[0] += time.process_time() - t; inside[1] += 1; return out
CD.reaches = timed
res = collections.defaultdict(lambda: ([], [], []))
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    for v in (("off", "on") if i % 2 else ("on", "off")):
        CD._reaches_few = few_on if v == "on" else (lambda *a: None)
        inside[:] = [0.0, 0]
        t = time.process_time(); r.update(delete=rows, algorithm="dred"); dd = time.process_time() - t
        got = inside[0]; n = inside[1]
        t = time.process_time(); r.update(add=rows, algorithm="dred"); da = time.process_time() - t
        if i >= 2: res[v][0].append(dd); res[v][1].append(da); res[v][2].append(got)
for v in ("off", "on"):
    dd, da, st = res[v]
    print(f"{v:4s} delete {statistics.median(dd)*1e3:7.2f} ms  re-add {statistics.median(da)*1e3:7.2f} ms  inside reaches (delete) {statistics.median(st)*1e3:6.3f} ms, {n} calls  ({len(dd)})")
