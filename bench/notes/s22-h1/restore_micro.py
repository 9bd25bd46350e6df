"""Restoring each saved index order of a store against re-sorting it, per index (CPU s, best of 3; the
file read once beforehand).   PYTHONPATH=<tree>/src python restore_micro.py STORE [prof]"""
import sys, time
from deltalog.api import Reasoner
from deltalog.storage import saved_orders
from deltalog.storage.index import SortedIndex
r = Reasoner.open(sys.argv[1])
class Held:
    def __init__(self, arrays): self.arrays = arrays
    def take(self, key): return self.arrays.get(key)
def best(f):
    out = []
    for _ in range(3):
        t = time.process_time(); f(); out.append(time.process_time() - t)
    return min(out)
for name, rel in r.backend.relations_state().items():
    if rel.saved_orders is None:
        continue
    for positions, (file, prefix, entry) in list(rel.saved_orders.entries.items()):
        stored = rel.stored_columns()
        held = Held(file.source.parse(file.relative, file.reader))
        restore = lambda: saved_orders._restored(held, prefix, entry, positions, stored)
        def rebuild():
            i = SortedIndex(positions); i.refresh(stored); return i
        a, b = restore(), rebuild()
        same = a is not None and all((x.keys == y.keys).all() and (x.rows == y.rows).all() for x, y in zip(a.runs, b.runs))
        print(f"{name}{positions}: {entry['covered']:,} rows, {len(entry['runs'])} runs; restore {best(restore):.4f} s, "
              f"sort {best(rebuild):.4f} s, same {same}")
        if "prof" in sys.argv and entry["covered"] > 1e6:
            import cProfile, pstats; pr = cProfile.Profile(); pr.enable(); restore(); pr.disable()
            pstats.Stats(pr).sort_stats("tottime").print_stats(12)
