"""bench/compaction_micro.py under small_pages with the CPU of the map renumbering, the index renumbering and the
columns printed. Usage: PYTHONPATH=<tree>/src python compact_micro_parts.py <tree>"""
import sys, time
sys.path.insert(0, sys.argv[1] + "/bench")
import compaction_micro as cm
from deltalog.storage.relation import Relation
from deltalog.backends.local.memory import small_pages
import deltalog.storage.tupleset as ts, deltalog.storage.index as ix, deltalog.storage.growable as gr
T = {}
def wrap(owner, name, label):
    orig = getattr(owner, name)
    def timed(*a, **k):
        c = time.process_time(); out = orig(*a, **k); T[label] = T.get(label, 0) + time.process_time() - c
        return out
    setattr(owner, name, timed)
wrap(ts.TupleSet, "renumber", "map")
wrap(ix.SortedIndex, "renumbered", "indexes")
for n in ("extend_at", "extend_where"):
    if hasattr(gr.GrowableArray, n): wrap(gr.GrowableArray, n, "columns")
orig = Relation.compact
def compact(self):
    T.clear()
    with small_pages():
        orig(self)
    print({k: round(v, 3) for k, v in T.items()})
Relation.compact = compact
cm.main()
