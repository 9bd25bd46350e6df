"""Limits of a run (facts held, seconds spent) and the recursion headroom deep programs need.

A runaway program such as ``n(Y) :- n(X), Y = X + 1.`` never reaches a fixpoint; ``Limits``
stops it with a clear message instead. The checks run after every rule evaluation, so a single
evaluation is never interrupted (a huge join is stopped by the memory check instead).
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from deltalog.errors import LimitExceededError, NestingError

RECURSION_HEADROOM = 10_000
"""Python frames allowed while parsing, planning and evaluating: enough for expressions nested
3,000 deep and bodies of 4,000 atoms (the parser refuses more), few enough to stay inside the C stack."""


@dataclass(frozen=True)
class Limits:
    """``max_facts``: facts the materialisation may hold; ``timeout``: seconds a run may take (None: no limit)."""

    max_facts: int | None = None
    timeout: float | None = None

    def __post_init__(self) -> None:
        from deltalog.errors import UsageError
        if self.max_facts is not None and self.max_facts < 0:
            raise UsageError(f"max_facts must be at least 0, not {self.max_facts}")
        if self.timeout is not None and not self.timeout > 0:
            raise UsageError(f"timeout must be a positive number of seconds, not {self.timeout}")

    def budget(self, facts_now: Callable[[], int]) -> Budget | None:
        """What a run may spend; ``facts_now`` (the facts held, a count over every relation) is asked
        only when there is a limit, so an unlimited update costs nothing per relation."""
        if self.max_facts is None and self.timeout is None:
            return None
        return Budget(self, facts_now())


class Budget:
    """What is left of the limits during one run: facts and time."""

    def __init__(self, limits: Limits, facts_now: int) -> None:
        self.limits, self.facts = limits, facts_now
        self.deadline = None if limits.timeout is None else time.monotonic() + limits.timeout

    def charge(self, derived: int, where: str) -> None:
        """Count ``derived`` new facts; raise LimitExceededError once a limit is passed."""
        self.facts += derived
        if self.limits.max_facts is not None and self.facts > self.limits.max_facts:
            raise LimitExceededError(
                f"the materialisation passed {self.limits.max_facts:,} facts (max_facts) while evaluating {where}",
                notes=("a rule that makes new values (Y = X + 1) in recursion may never stop; "
                       "raise the limit if the data is just large",))
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise LimitExceededError(f"the run took more than {self.limits.timeout:g} s (timeout); "
                                     f"stopped while evaluating {where}")


@contextmanager
def recursion_headroom(what: str = "the program") -> Iterator[None]:
    """Room for deep (but bounded) recursion; a RecursionError left over becomes a NestingError."""
    old = sys.getrecursionlimit()
    if old < RECURSION_HEADROOM:
        sys.setrecursionlimit(RECURSION_HEADROOM)
    try:
        yield
    except RecursionError:
        raise NestingError(f"{what} is nested too deeply to evaluate (expressions or rule bodies too large)",
                           notes=("split long expressions and bodies into several rules",)) from None
    finally:
        sys.setrecursionlimit(old)
