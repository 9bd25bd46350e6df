"""Allocation policy for the executor's many short-lived arrays: no transparent huge pages.

NumPy asks the kernel for transparent huge pages on large arrays. On the 2-core VMs we
measured (docs/design.md), faulting in huge pages costs more than the TLB misses it saves
for arrays that live one batch: DAG-R linear closure took 15.6 s with them and 10.9 s
without. The flag is process-wide, so it is switched off only while the executor runs
and restored afterwards.
"""

from __future__ import annotations

import numpy as np

try:
    _set_hugepage = np._core.multiarray._set_madvise_hugepage  # type: ignore[attr-defined, unused-ignore]  # private, not in the stubs
except AttributeError:  # an older or newer NumPy without the switch: leave the policy alone
    _set_hugepage = None


class small_pages:
    """Run a block with NumPy's huge-page advice off, restoring the previous setting. A class, not a
    ``@contextmanager`` generator: every statement of the executor enters it, and the generator's
    helper, ``__enter__``, ``next`` and ``__exit__`` frames were ~22 profile events of a small
    statement's few hundred (a 1,000-fact LUBM-like deletion runs ~140 statements)."""

    def __enter__(self) -> None:
        self.previous = _set_hugepage(False) if _set_hugepage is not None else None

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            _set_hugepage(self.previous)
