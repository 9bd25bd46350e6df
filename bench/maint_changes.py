"""Usage: PYTHONPATH=src python bench/maint_changes.py DATASET K SAMPLES.

How much of the materialisation each DRed update of bench/maint_closure_cpu.py changes: the same
samples (seed 1) of K explicit facts deleted then re-added, with the CPU seconds of each update and
the number of facts it removed or added (``Reasoner.fact_count`` before and after), and per predicate
(derived ones included) the facts removed or added. Tells whether an update is output-bound (its
change a large part of the closure) or not."""
import sys
import time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner

name, k, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ds = make(name)
r = Reasoner(ds.program, modules="auto")
r.load_tables(ds.facts)
r.materialise()


def sizes() -> dict[str, int]:
    return {p: r.backend.count(relation=p) for p in r.predicates()}


print("facts", r.fact_count(), sizes(), flush=True)
for s, sel in enumerate(uniform_samples(ds, k, samples)):
    for kind in ("delete", "add"):
        before, per = r.fact_count(), sizes()
        c = time.process_time()
        r.update(**{kind: {p: f.rows() for p, f in sel.items()}}, algorithm="dred")
        cpu, after = time.process_time() - c, sizes()
        print(f"sample {s} {kind}: cpu {cpu:.3f} facts changed {abs(r.fact_count() - before)}",
              {p: abs(after[p] - n) for p, n in per.items() if after[p] != n}, flush=True)
