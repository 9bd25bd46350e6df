"""Microbenchmark of a plan-cache hit (rule_plan of a variant already planned, new generations) against
one_atom_plan, on the LUBM-like program's reasoning. PYTHONPATH=<tree>/src python hit.py"""
import sys
import timeit

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.plan.rules import rule_plan, View  # noqa: E402
from deltalog.plan.rule_rewrites import StartAt, NegationsIn  # noqa: E402

ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
reasoning = r._reasoning if hasattr(r, "_reasoning") else r.reasoning
rules = reasoning.program.rules
one = next(i for i in rules if len(i.positive) == 1 and not (i.negative or i.filters or i.assignments or i.aggregates))
two = next(i for i in rules if len(i.positive) == 2 and not i.negative)
g = [100]


def hit(info):
    g[0] += 1
    views = [View(g[0], g[0] + 1, deleted=None)] + [View(until=g[0])] * (len(info.positive) - 1)
    return rule_plan(info, views, reasoning, NegationsIn(()), StartAt(0), label="rule:x")


try:
    from deltalog.reasoning.instances import one_atom_plan
except ImportError:
    one_atom_plan = None
best: dict[str, float] = {}
for _ in range(7):   # interleaved, best of 7 (the machine is shared)
    for info, name in ((one, "one-atom"), (two, "two-atom")):
        hit(info)
        best[name] = min(best.get(name, 1e9), timeit.timeit(lambda: hit(info), number=5000) / 5000)
    if one_atom_plan is not None:
        t = timeit.timeit(lambda: one_atom_plan(one, View(g[0], g[0] + 1), "rule:x"), number=5000) / 5000
        best["one_atom_plan"] = min(best.get("one_atom_plan", 1e9), t)
for name, t in best.items():
    print(f"{name}: {t * 1e6:.2f} us")
c = reasoning.plan_cache
print("hits", c.hits, "misses", c.misses)
if "--profile" in sys.argv:
    import cProfile
    import pstats
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(5000):
        hit(one)
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(25)
if "--asked" in sys.argv:
    for key, entry in c.entries.items():
        print(entry.owner[0].rule, entry.asked)
