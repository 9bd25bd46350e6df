"""Weak-labelling variants on the first X_R captured by capture.py (/tmp/h3/graphs.pkl): the tree's weak_components,
min.at / plain-scatter / scatter-then-fix hooking with full pointer jumping, scipy, and weak5 (the kept form:
edges inside a tree dropped, chains followed among the hooked roots only, labels by root rank). CPU ms, median of 15.
Usage: PYTHONPATH=<tree>/src python weak_micro.py"""
import pickle, time, sys
import numpy as np
calls = pickle.load(open("/tmp/h3/graphs.pkl", "rb"))
w = [c for c in calls if c[0] == "weak"][0]
s0, d0, n = w[1], w[2], w[3]
def weak(s, d, n, mode):
    parent = np.arange(n, dtype=np.int64); rounds = 0
    while True:
        rounds += 1
        ps, pd = parent[s], parent[d]
        apart = ps != pd
        if not apart.any():
            root = parent == np.arange(n)
            return int(np.count_nonzero(root)), (np.cumsum(root) - 1)[parent], rounds
        s, d, ps, pd = s[apart], d[apart], ps[apart], pd[apart]
        hi, lo = np.maximum(ps, pd), np.minimum(ps, pd)
        if mode == "at":
            np.minimum.at(parent, hi, lo)
        elif mode == "scatter":
            parent[hi] = lo
        elif mode == "scatter2":
            parent[hi] = lo
            while True:
                better = lo < parent[hi]
                if not better.any(): break
                parent[hi[better]] = lo[better]
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
from deltalog.backends.local.components import weak_components as ref
import deltalog.backends.local.components as C
def t(f, *a, rep=15):
    ts = []
    for _ in range(rep):
        c = time.process_time(); out = f(*a); ts.append(time.process_time() - c)
    return round(np.median(ts) * 1e3, 2), out
for k in range(2):
    print("current tree", t(ref, s0, d0, n)[0])
    for m in ("at", "scatter", "scatter2"):
        ms, out = t(weak, s0, d0, n, m); print(m, ms, out[2])
    import scipy.sparse.csgraph
    print("scipy", t(ref, s0, d0, n)[0])
    del sys.modules["scipy.sparse.csgraph"]
def weak5(s, d, n, hook="at"):
    parent = np.arange(n, dtype=np.int64); rounds = 0
    while True:
        rounds += 1
        ps, pd = parent[s], parent[d]
        apart = ps != pd
        if not apart.any():
            root = parent == np.arange(n)
            return int(np.count_nonzero(root)), (np.cumsum(root) - 1)[parent], rounds
        if not apart.all():
            s, d, ps, pd = s[apart], d[apart], ps[apart], pd[apart]
        hi, lo = np.maximum(ps, pd), np.minimum(ps, pd)
        if hook == "at":
            np.minimum.at(parent, hi, lo)
        else:
            parent[hi] = lo
        top = parent[hi]
        while True:
            up = parent[top]
            if np.array_equal(up, top):
                break
            top = up
        parent[hi] = top
        parent = parent[parent]
ref_lab = ref(s0, d0, n)[1]
for k in range(2):
    for m in ("at", "scatter"):
        ms, out = t(weak5, s0, d0, n, m); print("weak5", m, ms, out[2], np.array_equal(out[1], ref_lab))
