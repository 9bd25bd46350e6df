"""CPU ms per stratum (and the explicit changes, the change read-off) of LUBM-like 1,000-fact deletions,
medians over N deletions after two warm-up pairs. PYTHONPATH=<tree>/src python strata.py [N]"""
import collections
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.algorithms import maintain, strategies  # noqa: E402

n = int((sys.argv[1:2] or [9])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
times = collections.defaultdict(list)
current = {}


def timed(label, f):
    def run(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            current[label] = current.get(label, 0) + (time.process_time() - t) * 1e3
    return run


maintain.change_explicit_facts = timed("explicit", maintain.change_explicit_facts)
maintain.collect_changes = timed("collect", maintain.collect_changes)
original = strategies.StratumByStratum.for_stratum


def for_stratum(self, stratum):
    label = ",".join(sorted(stratum.predicates))[:60]
    return timed(label, original(self, stratum))


strategies.StratumByStratum.for_stratum = for_stratum
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    current.clear()
    t = time.process_time()
    r.update(delete=rows, algorithm="dred")
    current["TOTAL"] = (time.process_time() - t) * 1e3
    if i >= 2:
        for k, v in current.items():
            times[k].append(v)
    r.update(add=rows, algorithm="dred")
for k, v in sorted(times.items(), key=lambda kv: -statistics.median(kv[1])):
    print(f"{statistics.median(v):7.2f} ms  ({len(v)})  {k}")
