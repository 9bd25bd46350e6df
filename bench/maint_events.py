"""Python profile events (calls and returns, C calls too) and CPU of K-fact deletes and re-adds, one algorithm.

    PYTHONPATH=src python bench/maint_events.py [DATASET [K [ALGORITHM]]]   (default: lubm 1000 dred)

The event count of an update is deterministic (same data, same code path), so it compares two trees
on a loaded machine where CPU medians move by 10-20% between runs: two warm-up pairs, CPU medians
over 7 samples, events medians over 3 of them (counted under ``sys.setprofile``, not timed).
"""
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "lubm"
k = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
algorithm = sys.argv[3] if len(sys.argv) > 3 else "dred"
ds = make(name)
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, k, 9))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm=algorithm)
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm=algorithm)
count = [0]


def counted(frame, event, arg):
    count[0] += 1


events: dict[str, list[int]] = {"delete": [], "add": []}
cpu: dict[str, list[float]] = {"delete": [], "add": []}
for sel in samples[2:]:
    for kind in ("delete", "add"):
        rows = {p: f.rows() for p, f in sel.items()}
        t = time.process_time()
        r.update(**{kind: rows}, algorithm=algorithm)
        cpu[kind].append(time.process_time() - t)
for sel in samples[2:5]:
    for kind in ("delete", "add"):
        rows = {p: f.rows() for p, f in sel.items()}
        count[0] = 0
        sys.setprofile(counted)
        r.update(**{kind: rows}, algorithm=algorithm)
        sys.setprofile(None)
        events[kind].append(count[0])
for kind in ("delete", "add"):
    print(f"{kind}: events {statistics.median(events[kind]):.0f}  cpu {statistics.median(cpu[kind]) * 1000:.1f} ms")
