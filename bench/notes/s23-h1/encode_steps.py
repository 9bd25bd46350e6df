"""The statements of the base tree's dense int encoding of a case's edge.tsv, timed one by one (fresh process).

    PYTHONPATH=src chrt -f 10 python bench/notes/s23-h1/encode_steps.py wl-pipeline
"""
import time, sys
from deltalog.process import configure_command_process
configure_command_process()
import numpy as np
from deltalog.io.formats import read_decoded
from deltalog.storage.dictionary import Dictionary
import deltalog.storage.dictionary as dm
from pathlib import Path
D=str(Path(__file__).resolve().parents[2] / 'data' / sys.argv[1] / 'facts') + '/'
e=read_decoded(D+'edge.tsv', arity=2)
T=[time.process_time()]; names=[]
def m(name): T.append(time.process_time()); names.append(name)
values=e.rows.ravel(); lo, hi = int(values.min()), int(values.max()); m('minmax')
span=hi-lo+1
present = np.zeros(span, dtype=bool); m('zeros')
present[values] = True; m('scatter')
fresh=np.flatnonzero(present); m('flatnonzero')
d=Dictionary()
d.kinds.extend(np.full(len(fresh), 1, np.uint8)); m('kinds')
d.ints.extend(fresh); m('ints')
d.numbers.extend(fresh.astype(np.float64)); m('numbers')
d.texts.extend([None]*fresh.size); m('texts')
ids=np.arange(fresh.size); keys=fresh.copy(); m('arange+copy')
table=np.empty(span, np.int64); table[keys]=ids; m('table')
out=table[values]; m('gather')
print(' '.join(f'{n} {1000*(b-a):.1f}' for n,a,b in zip(names,T,T[1:])), 'total', f'{1000*(T[-1]-T[0]):.1f}', 'distinct', fresh.size, 'span', span)
