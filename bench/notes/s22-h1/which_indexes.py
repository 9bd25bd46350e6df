"""Which indexes exist when a store is saved (after materialising) and which the first update on the
opened store builds.   TREE=<tree> PYTHONPATH=<tree>/src python which_indexes.py DATASET K delete|add"""
import os, shutil, sys, tempfile
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
from deltalog.storage import index
name, k, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ds = make(name)
rows = {p: f.rows() for p, f in list(uniform_samples(ds, k, 1))[0].items()}
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
at_save = {}
for rel_name, rel in r.backend.relations_state().items():
    for pos, idx in getattr(rel, "_indexes", {}).items():
        identity = all((run.rows == range(run.row_lo, run.row_hi)).all() for run in idx.runs)
        at_save[(rel_name, pos)] = (len(rel), len(idx.runs), identity)
store = tempfile.mkdtemp() + "/s"; r.save(store)
if kind == "add":
    r2 = Reasoner.open(store, writable=True); r2.update(delete=rows); r2.save(store); r2.close()
built = []
orig = index.SortedIndex._rekey
def rekey(self, stored):
    built.append((self.positions, len(stored[0])))
    return orig(self, stored)
index.SortedIndex._rekey = rekey
r3 = Reasoner.open(store, writable=True)
names = {}
orig_index = type(next(iter(r3.backend.relations_state().values()))).index
def idx(self, positions):
    names.setdefault((self.name, positions), len(self))
    return orig_index(self, positions)
type(next(iter(r3.backend.relations_state().values()))).index = idx
r3.update(**{kind: rows})
print(f"indexes at save: {len(at_save)}, rows {sum(v[0] for v in at_save.values()):,}, identity-ordered {sum(v[2] for v in at_save.values())}")
print(f"indexes the update asked: {len(names)}; of them present at save: {sum(1 for k in names if k in at_save)}")
for key, n in sorted(names.items(), key=lambda kv: -kv[1]):
    print(f"  {key}: {n:,} rows; at save: {at_save.get(key)}")
shutil.rmtree(os.path.dirname(store))
