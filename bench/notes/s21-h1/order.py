"""Row order of relatedPlaces after materialising a Claros-like dataset: sorted pieces by packed key and by column 0."""
import os, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
import numpy as np
from maint_generators import make
from deltalog.api import Reasoner
ds = make(sys.argv[1] if len(sys.argv) > 1 else "claros-15000")
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts); r.materialise()
for name in ("relatedPlaces", "place", "relatedToSite", "foundAt"):
    rel = r.backend._relations[name]
    cols = rel.stored_columns()
    n = len(cols[0])
    key = cols[0] * (int(max(c.max() for c in cols)) + 1) + (cols[1] if len(cols) > 1 else 0)
    print(name, n, "gens", rel._generations, rel._ends, "idx", list(rel._indexes), type(rel.tuples._keys).__name__,
          "descents key", int(np.count_nonzero(key[1:] < key[:-1])), "descents col0", int(np.count_nonzero(cols[0][1:] < cols[0][:-1])))
