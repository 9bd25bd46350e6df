"""Run `deltalog run` on a bench case under a spy printing each LiveKeyCounts made (stop 22: the whole-process
workloads make none). PYTHONPATH=<tree>/src python live_spy.py bench/data/CASE"""
import sys, runpy
from deltalog.storage import livekeys
made = []
orig = livekeys.LiveKeyCounts.__init__
def init(self, space):
    print("COUNTS MADE", space, file=sys.stderr); orig(self, space)
livekeys.LiveKeyCounts.__init__ = init
import deltalog.backends.local.execute
import deltalog.backends.local.exists as ex
calls = [0]
o2 = ex.live_values_check
def spy(r, on, ctx):
    c = o2(r, on, ctx); calls[0] += c is not None; return c
ex.live_values_check = spy
sys.argv = ["deltalog", "run", sys.argv[1] + "/program.dl", "--facts", sys.argv[1] + "/facts", "--out", "/tmp/h2_out", "--quiet"]
try:
    runpy.run_module("deltalog", run_name="__main__")
except SystemExit:
    pass
print("counts made", made, "checks answered", calls, file=sys.stderr)
