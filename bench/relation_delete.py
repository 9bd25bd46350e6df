"""Usage: PYTHONPATH=src python bench/relation_delete.py [K]

One relation of 355k random pairs; each cycle deletes K (default 5) random stored rows, then inserts
them again (appended anew, as a re-add does): CPU medians of 200 deletes of 333 rows and of K rows."""
import sys
import time
import statistics
import numpy as np
from deltalog.storage.relation import Relation
rng = np.random.default_rng(0)
n = 355_000
a, b = rng.integers(0, 300_000, n), rng.integers(0, 300_000, n)
r = Relation("t", 2)
g = [1]


def tick():
    g[0] += 1
    return g[0]


r.insert([a, b], generation=tick())


def cycle(k=333):
    idx = rng.choice(len(r), k, replace=False)
    cols = [c[idx].copy() for c in r.columns()]
    t = time.process_time()
    r.delete(cols, generation=tick())
    d = time.process_time() - t
    r.insert(cols, generation=tick())
    return d


for _ in range(10):
    cycle()
ts = [cycle() for _ in range(200)]
print("delete 333 rows: median us", round(statistics.median(ts)*1e6, 1))
k = int(sys.argv[1]) if len(sys.argv) > 1 else 5
ts = [cycle(k) for _ in range(200)]
print(f"delete {k} rows: median us", round(statistics.median(ts)*1e6, 1))
