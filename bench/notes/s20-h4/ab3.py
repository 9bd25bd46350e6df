"""In-process A/B: semi/anti-joins as one loop per chain (branch) or a generator pair per node (merge20's
handlers, copied here), alternating per update pair; Frame.take as on merge20 in the off variant too."""
import sys, time, statistics
from itertools import chain
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.backend  # noqa
from deltalog.backends.local import exists as E, frame as F
from deltalog.backends.local.execute import stream, nonempty
from deltalog.plan import ir
name = sys.argv[2]; k = int(sys.argv[3]); reps = int(sys.argv[4]); alg = sys.argv[5] if len(sys.argv) > 5 else "dred"

def _exists(node, ctx):
    left = nonempty(stream(node.left, ctx))
    first = next(left, None)
    if first is None:
        return
    check = E.exists_check(node, ctx)
    for frame in chain((first,), left):
        yield frame, check(frame)
def _semijoin(node, ctx):
    for frame, found in _exists(node, ctx):
        yield frame.take(found)
def _antijoin(node, ctx):
    for frame, found in _exists(node, ctx):
        yield frame.take(~found)
def old_take(self, rows):
    if rows.dtype == bool:
        return F.Frame({n: c[rows] for n, c in self.columns.items()}, int(rows.sum()))
    return F.Frame({n: c[rows] for n, c in self.columns.items()}, int(rows.size))
new_take = F.Frame.take
def set_variant(v):
    if v == "on":
        stream.handlers[ir.SemiJoin] = stream.handlers[ir.AntiJoin] = E._checked; F.Frame.take = old_take
    else:
        stream.handlers[ir.SemiJoin], stream.handlers[ir.AntiJoin] = _semijoin, _antijoin; F.Frame.take = old_take
ds = make(name); r = Reasoner(ds.program); r.load_tables(ds.facts); r.materialise()
samples = list(uniform_samples(ds, k, reps + 2))
res = {"off": ([], []), "on": ([], [])}
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    for variant in (("off", "on") if i % 2 else ("on", "off")):
        set_variant(variant)
        t = time.process_time(); r.update(delete=rows, algorithm=alg); dd = time.process_time() - t
        t = time.process_time(); r.update(add=rows, algorithm=alg); da = time.process_time() - t
        if i >= 2: res[variant][0].append(dd); res[variant][1].append(da)
for v, (d, a) in res.items():
    print(f"{v}: delete {statistics.median(d)*1e3:.2f} ms  re-add {statistics.median(a)*1e3:.2f} ms  ({len(d)} samples)")
