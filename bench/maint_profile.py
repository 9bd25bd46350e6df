"""Usage: PYTHONPATH=src python bench/maint_profile.py DATASET K [SAMPLES]: cProfile of one DRed re-add.

Materialise, then delete and re-add SAMPLES uniform samples of K explicit facts; profile the last
re-add (the first builds indexes) and print its functions by own time, then by cumulative time."""
import sys
import time
import cProfile
import pstats
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
name, k = sys.argv[1], int(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 4
ds = make(name)
r = Reasoner(ds.program, modules="auto")
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, k, n))
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    c = time.process_time()
    r.update(delete=rows, algorithm="dred")
    d = time.process_time() - c
    if i == len(samples) - 1:
        pr = cProfile.Profile()
        pr.enable()
    c = time.process_time()
    r.update(add=rows, algorithm="dred")
    a = time.process_time() - c
    if i == len(samples) - 1:
        pr.disable()
    print(f"sample {i}: delete {d:.3f} add {a:.3f}", flush=True)
st = pstats.Stats(pr)
st.sort_stats("tottime").print_stats(30)
st.sort_stats("cumtime").print_stats(50)
