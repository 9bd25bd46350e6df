"""Usage: PYTHONPATH=src python bench/maint_rule_cpu.py DATASET K SAMPLES [delete,add].

Where a DRed update's CPU goes, rule by rule: the samples of bench/maint_closure_cpu.py (seed 1), each
``Reasoning.derive`` call timed (CPU) and grouped by (rule, phase, plan root); the twelve largest
groups of every update after the first (which also builds indexes) are printed, with the calls and
the facts they stored."""
import sys
import time
import collections
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
from deltalog.reasoning.context import Reasoning

name, k, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
kinds = sys.argv[4].split(",") if len(sys.argv) > 4 else ["delete"]
spent: dict = collections.defaultdict(lambda: [0.0, 0, 0])
derive = Reasoning.derive


def timed(self, info, plan, generation, **kw):
    c = time.process_time()
    n = derive(self, info, plan, generation, **kw)
    entry = spent[(info.label, kw.get("phase"), type(plan).__name__)]
    entry[0] += time.process_time() - c
    entry[1] += 1
    entry[2] += n
    return n


Reasoning.derive = timed   # type: ignore[method-assign]
ds = make(name)
r = Reasoner(ds.program, modules="auto")
r.load_tables(ds.facts)
r.materialise()
for s, sel in enumerate(uniform_samples(ds, k, samples)):
    for kind in ("delete", "add"):
        spent.clear()
        c = time.process_time()
        r.update(**{kind: {p: f.rows() for p, f in sel.items()}}, algorithm="dred")
        print(f"sample {s} {kind}: cpu {time.process_time() - c:.3f}, in derive "
              f"{sum(e[0] for e in spent.values()):.3f}", flush=True)
        if kind in kinds and s > 0:
            for key, (cpu, calls, facts) in sorted(spent.items(), key=lambda x: -x[1][0])[:12]:
                print(f"    {key} {cpu:.4f} s, {calls} calls, {facts} facts")
