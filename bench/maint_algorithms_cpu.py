"""CPU of K-fact deletes and re-adds by each maintenance algorithm, one Reasoner per algorithm, interleaved, medians.

    PYTHONPATH=src python bench/maint_algorithms_cpu.py lubm 1000 5 dred,dredc,fbf,bf,counting,remat
"""
import sys
import time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import numpy as np
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
name, k, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
algs = sys.argv[4].split(",")
ds = make(name)
rs = {}
for a in algs:
    r = Reasoner(ds.program)
    r.load_tables(ds.facts)
    r.materialise()
    rs[a] = r
res = {a: [] for a in algs}
for s, sel in enumerate(uniform_samples(ds, k, samples)):
    for a in algs:
        out = []
        for kind in ("delete", "add"):
            c = time.process_time()
            rs[a].update(**{kind: {p: f.rows() for p, f in sel.items()}}, algorithm=a)
            out.append(time.process_time() - c)
        res[a].append(out)
for a in algs:
    d = np.array(res[a])
    print(f"{a}: delete {np.median(d[:,0])*1000:.1f} ms add {np.median(d[:,1])*1000:.1f} ms")
