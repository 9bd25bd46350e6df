"""cProfile of opening a store, in a process that has already imported what opening imports (a first
open of a copy, untimed).   PYTHONPATH=<tree>/src python open_prof.py STORE [N]"""
import cProfile, pstats, sys, time
from deltalog.api import Reasoner
store = sys.argv[1]
Reasoner.open(store)
t = time.process_time(); Reasoner.open(store); print("warm open cpu", round(time.process_time() - t, 3))
pr = cProfile.Profile(); pr.enable(); Reasoner.open(store); pr.disable()
pstats.Stats(pr).sort_stats(sys.argv[3] if len(sys.argv) > 3 else "cumulative").print_stats(int(sys.argv[2]) if len(sys.argv) > 2 else 35)
