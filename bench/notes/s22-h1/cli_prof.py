"""cProfile of one deltalog command, whole (imports included), in this process; output to stdout dropped.
  PYTHONPATH=<tree>/src python cli_prof.py N SORT -- deltalog arguments..."""
import cProfile, contextlib, io, pstats, sys
n, sort, args = int(sys.argv[1]), sys.argv[2], sys.argv[4:]
pr = cProfile.Profile(); pr.enable()
from deltalog.cli import main
out = sys.stdout
sys.stdout = open("/dev/null", "w")
try:
    main(args)
except SystemExit:
    pass
pr.disable()
sys.stdout = out
pstats.Stats(pr).sort_stats(sort).print_stats(n)
