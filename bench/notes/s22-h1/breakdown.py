"""Where a CLI-style update on a store spends its CPU: open, then the update with the first-time
rebuilds it does timed by wrapping them (indexes re-keyed, deferred tuple sets, row-id take-overs,
row maps), then save.
  TREE=<tree> PYTHONPATH=<tree>/src python breakdown.py DATASET STORE K SAMPLE delete|add|remat [prof]"""
import collections, os, shutil, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
from maint_generators import make, uniform_samples
t_import = time.process_time()
from deltalog.api import Reasoner
t_import = time.process_time() - t_import
from deltalog.storage import index, tupleset, hashmap, relation
spent = collections.Counter(); calls = collections.Counter()
def wrap(owner, name, label):
    f = getattr(owner, name)
    def g(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            spent[label] += time.process_time() - t; calls[label] += 1
    setattr(owner, name, g)
wrap(index.SortedIndex, "_rekey", "index rekey")
wrap(index.SortedIndex, "_add_run", "index add_run")
wrap(tupleset.TupleSet, "_undefer", "tupleset undefer")
wrap(hashmap.Int64HashMap, "taking_over", "hashmap taking_over")
wrap(relation.Relation, "_map_rows", "relation map_rows")
try:
    from deltalog.storage import saved_orders
    wrap(saved_orders.SavedOrders, "take", "saved order take")
    wrap(saved_orders.OrdersFile, "take", "orders file read")
except ImportError:
    pass
name, store, k, sample, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
ds = make(name)
sel = list(uniform_samples(ds, k, sample + 1))[sample]
rows = {p: f.rows() for p, f in sel.items()}
work = store + ".work"
shutil.rmtree(work, ignore_errors=True); shutil.copytree(store, work)
if kind == "add":
    r = Reasoner.open(work, writable=True); r.update(delete=rows, algorithm="auto"); r.save(work); r.close()
spent.clear(); calls.clear()
mods = set(sys.modules)
t0 = time.process_time()
r = Reasoner.open(work, writable=True)
t1 = time.process_time()
opened = dict(spent); spent.clear()
mods_open = set(sys.modules) - mods
if "prof" in sys.argv:
    import cProfile, pstats; pr = cProfile.Profile(); pr.enable()
if kind == "add":
    r.update(add=rows, algorithm="auto")
else:
    r.update(delete=rows, algorithm="remat" if kind == "remat" else "auto")
t2 = time.process_time()
if "prof" in sys.argv:
    pr.disable(); pstats.Stats(pr).sort_stats(os.environ.get("SORT", "tottime")).print_stats(int(os.environ.get("N", "30")))
mods_upd = set(sys.modules) - mods - mods_open
upd = dict(spent); spent.clear()
r.save(work); r.close()
t3 = time.process_time()
print(f"{name} {kind} sample {sample}: import api {t_import:.3f} open {t1-t0:.3f} update {t2-t1:.3f} save {t3-t2:.3f} total {t3-t0:.3f} cpu s")
print("  in open:", {k: round(v, 3) for k, v in opened.items()})
print("  in update:", {k: round(v, 3) for k, v in upd.items()}, dict(calls))
print(f"  modules first imported: open {len(mods_open)}, update {len(mods_upd)}")
