"""Usage: PYTHONPATH=src python bench/compaction_micro.py  (stop 19, helper h4)

Compaction of a Claros-like relation alone: 4.8M pairs, 9 cycles of deleting 470k and re-adding 470k
(fresh rows, new generations), indexes on (0,), (1,) and the full key probed every cycle; then time
compact() and the first index refresh + 1,000-row deletion after it (CPU seconds)."""
import time, numpy as np
from deltalog.storage.relation import Relation
from deltalog.storage.deaths import ALIVE
rng = np.random.default_rng(1)
R = Relation("relatedPlaces", 2)
n = 4_800_000
a, b = rng.integers(0, 130_000, n), rng.integers(0, 130_000, n)
k = np.unique(a * 130_000 + b); a, b = k // 130_000, k % 130_000
R.insert([a, b], generation=1)
g = 2
def probe():
    for p in ((0,), (1,), (0, 1)):
        R.index(p).probe([np.arange(10)] * len(p), 0, len(R))
probe()
for cycle in range(9):
    cols = R.columns()
    live = np.flatnonzero(R.died() == ALIVE) if R.deleted_rows else np.arange(len(R))
    pick = rng.choice(live, 470_000, replace=False)
    rows = [cols[0][pick].copy(), cols[1][pick].copy()]
    R.delete(rows, generation=g); g += 1
    R.insert(rows, generation=g); g += 1
    probe()
print("rows", len(R), "dead", R.deleted_rows)
c = time.process_time(); R.compact(); t1 = time.process_time() - c
cols = R.columns(); pick = rng.choice(len(R), 1000, replace=False)
c = time.process_time(); probe(); R.delete([cols[0][pick].copy(), cols[1][pick].copy()], generation=g); t2 = time.process_time() - c
print(f"compact {t1:.3f} s, then refresh 3 indexes + delete 1,000: {t2:.3f} s, total {t1+t2:.3f}")
