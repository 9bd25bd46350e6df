"""Every backend call of one LUBM-like 1,000-fact deletion: method, relation, rows changed, CPU us, and the
plan's outline (node types, depth-first). PYTHONPATH=<tree>/src python statements.py [SAMPLE]"""
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.backends.local.backend import LocalBackend  # noqa: E402
from deltalog.plan.algebra import Node  # noqa: E402

which = int((sys.argv[1:2] or [3])[0])
upto = int((sys.argv[2:3] or [which])[0])   # samples which..upto, each deleted then re-added
FULL = ("student", "chair", "teachingAssistant", "R:chair", "person")
floor = float((sys.argv[3:4] or [0])[0])    # print statements of at least this many us
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, upto + 1))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
log = []


def outline(node, depth=0):
    if not isinstance(node, Node):
        return ""
    name = type(node).__name__
    extra = f" {node.relation}" if hasattr(node, "relation") and isinstance(getattr(node, "relation"), str) else ""
    kids = [outline(c, depth + 1) for c in node.children()]
    return name + extra + ("(" + ", ".join(k for k in kids if k) + ")" if kids else "")


for method in ("insert", "delete", "count", "distinct", "delete_tables", "insert_tables", "create_relation",
               "drop", "clear", "rename", "relations", "deleted_rows", "read", "evaluate", "evaluate_later"):
    original = getattr(LocalBackend, method)

    def wrapped(self, *a, _m=method, _o=original, **k):
        t = time.process_time()
        out = _o(self, *a, **k)
        us = (time.process_time() - t) * 1e6
        log.append((_m, k.get("relation", ""), out if isinstance(out, int) else "", us,
                    outline(k["plan"]) if "plan" in k else ""))
        return out
    setattr(LocalBackend, method, wrapped)
for sel in samples[2:which]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
for sel in samples[which:upto + 1]:
    log.clear()
    t = time.process_time()
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    total = (time.process_time() - t) * 1e6
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    by = {}
    for m, rel, out, us, plan in log[:len(log)]:
        by.setdefault(m, [0, 0.0])
        by[m][0] += 1
        by[m][1] += us
        if m in ("insert", "delete", "delete_tables", "evaluate") and us >= floor:
            print(f"{us:7.0f} {m:7s} {rel:28s} {out!s:>5} {(plan if rel in FULL else plan[:100])}")
    print(f"total {total:.0f} us; by method:", {m: (n, round(us)) for m, (n, us) in by.items()})
