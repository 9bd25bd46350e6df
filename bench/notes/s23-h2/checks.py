"""CPU us of each semi/anti-join check built by `exists.indexed_check` (build and probes) in LUBM-like (or other)
1,000-fact deletions, by right side, with whether it reads a visible (old-state) view on all its columns.
PYTHONPATH=<tree>/src python checks.py [DATASET K N]"""
import collections
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.backends.local import execute  # noqa: E402,F401
from deltalog.backends.local import exists  # noqa: E402
from deltalog.plan import ir  # noqa: E402
from deltalog.plan.algebra import Node  # noqa: E402

name, k, n = (sys.argv[1:2] or ["lubm"])[0], int((sys.argv[2:3] or [1000])[0]), int((sys.argv[3:4] or [9])[0])
ds = make(name)
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, k, n + 2))
acc = collections.defaultdict(lambda: [0, 0.0])
on = [False]


def outline(node):
    if not isinstance(node, Node):
        return ""
    name = type(node).__name__
    extra = f" {node.relation}" if isinstance(getattr(node, "relation", None), str) else ""
    if isinstance(node, ir.Scan):
        extra += f"[{node.since},{node.until},v={node.visible},d={node.deleted},names={node.names}]"
    kids = [outline(c) for c in node.children()]
    return name + extra + ("(" + ", ".join(k for k in kids if k) + ")" if kids else "")


orig = exists.indexed_check


def timed(node, ctx):
    t = time.process_time()
    check = orig(node, ctx)
    built = time.process_time() - t
    key = outline(node.right)[:120] + f" on={len(node.on)}"
    if on[0]:
        acc[key][0] += 1
        acc[key][1] += built

    def probe(frame):
        t = time.process_time()
        out = check(frame)
        if on[0]:
            acc[key][1] += time.process_time() - t
        return out
    return probe


exists.indexed_check = timed
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    on[0] = i >= 2
    r.update(delete=rows, algorithm="dred")
    on[0] = False
    r.update(add=rows, algorithm="dred")
for key, (c, s) in sorted(acc.items(), key=lambda kv: -kv[1][1])[:40]:
    print(f"{s / n * 1e6:7.0f} us/deletion  {c / n:4.1f} calls  {key}")
