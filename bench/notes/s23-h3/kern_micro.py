"""The NumPy and scipy weak labelling and reachable() on the graphs capture.py saved (/tmp/h3/graphs.pkl), wall ms.
Usage: PYTHONPATH=<tree>/src python kern_micro.py"""
import pickle, time, sys
import numpy as np
calls = pickle.load(open("/tmp/h3/graphs.pkl", "rb"))
import deltalog.backends.local.components as comp
import deltalog.backends.local.reach as reach
def t(f, *a, rep=7):
    ts = []
    for _ in range(rep):
        c = time.perf_counter(); out = f(*a); ts.append(time.perf_counter() - c)
    return np.median(ts) * 1e3, out
w = [c for c in calls if c[0] == "weak"][0]
r = [c for c in calls if c[0] == "reach"][0]
ms, (nc, lab) = t(comp.weak_components, w[1], w[2], w[3]); print("numpy weak", round(ms, 2), nc)
old = reach.FRONTIER_LEVELS; reach.FRONTIER_LEVELS = 10**6
ms, out = t(reach.reachable, r[1], r[2], r[3], r[4]); print("numpy reach to end", round(ms, 2), out.size)
reach.FRONTIER_LEVELS = old
c = time.perf_counter(); import scipy.sparse.csgraph; print("import", (time.perf_counter() - c) * 1e3)
ms, (nc2, lab2) = t(comp.weak_components, w[1], w[2], w[3]); print("scipy weak", round(ms, 2), nc2, np.array_equal(lab, lab2))
ms, out2 = t(reach.reachable, r[1], r[2], r[3], r[4]); print("scipy reach", round(ms, 2), np.array_equal(out, out2))
