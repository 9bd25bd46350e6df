import cProfile, pstats, sys, time, shutil
from deltalog.api import Reasoner
pr = cProfile.Profile(); c = time.process_time(); pr.enable()
r = Reasoner.open(sys.argv[1])
pr.disable(); print("open", time.process_time() - c)
pstats.Stats(pr).sort_stats("cumulative").print_stats(45)
