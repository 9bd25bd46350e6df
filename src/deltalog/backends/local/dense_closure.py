"""Closures of small graphs by dense boolean matrices, without scipy (backends/local/closure.py).

``scipy.sparse.csgraph`` is what the closure kernels stand on, but importing it costs ~0.2 s (scipy
1.17 pulls in ``numpy.f2py``): more than a small program's whole evaluation. A graph of at most
:data:`DENSE_NODES` nodes is closed here instead, by repeated squaring of its adjacency matrix
(each product doubles the path lengths covered; BLAS float32 products of 256 x 256 matrices take
microseconds), with the same answers as the sparse kernels.
"""

from __future__ import annotations

import numpy as np

DENSE_NODES = 256


def reachability(s: np.ndarray, d: np.ndarray, n: int) -> np.ndarray:
    """R[x, z]: a path of one or more edges ``s[i] -> d[i]`` leads from x to z (node positions < n)."""
    step = np.zeros((n, n), np.float32)
    step[s, d] = 1.0
    reach = step > 0
    while True:
        closed = reach | ((step @ step) > 0)
        if np.array_equal(closed, reach):
            return reach
        reach = closed
        step = closed.astype(np.float32)


def rows_reaching(reach: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Which nodes reach one of ``targets`` (positions), as a mask."""
    if not targets.size:
        return np.zeros(reach.shape[0], bool)
    return np.asarray(reach[:, targets].any(axis=1))
