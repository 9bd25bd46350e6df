"""One update per process on a saved store, as `deltalog update STORE` runs it (open, update, save), CPU per step.
  TREE=<tree> PYTHONPATH=<tree>/src python store_cli.py init DATASET STORE      # materialise and save
  TREE=<tree> PYTHONPATH=<tree>/src python store_cli.py update DATASET STORE K SAMPLE delete|add|remat [prof]
(`remat`: the same deletion by rematerialisation.) The store is copied first, so every run starts from it."""
import os, shutil, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
mode, name, store = sys.argv[1], sys.argv[2], sys.argv[3]
ds = make(name)
if mode == "init":
    r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise(); r.save(store)
    sys.exit()
k, sample, kind = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
sel = list(uniform_samples(ds, k, sample + 1))[sample]
rows = {p: f.rows() for p, f in sel.items()}
work = store + ".work"
shutil.rmtree(work, ignore_errors=True); shutil.copytree(store, work)
if kind == "add":   # the sample deleted first (saved), so that this process adds it back
    r = Reasoner.open(work, writable=True); r.update(delete=rows, algorithm="auto"); r.save(work); r.close()
t0 = time.process_time()
r = Reasoner.open(work, writable=True)
t1 = time.process_time()
if "prof" in sys.argv:
    import cProfile, pstats; pr = cProfile.Profile(); pr.enable()
if kind == "add":
    r.update(add=rows, algorithm="auto")
else:
    r.update(delete=rows, algorithm="remat" if kind == "remat" else "auto")
t2 = time.process_time()
if "prof" in sys.argv:
    pr.disable(); pstats.Stats(pr).sort_stats("cumulative").print_stats(40)
r.save(work); r.close()
t3 = time.process_time()
print(f"{name} {kind} sample {sample}: open {t1-t0:.3f} update {t2-t1:.3f} save {t3-t2:.3f} total {t3-t0:.3f} cpu s")
