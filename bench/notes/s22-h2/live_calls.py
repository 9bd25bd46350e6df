"""Each ``Relation.holds_live`` call and each live-count change of N deletions (and re-adds) of a dataset:
relation, position, values asked, visible, CPU us. PYTHONPATH=<tree>/src python live_calls.py DATASET K N"""
import collections
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.storage.relation import Relation  # noqa: E402
from deltalog.storage import livekeys  # noqa: E402

name, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ds = make(name)
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
log = collections.defaultdict(lambda: [0, 0.0, 0])
holds, changed, catch = Relation.holds_live, livekeys.LiveKeyCounts.changed, livekeys.LiveKeyCounts._catch_up


def timed_holds(self, position, values, visible=None):
    t = time.process_time()
    out = holds(self, position, values, visible)
    e = log[("holds", self.name, position, visible is not None)]
    e[0] += 1
    e[1] += (time.process_time() - t) * 1e6
    e[2] += len(values)
    return out


def timed_changed(self, column, rows, by):
    t = time.process_time()
    changed(self, column, rows, by)
    e = log[("changed", by)]
    e[0] += 1
    e[1] += (time.process_time() - t) * 1e6
    e[2] += rows.size


Relation.holds_live = timed_holds
livekeys.LiveKeyCounts.changed = timed_changed
for phase, sel in enumerate(uniform_samples(ds, k, n)):
    rows = {p: f.rows() for p, f in sel.items()}
    r.update(delete=rows, algorithm="dred")
    r.update(add=rows, algorithm="dred")
for key, (calls, us, items) in sorted(log.items(), key=lambda kv: -kv[1][1]):
    print(f"{us / n:10.0f} us/update {calls / n:6.1f} calls {items / n:10.0f} items  {key}")
