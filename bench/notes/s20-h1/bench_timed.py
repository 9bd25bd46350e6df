import sys, time, runpy
import deltalog.storage.history as h
orig = h.RowHistory.compact
def compact(self):
    c = time.process_time(); orig(self); print(f"    compact {self.name} {len(self)} rows: {time.process_time() - c:.3f}", flush=True)
h.RowHistory.compact = compact
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
