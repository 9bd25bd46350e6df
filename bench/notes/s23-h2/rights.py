"""CPU us of each semi/anti-join's right side materialised by `exists.indexed_check` (its build) in LUBM-like
1,000-fact deletions, by the right side's outline, summed over N deletions after two warm-up pairs, with the
rows it held. PYTHONPATH=<tree>/src python rights.py [N]"""
import collections
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.backends.local import execute  # noqa: E402,F401
from deltalog.backends.local import exists  # noqa: E402
from deltalog.plan.algebra import Node  # noqa: E402

n = int((sys.argv[1:2] or [9])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
acc = collections.defaultdict(lambda: [0, 0.0, 0])
on = [False]


def outline(node):
    if not isinstance(node, Node):
        return ""
    name = type(node).__name__
    extra = f" {node.relation}" if isinstance(getattr(node, "relation", None), str) else ""
    kids = [outline(c) for c in node.children()]
    return name + extra + ("(" + ", ".join(k for k in kids if k) + ")" if kids else "")


orig = exists.materialise


def timed_materialise(node, ctx):
    t = time.process_time()
    out = orig(node, ctx)
    if on[0]:
        a = acc[outline(node)[:170]]
        a[0] += 1
        a[1] += (time.process_time() - t) * 1e6
        a[2] += out.length
    return out


exists.materialise = timed_materialise
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    on[0] = i >= 2
    r.update(delete=rows, algorithm="dred")
    on[0] = False
    r.update(add=rows, algorithm="dred")
for k, (c, us, rows) in sorted(acc.items(), key=lambda kv: -kv[1][1]):
    print(f"{us / n:7.0f} us/deletion  {c / n:4.1f} calls  {rows / max(c, 1):7.0f} rows  {k}")
