"""What a task of the closure nodes' executor path runs (closure_in_memory.py broadcasts the graph): the
embedded backend's kernel (backends/local/closure.py) for the task's slice of the source nodes, its pairs as
Arrow batches of tagged names.

Kept apart from the driver's closure modules: a Python worker unpickling a task imports the module of every
function the task names, and this one needs only the kernels and Arrow, not the Spark translation modules
(which import one another: execute.py registers closure.py's nodes).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pyarrow as pa

from deltalog.backends.local import closure as kernels

BATCH_ROWS = 1 << 20                 # pairs per Arrow batch an executor yields


def pair_batches(task: tuple, sources: np.ndarray, columns: tuple[str, ...]) -> Iterator[pa.RecordBatch]:
    """The kernel's pairs for ``sources`` as batches of tagged names (``task``: the closure's kind, the graph's
    source and target ids, and the name of each id)."""
    names = task[3]
    for xs, ys in _listed(task, sources):
        yield pa.RecordBatch.from_arrays([names.take(pa.array(xs)), names.take(pa.array(ys))], names=list(columns))


def _listed(task: tuple, sources: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The kernel's pairs for ``sources`` (the broadcast task says which closure)."""
    kind, src, dst = task[:3]
    if kind == "tc":
        return kernels.transitive_closure(src, dst, sources, chunk=BATCH_ROWS)
    return kernels.component_pairs(src, dst, sources, chunk=BATCH_ROWS)
