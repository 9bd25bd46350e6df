"""Process-wide settings the command line makes for its own process (never for a program that imports deltalog).

Both are measured choices (docs/design.md, "process settings"): the engine works on large NumPy arrays that
live for one pass, so how the C library hands out their memory and whether BLAS starts threads shows in
every run's time.
"""

from __future__ import annotations

import ctypes
import os
import sys

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MALLOC_ENVIRONMENT = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "GLIBC_TUNABLES")


def configure_command_process() -> None:
    """The settings of a ``deltalog`` command's process, made before NumPy is imported."""
    one_blas_thread()
    retain_freed_memory()


def one_blas_thread() -> None:
    """One OpenBLAS thread unless the caller chose otherwise. NumPy's import otherwise starts OpenBLAS's
    thread pool, whose threads spin: ~40 ms of wall and ~40-60 ms of CPU of a sub-second run, for dense
    linear algebra the engine does not do (its closures are bit operations,
    backends/local/dense_closure.py)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def retain_freed_memory() -> bool:
    """Serve large arrays from a heap that keeps freed memory, instead of one fresh ``mmap`` per array.

    By default glibc maps an allocation above a dynamic threshold (128 kB, rising to at most 32 MB as
    mapped blocks are freed) freshly from the kernel, unmaps it on free, and hands the heap's free top
    back above 128 kB: an array that lives for one join pass then costs the kernel mapping, zeroing and
    faulting its pages in, every pass. A fixed 32 MB mmap threshold and a 256 MB trim threshold let a
    pass reuse the pages the previous pass freed: system time of wl-sg-digraph 0.31-0.33 -> 0.19 s of
    a ~1.2 s run, of dag-r-linear 0.89 -> 0.62 s, at 3% (sg-digraph) and 8% (DAG-R) more peak memory;
    1 GB thresholds and a 64 MB top pad saved no more and cost 17% (docs/design.md, "process
    settings"). Skipped where the C library has no ``mallopt`` (macOS, Windows) and when the caller set
    any of glibc's malloc variables (they choose). Returns whether the settings were made.
    """
    if not sys.platform.startswith("linux") or any(name in os.environ for name in _MALLOC_ENVIRONMENT):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):   # not glibc (musl has a mallopt that does nothing: harmless)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all(mallopt(parameter, value) == 1 for parameter, value in (
        (_M_MMAP_THRESHOLD, 32 << 20), (_M_TRIM_THRESHOLD, 256 << 20)))
