"""Open a store and answer one query, CPU per step and for the whole process: query_time.py STORE (as run inline)."""
import sys, time
c0 = time.process_time()
from deltalog.api import Reasoner
c = time.process_time(); r = Reasoner.open(sys.argv[1]); o = time.process_time() - c
c = time.process_time(); q = r.query('relatedPlaces(X, Y)'); qt = time.process_time() - c
print(f'open {o:.3f} query {qt:.3f} total {time.process_time() - c0:.3f}')
