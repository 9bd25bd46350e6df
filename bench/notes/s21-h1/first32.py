import numpy as np, os, sys
import deltalog.storage.hashmap as hm
src = open(hm.__file__).read()
# experiment: the take-over's values as int32
orig = hm.Int64HashMap.taking_over.__func__
def taking_over(cls, held, keys, values):
    z = np.zeros
    def z32(n, dt=None):
        return z(n, np.int32)
    hm.np.zeros = z32
    try:
        return orig(cls, held, keys, values)
    finally:
        hm.np.zeros = z
hm.Int64HashMap.taking_over = classmethod(taking_over)
exec(open(__file__.replace("first32.py", "first.py")).read())
