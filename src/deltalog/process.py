"""Process-wide settings the command line makes for its own process (never for a program that imports deltalog).

All are measured choices (docs/design.md, "process settings" and "the cyclic collector during a
command's start-up"): the engine works on large NumPy arrays that live for one pass, so how the C
library hands out their memory and whether BLAS starts threads shows in every run's time; and a
small run's start-up makes ~40k long-lived objects the cyclic collector would walk for nothing.

The collector: importing the engine's modules, NumPy and Lark and reading the program create some 40k
objects (classes, functions, the methods dataclasses generate) that live as long as the process. With
the collector on, each of its young-generation passes over them finds nothing to free, and the first
full pass walks all of them: ~10-15 ms of a 0.2 s run (docs/benchmarks.md, Stop 14). So ``main``
pauses the collector until the command has loaded what it needs (``start_up_done``, e.g. before a
materialisation), then freezes those objects out of later collections (``gc.freeze``) and resumes
it; when the command returns they are unfrozen again (``restore_collector``), so a process that calls
``main`` many times (the tests) keeps collecting its garbage. A caller that turned the collector off,
or froze objects of its own, is left as it was.
"""

from __future__ import annotations

import atexit
import ctypes
import gc
import os
import sys
import threading
from typing import NoReturn

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MALLOC_ENVIRONMENT = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "GLIBC_TUNABLES")


_paused: list[bool] = []   # pause_collector paused it, and restore_collector has not run yet


def configure_command_process() -> None:
    """The settings of a ``deltalog`` command's process, made before NumPy is imported; the collector
    stays paused until ``start_up_done``."""
    one_blas_thread()
    retain_freed_memory()
    pause_collector()


def pause_collector() -> None:
    if gc.isenabled() and not gc.get_freeze_count():
        gc.disable()
        _paused.append(True)


def start_up_done() -> None:
    """The command's modules and program are loaded: freeze them and resume collecting."""
    if _paused and not gc.isenabled():
        gc.freeze()
        gc.enable()


def restore_collector() -> None:
    """The command has returned: unfreeze (its objects may be garbage now) and collect as before."""
    if _paused:
        _paused.clear()
        gc.unfreeze()
        gc.enable()


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


def exit_command(code: int | None) -> NoReturn:
    """End a ``deltalog`` command's process with exit status ``code``, without the interpreter's
    finalisation: its atexit functions run (``atexit._run_exitfuncs``, which also shuts logging
    down) and stdout and stderr are flushed, but the modules are not torn down nor every object
    freed one by one (the kernel takes the memory back at once). That teardown is pure cost at the
    end of a command: 22 ms of reach-tiny's 0.238 s CPU, ~30 ms of sg-forest's ~0.95 s (docs/benchmarks.md,
    Stop 16). The usual ``sys.exit`` is taken whenever the shortcut could lose something: another
    Python thread alive (it would be killed instead of joined), Spark loaded (its gateway's
    shutdown), a status that is no int, or a flush that fails (a closed pipe: Python reports it)."""
    status = 0 if code is None else code
    if not isinstance(status, int) or threading.active_count() > 1 or "pyspark" in sys.modules:
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(status)

