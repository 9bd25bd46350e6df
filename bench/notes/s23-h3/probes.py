"""Which keyed views of a relation an update asks (positions, probe rows, index built or refreshed), per update.
Usage: TREE=<tree> PYTHONPATH=<tree>/src python probes.py DATASET RELATION [samples]"""
import os, sys, time, collections
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.storage.relation as rel
import deltalog.storage.index as ix
name, target = sys.argv[1], sys.argv[2]
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 2
seen = collections.Counter()
orig_probed = rel.Relation.probed_by
def probed_by(self, positions):
    if self.name == target:
        seen[("probed_by", positions)] += 1
    return orig_probed(self, positions)
rel.Relation.probed_by = probed_by
orig_rekey = ix.SortedIndex._rekey
def _rekey(self, *a, **k):
    c = time.process_time(); out = orig_rekey(self, *a, **k)
    seen[("rekey", self.positions, round(time.process_time() - c, 3))] += 1
    return out
ix.SortedIndex._rekey = _rekey
ds = make(name)
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
for i, sel in enumerate(uniform_samples(ds, 1000, samples)):
    rows = {p: f.rows() for p, f in sel.items()}
    for kind in ("delete", "add"):
        seen.clear(); c = time.process_time()
        r.update(**{kind: rows}, algorithm="auto")
        print(i, kind, round(time.process_time() - c, 3), dict(seen))
