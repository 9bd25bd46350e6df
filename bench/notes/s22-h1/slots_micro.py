"""What a store's tuple set would cost restored from saved slots (a scatter) against building it
(``_undefer``) and taking its row ids over (``taking_over``), for the largest relation of a store.
Fresh process per mode (page faults count).  PYTHONPATH=<tree>/src python slots_micro.py STORE build|slots"""
import sys, time
import numpy as np
from deltalog.api import Reasoner
from deltalog.storage.hashmap import Int64HashMap
from deltalog.storage.hashset import EMPTY, Int64HashSet
from deltalog.storage.tupleset import pack
r = Reasoner.open(sys.argv[1])
name, rel = max(r.backend.relations_state().items(), key=lambda kv: len(kv[1]))
live = rel.tuples._deferred[0]
if sys.argv[2] == "build":
    t = time.process_time()
    rel.tuples._undefer()
    t1 = time.process_time()
    s = rel.tuples._keys
    m = Int64HashMap.taking_over(s, pack(rel._rows_at(live), rel.tuples._radix), live)
    t2 = time.process_time()
    print(f"{name} {len(rel):,} rows: build {t1 - t:.3f} take over {t2 - t1:.3f} total {t2 - t:.3f} cpu s")
    np.save("/tmp/h1/slots.npy", m._held_slots(pack(rel._rows_at(live), rel.tuples._radix)).astype(np.int32))
    np.save("/tmp/h1/bits.npy", np.array([m._bits, rel.tuples._radix]))
else:
    slots_saved, (bits, radix) = np.load("/tmp/h1/slots.npy"), np.load("/tmp/h1/bits.npy")
    t = time.process_time()
    slots = slots_saved.astype(np.int64)
    keys = pack(rel._rows_at(live), int(radix))
    m = Int64HashMap(); m._bits = int(bits)
    m._table = np.full(1 << int(bits), EMPTY, np.int64); m._values = np.zeros(1 << int(bits), np.int64)
    m._table[slots] = keys; m._values[slots] = live; m._size = keys.size
    t1 = time.process_time()
    ok = m.contains(keys[:100000]).all()
    print(f"{name} {len(rel):,} rows: from slots {t1 - t:.3f} cpu s ({ok})")
