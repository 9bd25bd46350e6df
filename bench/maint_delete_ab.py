"""Usage: PYTHONPATH=src python bench/maint_delete_ab.py CONFIG,... [SAMPLES [DATASET [K]]]

Stop 16's deletion changes switched on and off in one process, interleaved per sample (fair on a loaded
machine): each sample of K facts is deleted (timed, CPU) and re-added once per CONFIG in turn. CONFIGs:
``off`` (deletions locate rows through the full-row index as before, plan-cache drift floor 1 row, no
few-sources closure difference), ``on`` (the code as is), or one change alone: ``rowmap``, ``floor``,
``few``. Default: off,on 8 lubm 1000."""
import sys
import time
import statistics
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.plan.cache as pc
import deltalog.storage.relation as rel
from deltalog.backends.local import few_sources
new_req = rel.Relation._rows_equal_to
SMALL_ROWS = pc.SMALL_ROWS
def old_req(self, columns):   # Relation._rows_equal_to before the RowMap (71254bd)
    prober = self.probed_by(tuple(range(self._width)))
    rows = prober.probe(columns, 0, len(self)).expand(0, len(columns[0]))[1]
    return rows, prober.exact
def config(row_map, floor, few):
    rel.Relation._rows_equal_to = new_req if row_map else old_req
    pc.SMALL_ROWS = SMALL_ROWS if floor else 1
    few_sources.PAIR_SPACE = (1 << 20) if few else 0
configs = {"off": (0, 0, 0), "on": (1, 1, 1), "rowmap": (1, 0, 0), "floor": (0, 1, 0), "few": (0, 0, 1)}
which = sys.argv[1].split(",") if len(sys.argv) > 1 else ["off", "on"]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 8
ds = make(sys.argv[3] if len(sys.argv) > 3 else "lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, int(sys.argv[4]) if len(sys.argv) > 4 else 1000, n + 2))
for sel in samples[:2]:
    for c in which:
        config(*configs[c])
        rows = {p: f.rows() for p, f in sel.items()}
        r.update(delete=rows)
        r.update(add=rows)
times = {c: [] for c in which}
for sel in samples[2:]:
    for c in which:
        config(*configs[c])
        rows = {p: f.rows() for p, f in sel.items()}
        t = time.process_time()
        r.update(delete=rows)
        times[c].append(time.process_time() - t)
        r.update(add=rows)
for c in which:
    print(c, "delete cpu median ms", round(statistics.median(times[c]) * 1000, 2), [round(x*1000, 1) for x in times[c]])
