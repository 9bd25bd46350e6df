"""Closures of small graphs by dense bit matrices, without scipy (backends/local/closure.py).

``scipy.sparse.csgraph`` is what the closure kernels stand on, but importing it costs ~0.2 s (scipy
1.17 pulls in ``numpy.f2py``): more than a small program's whole evaluation. A graph of at most
:data:`DENSE_NODES` nodes is closed here instead, by Warshall's algorithm (S. Warshall, "A theorem
on Boolean matrices", JACM 1962) over rows packed 8 nodes a byte: for each node k in turn, every
row that reaches k takes k's row in (one vectorised OR over the rows that hit). It replaced
repeated squaring by BLAS float32 products, which is as fast single-threaded (~1-2 ms at 256 nodes)
but whose first product starts OpenBLAS's thread pool: 25 ms CPU and 65 ms wall on a quiet 2-core
machine, up to 0.6 s when the cores are busy (its threads spin; docs/design.md).
"""

from __future__ import annotations

import numpy as np

DENSE_NODES = 256


def reachability(s: np.ndarray, d: np.ndarray, n: int) -> np.ndarray:
    """R[x, z]: a path of one or more edges ``s[i] -> d[i]`` leads from x to z (node positions < n)."""
    step = np.zeros((n, n), bool)
    step[s, d] = True
    packed = np.packbits(step, axis=1)   # row x: the bits of the nodes x reaches (big-endian in a byte)
    for k in np.flatnonzero(step.any(axis=0)).tolist():   # a node no edge enters is on no path through it
        hit = np.flatnonzero(packed[:, k >> 3] & (0x80 >> (k & 7)))
        if hit.size:
            packed[hit] |= packed[k]
    return np.unpackbits(packed, axis=1, count=n).astype(bool)


def rows_reaching(reach: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Which nodes reach one of ``targets`` (positions), as a mask."""
    if not targets.size:
        return np.zeros(reach.shape[0], bool)
    return np.asarray(reach[:, targets].any(axis=1))
