"""Encoding pipeline's edge.tsv + node.tsv in a fresh process (enc), vs a copy of the values (id).

    PYTHONPATH=src chrt -f 10 python bench/notes/s23-h1/encode_ab.py enc
"""
import time, sys
from deltalog.process import configure_command_process
configure_command_process()
import numpy as np
from deltalog.io.formats import read_decoded
from deltalog.storage.dictionary import Dictionary
from deltalog.backends.local.tables import int_table_ids
from pathlib import Path
D=str(Path(__file__).resolve().parents[2] / 'data' / 'wl-pipeline' / 'facts') + '/'
e=read_decoded(D+'edge.tsv', arity=2); n=read_decoded(D+'node.tsv', arity=1)
mode=sys.argv[1]
t=time.process_time()
if mode=='enc':
    d=Dictionary(); a=int_table_ids(e,d); b=int_table_ids(n,d)
else:
    a=e.rows.ravel()+0; b=n.rows.ravel()+0
print(mode, (time.process_time()-t)*1000)
