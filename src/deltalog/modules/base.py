"""The module plug-in contract of 003 (MAT-MOD): a module closes the facts under its recursive rules."""

from __future__ import annotations

from typing import Protocol, Sequence

from deltalog.algorithms.context import Reasoning
from deltalog.analysis.program import RuleInfo

Window = tuple[int, int | None]


class Module(Protocol):
    """A set of recursive rules of one stratum with a custom way to apply them (003 section 4)."""

    rules: tuple[RuleInfo, ...]

    def add(self, reasoning: Reasoning, delta: Sequence[Window]) -> list[Window]:
        """Add^{s,i}: derive every consequence of the rules that depends on the facts in ``delta``
        (generation windows), inserting them at fresh generations; return the windows it wrote."""
