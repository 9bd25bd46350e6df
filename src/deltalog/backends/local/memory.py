"""Allocation policy for the executor's many short-lived arrays: no transparent huge pages.

NumPy asks the kernel for transparent huge pages on large arrays. On the 2-core VMs we
measured (docs/design.md), faulting in huge pages costs more than the TLB misses it saves
for arrays that live one batch: DAG-R linear closure took 15.6 s with them and 10.9 s
without. The flag is process-wide, so it is switched off only while the executor runs
and restored afterwards.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

try:
    _set_hugepage = np._core.multiarray._set_madvise_hugepage  # type: ignore[attr-defined, unused-ignore]  # private, not in the stubs
except AttributeError:  # an older or newer NumPy without the switch: leave the policy alone
    _set_hugepage = None


@contextmanager
def small_pages():
    """Run a block with NumPy's huge-page advice off, restoring the previous setting."""
    if _set_hugepage is None:
        yield
        return
    previous = _set_hugepage(False)
    try:
        yield
    finally:
        _set_hugepage(previous)
