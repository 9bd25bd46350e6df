"""The cyclic garbage collector during a command's start-up (``deltalog.cli.main``).

Importing the engine's modules, NumPy and Lark and reading the program create some 40k objects
(classes, functions, the methods dataclasses generate) that live as long as the process. With the
collector on, each of its young-generation passes over them finds nothing to free, and the first
full pass walks all of them: ~10-15 ms of a 0.2 s run (docs/benchmarks.md, Stop 14). So ``main``
pauses the collector until the command has loaded what it needs (``start_up_done``, e.g. before a
materialisation), then freezes those objects out of later collections (``gc.freeze``) and resumes
it; when the command returns they are unfrozen again, so a process that calls ``main`` many times
(the tests) keeps collecting its garbage. A caller that turned the collector off, or froze objects
of its own, is left as it was.
"""

from __future__ import annotations

import gc

_paused: list[bool] = []   # pause_collector paused it, and restore_collector has not run yet


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
