"""Per-sample delete/add CPU times with compaction on or off (argv: dataset k n on|off)."""
import sys, os, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.algorithms.maintain as mt
if sys.argv[4] == "off":
    mt.compact_if_worthwhile = lambda update: None
ds = make(sys.argv[1])
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
import resource
for i, sel in enumerate(uniform_samples(ds, int(sys.argv[2]), int(sys.argv[3]))):
    rows = {p: f.rows() for p, f in sel.items()}
    c = time.process_time(); r.update(delete=rows, algorithm="auto"); d = time.process_time() - c
    c = time.process_time(); r.update(add=rows, algorithm="auto"); a = time.process_time() - c
    print(i, f"{d:.3f} {a:.3f}", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, flush=True)
