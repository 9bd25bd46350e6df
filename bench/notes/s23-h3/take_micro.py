"""The take-over of a hash set of 4.8M keys (a relation's first deletion) whole vs in cache-sized slices.
Usage: PYTHONPATH=<tree>/src python take_micro.py [whole|sliced] ..."""
import sys, time
import numpy as np
from deltalog.storage.hashset import Int64HashSet
from deltalog.storage.hashmap import Int64HashMap
from deltalog.backends.local.memory import small_pages
rng = np.random.default_rng(1)
keys = np.unique(rng.integers(0, 130_000, 4_900_000) * 130_000 + rng.integers(0, 130_000, 4_900_000))[:4_800_000]
rng.shuffle(keys)
SLICE = 1 << 19


def taking_over_sliced(held, keys, values):
    """``Int64HashMap.taking_over`` (a table, no sorted batch) a slice of keys at a time."""
    table = Int64HashMap()
    table._bits, table._table, table._size, table._tombs = held._bits, held._table, held._size, held._tombs
    table._sorted, table._sorted_probes = held._sorted, held._sorted_probes
    table._values = np.zeros(table._table.size, np.int64)
    for lo in range(0, keys.size, SLICE):
        table._values[table._held_slots(keys[lo:lo + SLICE])] = values[lo:lo + SLICE]
    return table


Int64HashMap.taking_over_sliced = staticmethod(taking_over_sliced)
for mode in sys.argv[1:]:
    s = Int64HashSet()
    for part in np.array_split(keys, 19):
        s.add_unique(np.sort(part))
    with small_pages():
        c = time.process_time()
        m = Int64HashMap.taking_over(s, keys, np.arange(keys.size)) if mode == "whole" else \
            Int64HashMap.taking_over_sliced(s, keys, np.arange(keys.size))
        t = time.process_time() - c
    assert np.array_equal(m.values_of(keys[:1000]), np.arange(1000))
    print(mode, round(t, 3), flush=True)
