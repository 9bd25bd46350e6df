"""In-process A/B: the Distinct strip of exists_check off/on, alternating per update pair."""
import sys, time, statistics
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.backend  # noqa
from deltalog.backends.local import exists as E
from deltalog.backends.local.membership import dense_check
name = sys.argv[2]; k = int(sys.argv[3]); reps = int(sys.argv[4])
ds = make(name); r = Reasoner(ds.program); r.load_tables(ds.facts); r.materialise()
samples = list(uniform_samples(ds, k, reps + 2))
on = E.exists_check
def off(node, ctx):
    return dense_check(node.right, node.on, ctx.relations, ctx.writing, lambda: E.indexed_check(node, ctx))
res = {"off": ([], []), "on": ([], [])}
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    for variant in (("off", "on") if i % 2 else ("on", "off")):
        E.exists_check = on if variant == "on" else off
        t = time.process_time(); r.update(delete=rows, algorithm="dred"); dd = time.process_time() - t
        t = time.process_time(); r.update(add=rows, algorithm="dred"); da = time.process_time() - t
        if i >= 2: res[variant][0].append(dd); res[variant][1].append(da)
for v, (d, a) in res.items():
    print(f"{v}: delete {statistics.median(d)*1e3:.2f} ms  re-add {statistics.median(a)*1e3:.2f} ms  ({len(d)} samples)")
