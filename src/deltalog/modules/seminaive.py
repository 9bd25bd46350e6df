"""The default module: seminaive evaluation of recursive rules (the Add plug-in of 003 section 4.1).

For a rule with recursive body atoms B_0 .. B_n, round k evaluates, for each recursive
atom i, the body B_0^old .. B_{i-1}^old, B_i^delta, B_{i+1}^full .. B_n^full
(000 equation (7)), so every rule instance is considered at most once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from deltalog.algorithms.context import Reasoning, rule_label
from deltalog.analysis.program import RuleInfo
from deltalog.plan.rules import FULL, Window, rule_plan


@dataclass
class SeminaiveModule:
    """Seminaive closure of a set of mutually recursive rules."""

    rules: tuple[RuleInfo, ...]
    predicates: frozenset[str]

    def add(self, reasoning: Reasoning, delta: Sequence[Window]) -> list[Window]:
        written: list[Window] = []
        windows = list(delta)
        while windows:
            generation = reasoning.tick()
            derived = sum(self._round(reasoning, window, generation) for window in windows)
            reasoning.round_done()
            if not derived:
                break
            written.append((generation, generation + 1))
            windows = [(generation, generation + 1)]
        return written

    def _round(self, reasoning: Reasoning, delta: Window, generation: int) -> int:
        """Apply every rule once with at least one recursive atom matched in ``delta``."""
        derived = 0
        for info in self.rules:
            for i in self.recursive_positions(info):
                plan = rule_plan(info, self.windows(info, i, delta, generation), reasoning,
                                 first=i, label=rule_label(info))
                derived += reasoning.derive(info, plan, generation)
        return derived

    def recursive_positions(self, info: RuleInfo) -> list[int]:
        return [i for i, atom in enumerate(info.positive) if atom.predicate in self.predicates]

    def windows(self, info: RuleInfo, i: int, delta: Window, generation: int) -> list[Window]:
        """Atom i reads the delta; earlier recursive atoms read old facts, later ones all facts."""
        out = []
        for j, atom in enumerate(info.positive):
            if atom.predicate not in self.predicates:
                out.append(FULL)
            elif j < i:
                out.append((0, delta[0]))
            elif j == i:
                out.append(delta)
            else:
                out.append((0, generation))
        return out
