"""Usage: PYTHONPATH=src python bench/maint_closure.py DATASET auto|none K SAMPLES ALGORITHM.

003's protocol, reduced: per dataset and modules, materialise once, then S uniform samples of K explicit
facts deleted then re-added (DRed), and rematerialisation time for reference (materialise())."""
import sys
import time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import numpy as np
from maint_generators import make
from deltalog.api import Reasoner
name, modules, k, samples, alg = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
ds = make(name)
r = Reasoner(ds.program, modules=modules)
r.load_tables(ds.facts)
t = time.perf_counter()
r.materialise()
mat = time.perf_counter() - t
preds = sorted(ds.facts)
sizes = np.array([ds.facts[p].height for p in preds])
total = sizes.sum()
rng = np.random.default_rng(1)
dels, adds = [], []
for s in range(samples):
    pick = rng.choice(total, min(k, total), replace=False)
    sel = {}
    off = np.concatenate([[0], np.cumsum(sizes)])
    for i, p in enumerate(preds):
        idx = pick[(pick >= off[i]) & (pick < off[i + 1])] - off[i]
        if idx.size:
            sel[p] = ds.facts[p][np.sort(idx)]
    t = time.perf_counter()
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm=alg)
    d = time.perf_counter() - t
    t = time.perf_counter()
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm=alg)
    a = time.perf_counter() - t
    dels.append(d)
    adds.append(a)
    print(f"  {name} {modules} sample {s}: delete {d:.2f} add {a:.2f}", flush=True)
print(f"RESULT {name} modules={modules} alg={alg} k={k} mat={mat:.2f} "
      f"delete median={np.median(dels):.2f} add median={np.median(adds):.2f} "
      f"(first delete {dels[0]:.2f})", flush=True)
