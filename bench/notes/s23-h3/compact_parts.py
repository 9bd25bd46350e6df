"""Where a compaction's time goes inside 003's protocol: wraps RowHistory.compact's parts with CPU timers.
Usage: PYTHONPATH=<tree>/src python compact_parts.py <tree>/bench/maint_closure_cpu.py claros-15000 1000 9 after:auto"""
import sys, time, runpy
import numpy as np
import deltalog.storage.history as h
import deltalog.storage.tupleset as ts
import deltalog.storage.index as ix
import deltalog.storage.growable as gr
T = {}
def wrap(owner, name, label):
    orig = getattr(owner, name)
    def timed(*a, **k):
        c = time.process_time(); out = orig(*a, **k); T[label] = T.get(label, 0) + time.process_time() - c
        return out
    setattr(owner, name, timed)
wrap(ts.TupleSet, "renumber", "map renumber")
wrap(ix.SortedIndex, "renumbered", "indexes renumbered")
wrap(gr.GrowableArray, "extend_at", "columns")
orig = h.RowHistory.compact
def compact(self):
    T.clear(); c = time.process_time(); orig(self); total = time.process_time() - c
    print(f"    compact {self.name} {len(self)} rows: {total:.3f}", {k: round(v, 3) for k, v in T.items()},
          "indexes", list(self._indexes), flush=True)
h.RowHistory.compact = compact
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
