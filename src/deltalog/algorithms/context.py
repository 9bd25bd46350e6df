"""What every algorithm works with: the backend, the generation clock and per-rule statistics."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from deltalog.analysis.program import AnalysedProgram, RuleInfo
from deltalog.backends.base import Backend
from deltalog.plan import ir


@dataclass
class RuleStats:
    """The papers' comparison metric per rule: instances considered, facts derived, and time."""

    label: str
    instances: int = 0
    derived: int = 0
    seconds: float = 0.0
    evaluations: int = 0


@dataclass
class StratumStats:
    index: int
    predicates: tuple[str, ...]
    rounds: int = 0
    seconds: float = 0.0
    derived: int = 0


@dataclass
class Stats:
    rules: dict[int, RuleStats] = field(default_factory=dict)
    strata: list[StratumStats] = field(default_factory=list)
    seconds: float = 0.0

    def rule(self, info: RuleInfo) -> RuleStats:
        found = self.rules.get(info.index)
        if found is None:
            found = self.rules[info.index] = RuleStats(info.label)
        return found


@dataclass
class Reasoning:
    """The state shared by the algorithms: program, backend, generation clock, statistics."""

    program: AnalysedProgram
    backend: Backend
    generation: int = 1
    stats: Stats = field(default_factory=Stats)
    collect_metrics: bool = True

    def tick(self) -> int:
        """Start a new generation and return it."""
        self.generation += 1
        return self.generation

    def rows(self, relation: str, since: int, until: int | None, visible: int | None = None,
             deleted: tuple[int, int | None] | None = None) -> int:
        """Planner statistics: rows of a relation in a view."""
        return self.backend.count(relation=relation, since=since, until=until, visible=visible, deleted=deleted)

    def distinct(self, relation: str, positions: tuple[int, ...]) -> int | None:
        """Planner statistics: distinct values of some columns of a relation (an estimate)."""
        return self.backend.distinct(relation=relation, positions=positions)

    def derive(self, info: RuleInfo, plan: ir.Node, generation: int) -> int:
        """Evaluate a rule plan into its head relation at ``generation``; record the statistics."""
        stats = self.stats.rule(info)
        metrics: dict[str, int] | None = {} if self.collect_metrics else None
        started = time.perf_counter()
        added = self.backend.insert(relation=info.head.predicate, plan=plan, generation=generation,
                                    metrics=metrics)
        stats.seconds += time.perf_counter() - started
        stats.instances += (metrics or {}).get(rule_label(info), 0)
        stats.derived += added
        stats.evaluations += 1
        return added


def rule_label(info: RuleInfo) -> str:
    """The metrics label a rule's head projection carries (rows there = rule instances)."""
    return f"rule:{info.index}"
