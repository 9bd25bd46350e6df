import sys, time, collections
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
ds = make("lubm"); r = Reasoner(ds.program); r.load_tables(ds.facts); r.materialise()
samples = list(uniform_samples(ds, 1000, 9))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
from deltalog.storage import relation as R, index as I
log = []
orig = R.Relation.index
def index(self, positions):
    found = self._indexes.get(positions)
    before = found._covered if found is not None else 0
    runs = len(found.runs) if found is not None else 0
    t = time.perf_counter(); out = orig(self, positions); dt = time.perf_counter() - t
    log.append((round(dt * 1e3, 3), self.name, positions, len(self), len(self) - before, runs, len(out.runs)))
    return out
R.Relation.index = index
sel = samples[2]; rows = {p: f.rows() for p, f in sel.items()}
r.update(delete=rows, algorithm="dred")
print(len(log), round(sum(l[0] for l in log), 2))
for l in sorted(log, reverse=True)[:25]: print(l)
