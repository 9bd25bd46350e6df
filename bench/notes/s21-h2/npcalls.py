"""NumPy's Python-level wrappers against the methods or ufunc reductions they call, on small arrays (best of 7)."""
import timeit

import numpy as np

a = np.arange(100, dtype=np.int64)[::-1].copy()
s = np.sort(a)
w = np.array([5, 50, 77])
m = a > 50
mx, mn, lor, land = np.maximum.reduce, np.minimum.reduce, np.logical_or.reduce, np.logical_and.reduce
pairs = [("np.searchsorted(s, w)", lambda: np.searchsorted(s, w), "s.searchsorted(w)", lambda: s.searchsorted(w)),
         ("np.flatnonzero(m)", lambda: np.flatnonzero(m), "m.nonzero()[0]", lambda: m.nonzero()[0]),
         ("int(a.max())", lambda: int(a.max()), "int(mx(a))", lambda: int(mx(a))),
         ("int(a.min())", lambda: int(a.min()), "int(mn(a))", lambda: int(mn(a))),
         ("bool(m.any())", lambda: bool(m.any()), "bool(lor(m))", lambda: bool(lor(m))),
         ("bool(m.all())", lambda: bool(m.all()), "bool(land(m))", lambda: bool(land(m))),
         ("int(m.sum())", lambda: int(m.sum()), "np.count_nonzero(m)", lambda: np.count_nonzero(m)),
         ("int(a.sum())", lambda: int(a.sum()), "int(np.add.reduce(a))", lambda: int(np.add.reduce(a))),
         ("np.sort(a)", lambda: np.sort(a), "np.sort(a) (same)", lambda: np.sort(a)),
         ("np.argsort(a, kind='stable')", lambda: np.argsort(a, kind="stable"), "a.argsort(kind='stable')",
          lambda: a.argsort(kind="stable"))]
for name1, f1, name2, f2 in pairs:
    t1 = min(timeit.repeat(f1, number=20000, repeat=7)) / 20000 * 1e6
    t2 = min(timeit.repeat(f2, number=20000, repeat=7)) / 20000 * 1e6
    print(f"{name1:30s} {t1:5.2f} us   {name2:26s} {t2:5.2f} us")
