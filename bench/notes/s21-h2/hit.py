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


for info, name in ((one, "one-atom"), (two, "two-atom")):
    hit(info)
    n = 20000
    t = timeit.timeit(lambda: hit(info), number=n)
    print(f"{name} rule_plan hit: {t / n * 1e6:.2f} us  ({info.rule})")
try:
    from deltalog.reasoning.instances import one_atom_plan
    t = timeit.timeit(lambda: one_atom_plan(one, View(g[0], g[0] + 1), "rule:x"), number=20000)
    print(f"one_atom_plan: {t / 20000 * 1e6:.2f} us")
except ImportError:
    pass
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
