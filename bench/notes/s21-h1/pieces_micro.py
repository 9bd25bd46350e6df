import time, numpy as np
from deltalog.storage.hashset import sort_with_positions
from deltalog.storage.sorted_run import Run
rng = np.random.default_rng(0)
n = 4_800_000; space = 130_000
a = np.sort(rng.integers(0, 104_000, 89_000)); b = np.sort(rng.integers(0, 104_000, n - 89_000))
keys = np.concatenate([a, b])
def t(f, r=5):
    ts = []
    for _ in range(r):
        c = time.process_time(); f(); ts.append(time.process_time() - c)
    return f"{min(ts)*1e3:.1f} ms (median {sorted(ts)[len(ts)//2]*1e3:.1f})"
print("sort_with_positions", t(lambda: sort_with_positions(keys)))
print("argsort stable", t(lambda: np.argsort(keys, kind="stable")))
print("descents", t(lambda: np.flatnonzero(keys[1:] < keys[:-1])))
def merged():
    r1 = Run.build(0, a.size, keys[:a.size].copy(), np.arange(a.size), space)
    r2 = Run.build(a.size, n, keys[a.size:].copy(), np.arange(a.size, n), space)
    return Run.merged([r1, r2], space)
print("offsets merge", t(merged))
def build_whole():
    k, o = sort_with_positions(keys); return Run.build(0, n, k, o, space)
print("sort + build", t(build_whole))
def stable_build():
    o = np.argsort(keys, kind="stable"); return Run.build(0, n, keys[o], o, space)
print("stable + build", t(stable_build))
m = merged(); w = build_whole()
assert (m.keys == w.keys).all() and (m.rows == w.rows).all() and (m.offsets == w.offsets).all()
