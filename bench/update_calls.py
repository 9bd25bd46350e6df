"""Usage: PYTHONPATH=src python bench/update_calls.py [DATASET] [K] — Python and C calls per small update.

A deterministic measure of an update's fixed cost beside its CPU time (which a shared machine makes
move by ±20%): the Python-level calls and the C calls (NumPy's included) that ``sys.setprofile`` sees
during one DRed deletion of K explicit facts and their re-insertion, medians over 4 samples (seed-1
samples of bench/maint_generators.py, after one warm-up sample). Default: LUBM-like, K = 1,000.
"""
import sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import numpy as np
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner

name = sys.argv[1] if len(sys.argv) > 1 else "lubm"
k = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
ds = make(name)
r = Reasoner(ds.program, modules="auto")
r.load_tables(ds.facts)
r.materialise()
samples = [{p: f.rows() for p, f in sel.items()} for sel in uniform_samples(ds, k, 5)]
r.update(delete=samples[0], algorithm="dred")
r.update(add=samples[0], algorithm="dred")
counts = {"call": 0, "c_call": 0}


def profile(frame, event, arg):
    if event in counts:
        counts[event] += 1


res: dict[str, list[tuple[int, int]]] = {"delete": [], "add": []}
for sel in samples[1:]:
    for kind in ("delete", "add"):
        counts.update(call=0, c_call=0)
        sys.setprofile(profile)
        r.update(**{kind: sel}, algorithm="dred")
        sys.setprofile(None)
        res[kind].append((counts["call"], counts["c_call"]))
for kind, v in res.items():
    a = np.array(v)
    print(f"{name} k={k} {kind}: Python calls {int(np.median(a[:, 0]))}, C calls {int(np.median(a[:, 1]))}")
