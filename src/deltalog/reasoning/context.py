"""What every algorithm works with: the backend, the generation clock and per-rule statistics."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from deltalog.analysis.program import AnalysedProgram, RuleInfo
from deltalog.backends.base import Backend
from deltalog.errors import OutOfMemoryError
from deltalog.limits import Budget
from deltalog.plan import ir
from deltalog.plan.cache import PlanCache
from deltalog.plan.query import Planner, labelled_node


@dataclass
class RuleStats:
    """The papers' comparison metric per rule: instances considered, facts derived, and time."""

    label: str
    instances: int = 0
    derived: int = 0
    seconds: float = 0.0
    evaluations: int = 0
    nodes: dict[int, int] = field(default_factory=dict)   # hypertree node -> rows its in-node joins made

    def count_nodes(self, metrics: dict[str, int]) -> None:
        """Add the rows of the hypertree nodes' in-node joins (plan/hypertree.py labels them)."""
        for label, rows in metrics.items():
            if (node := labelled_node(label)) is not None:
                self.nodes[node] = self.nodes.get(node, 0) + rows


@dataclass
class StratumStats:
    index: int
    predicates: tuple[str, ...]
    rounds: int = 0
    seconds: float = 0.0
    derived: int = 0


@dataclass
class Live:
    """The stratum being evaluated, as a progress display sees it after every round."""

    stratum: StratumStats
    rounds: int = 0
    derived: int = 0
    started: float = field(default_factory=time.perf_counter)


@dataclass
class PhaseStats:
    """Per maintenance phase (overdeletion, rederivation, insertion, ...): the papers' metric and time."""

    instances: int = 0
    facts: int = 0
    seconds: float = 0.0
    evaluations: int = 0


@dataclass
class Stats:
    rules: dict[str, RuleStats] = field(default_factory=dict)   # by rule id (analysis/identity.py)
    strata: list[StratumStats] = field(default_factory=list)
    phases: dict[str, PhaseStats] = field(default_factory=dict)
    seconds: float = 0.0

    def rule(self, info: RuleInfo) -> RuleStats:
        found = self.rules.get(info.id)
        if found is None:
            found = self.rules[info.id] = RuleStats(info.label)
        return found


@dataclass
class Reasoning:
    """The state shared by the algorithms: program, backend, generation clock, statistics."""

    program: AnalysedProgram
    backend: Backend
    generation: int = 1
    stats: Stats = field(default_factory=Stats)
    collect_metrics: bool = True
    arities: dict[str, int] = field(default_factory=dict)   # every stored predicate (program and data)
    budget: Budget | None = None   # limits.py: max facts and timeout of the current run
    on_round: Callable[[Live], None] | None = None   # progress, after every round of a recursive stratum
    live: Live | None = None
    planner: Planner | None = None   # plans every rule body (plan/query.py); None: plan.rules.DEFAULT_PLANNER
    planners: dict[str, Planner] = field(default_factory=dict)   # per rule id (plan/combined.py, --hd)
    # rule plans per variant, reused across rounds and updates (plan/cache.py; None: plan every time);
    # keyed by rule object, so a changed program (a new reasoning) starts afresh
    plan_cache: PlanCache | None = field(default_factory=PlanCache, repr=False, compare=False)
    # rows per relation when an update last found compacting it not worth it (maintain.py)
    compaction_checked: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for predicate, arity in self.program.arities.items():
            self.arities.setdefault(predicate, arity)

    def tick(self) -> int:
        """Start a new generation and return it."""
        self.generation += 1
        return self.generation

    def round_done(self) -> None:
        """A module finished a round: tell the progress display."""
        if self.live is not None:
            self.live.rounds += 1
            if self.on_round is not None:
                self.on_round(self.live)

    def rows(self, relation: str, since: int, until: int | None, visible: int | None = None,
             deleted: tuple[int, int | None] | None = None) -> int:
        """Planner statistics: rows of a relation in a view."""
        return self.backend.count(relation=relation, since=since, until=until, visible=visible, deleted=deleted)

    def distinct(self, relation: str, positions: tuple[int, ...]) -> int | None:
        """Planner statistics: distinct values of some columns of a relation (an estimate)."""
        return self.backend.distinct(relation=relation, positions=positions)

    def derive(self, info: RuleInfo, plan: ir.Node, generation: int, *, phase: str | None = None,
               relation: str | None = None, delete: bool = False, revive_since: int | None = None) -> int:
        """Evaluate a rule plan into ``relation`` (default: its head) at ``generation`` (inserting, or
        with ``delete`` marking rows deleted); record the statistics per rule and per phase."""
        stats = self.stats.rule(info)
        metrics: dict[str, int] | None = {} if self.collect_metrics else None
        started = time.perf_counter()
        target = relation or info.head.predicate
        try:
            if delete:
                changed = self.backend.delete(relation=target, plan=plan, generation=generation, metrics=metrics)
            else:
                changed = self.backend.insert(relation=target, plan=plan, generation=generation, metrics=metrics,
                                              revive_since=revive_since)
        except MemoryError:   # numpy's _ArrayMemoryError too: name the rule whose join did not fit
            raise OutOfMemoryError(f"out of memory evaluating {info.label}: {info.rule}", info.rule.span,
                                   notes=("the join may be far larger than its result; reorder the body or "
                                          "add a more selective atom first",)) from None
        self._account(changed if not delete else 0, info)
        elapsed = time.perf_counter() - started
        instances = (metrics or {}).get(rule_label(info), 0)
        stats.seconds, stats.instances, stats.evaluations = stats.seconds + elapsed, stats.instances + instances, \
            stats.evaluations + 1
        stats.derived += 0 if delete else changed
        if metrics:
            stats.count_nodes(metrics)
        self.record_phase(phase, instances, changed, elapsed)
        return changed

    def derive_together(self, plans: Iterable[tuple[RuleInfo, ir.Node]], generation: int, *, phase: str,
                        relations: Mapping[str, str]) -> None:
        """``derive`` of several rules' plans into ``relations[head]``, those of one head predicate in one
        statement (``Distinct(Union(plans))``, stored at once): a small update's plans produce a few rows
        each, and a statement costs its backend call and its store whatever its rows (a 1,000-fact LUBM-like
        deletion collects its candidates with ~35 rule plans into ~12 relations). The instances are
        credited to each rule by its plan's label, as ``derive`` does; facts and time to the phase."""
        by_head: dict[str, list[tuple[RuleInfo, ir.Node]]] = {}
        for info, plan in plans:
            by_head.setdefault(info.head.predicate, []).append((info, plan))
        for head, group in by_head.items():
            if len(group) == 1:
                self.derive(*group[0], generation, phase=phase, relation=relations[head])
                continue
            metrics: dict[str, int] | None = {} if self.collect_metrics else None
            started = time.perf_counter()
            union = ir.Distinct(ir.Union_(tuple(plan for _, plan in group)))
            changed = self.backend.insert(relation=relations[head], plan=union, generation=generation, metrics=metrics)
            self._account(changed, group[0][0])
            for info, _ in group:
                self.stats.rule(info).evaluations += 1
            self.record_metrics(metrics or {}, phase, changed, time.perf_counter() - started)

    def _account(self, derived: int, info: RuleInfo) -> None:
        if self.live is not None:
            self.live.derived += derived
        if self.budget is not None:
            self.budget.charge(derived, f"{info.label}: {info.rule}")

    def record_metrics(self, metrics: dict[str, int], phase: str | None, facts: int, seconds: float) -> None:
        """Credit the rule instances a plan's labelled projections counted (``rule:<id>`` rows) to each
        rule and to the phase: for plans that mix several rules (Counting's counter updates)."""
        total = 0
        for label, rows in metrics.items():
            if label.startswith(RULE_LABEL_PREFIX):
                self.stats.rule(self.program.rules_by_id[label[len(RULE_LABEL_PREFIX):]]).instances += rows
                total += rows
        self.record_phase(phase, total, facts, seconds)

    def record_phase(self, phase: str | None, instances: int, facts: int, seconds: float) -> None:
        if phase is None:
            return
        entry = self.stats.phases.get(phase) or self.stats.phases.setdefault(phase, PhaseStats())
        entry.instances += instances
        entry.facts += facts
        entry.seconds += seconds
        entry.evaluations += 1


RULE_LABEL_PREFIX = "rule:"


def rule_label(info: RuleInfo) -> str:
    """The metrics label a rule's head projection carries (rows there = rule instances), by rule id."""
    return RULE_LABEL_PREFIX + info.id
