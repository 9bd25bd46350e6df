import sys, time, runpy
import deltalog.storage.history as h
from deltalog.backends.local.memory import small_pages
orig = h.RowHistory.compact
def compact(self):
    c = time.process_time()
    with small_pages():
        orig(self)
    print(f"    compact(small pages) {self.name} {len(self)} rows: {time.process_time() - c:.3f}", flush=True)
h.RowHistory.compact = compact
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
