import sys, time, numpy as np
sys.path.insert(0, sys.argv[1] + "/bench")
from maint_generators import make
from deltalog.api import Reasoner
ds = make("claros-15000")
r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts)
c = time.process_time(); r.materialise(); print("mat", round(time.process_time() - c, 3))
rel = r.backend._relations["relatedPlaces"]
c = time.process_time(); rel.index((0,)); print("(0,) index", round(time.process_time() - c, 3))
import cProfile, pstats
rel._indexes.clear()
pr = cProfile.Profile(); pr.enable(); rel.index((0,)); pr.disable()
pstats.Stats(pr).sort_stats("tottime").print_stats(8)
