"""Minor page faults and CPU ms of LUBM-like 1,000-fact deletions, medians over N after two warm-up pairs, with a
rematerialising Reasoner's delete and re-add before each (REMAT=1, as bench/maint_closure_cpu.py) or not.
PYTHONPATH=<tree>/src python faults.py [N] [REMAT]"""
import resource
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

n = int((sys.argv[1:2] or [9])[0])
remat = (sys.argv[2:3] or ["0"])[0] == "1"
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
r2 = None
if remat:
    r2 = Reasoner(ds.program)
    r2.load_tables(ds.facts)
    r2.materialise()
faults, cpu, add_cpu = [], [], []
for i, sel in enumerate(uniform_samples(ds, 1000, n + 2)):
    rows = {p: f.rows() for p, f in sel.items()}
    if r2 is not None:
        r2.update(delete=rows, algorithm="remat")
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t = time.process_time()
    r.update(delete=rows, algorithm="dred")
    c = time.process_time() - t
    f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    if r2 is not None:
        r2.update(add=rows, algorithm="remat")
    t = time.process_time()
    r.update(add=rows, algorithm="dred")
    a = time.process_time() - t
    if i >= 2:
        faults.append(f1 - f0)
        cpu.append(c * 1e3)
        add_cpu.append(a * 1e3)
print(f"remat={remat}: delete {statistics.median(cpu):.2f} ms, {statistics.median(faults)} minor faults; "
      f"re-add {statistics.median(add_cpu):.2f} ms; faults {faults}")
