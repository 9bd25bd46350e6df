"""Materialisation by MAT-MOD (003 Algorithm 2): per stratum, nonrecursive rules once, then the modules.

    for each stratum s:
        Δ := (E ∩ O^s) ∪ Π_nr^s[I]
        while Δ ≠ ∅:  I := I ∪ Δ;  Δ_i := Add^{s,i}[I, I, Δ \\ Δ_i];  Δ := ∪ Δ_i

Explicit facts are loaded before this runs, so E ∩ O^s is already stored; the first
delta of a stratum is therefore every fact of its predicates.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, Sequence

from deltalog.reasoning.context import Live, Reasoning, Stats, StratumStats, rule_label
from deltalog.analysis.program import Stratum
from deltalog.limits import Budget
from deltalog.modules import modules_of
from deltalog.modules.base import Module, Window
from deltalog.plan.rules import FULL, rule_plan

log = logging.getLogger(__name__)

ModuleFactory = Callable[[Stratum], Sequence[Module]]


Offload = Callable[[Reasoning, Stratum, Sequence[Module]], "StratumStats | None"]


def materialise(reasoning: Reasoning, modules_for: ModuleFactory = modules_of,
                progress: Callable[[StratumStats], None] | None = None, offload: Offload | None = None) -> None:
    """Compute mat(Π, E) into the backend's relations, stratum by stratum, with the modules analysis
    chose for each (``modules_for`` may override them). ``offload`` (see
    algorithms/offload.py) may take a stratum elsewhere and return its statistics, or decline with None."""
    started = time.perf_counter()
    for stratum in reasoning.program.strata:
        modules = modules_for(stratum)
        stats = offload(reasoning, stratum, modules) if offload is not None else None
        if stats is None:
            stats = materialise_stratum(reasoning, stratum, modules)
        if progress is not None:
            progress(stats)
    reasoning.stats.seconds += time.perf_counter() - started


def materialise_or_roll_back(reasoning: Reasoning, *, budget: Budget | None = None,
                             on_round: Callable[[Live], None] | None = None, **options) -> None:
    """``materialise`` within a budget (limits.py), all or nothing: when a limit, memory or Ctrl-C
    stops it, every relation goes back to the explicit facts, so a retry (a higher limit) starts clean."""
    start, relations = reasoning.tick(), set(reasoning.backend.relations())
    reasoning.budget, reasoning.on_round = budget, on_round
    try:
        materialise(reasoning, **options)
    except BaseException:
        for relation in set(reasoning.backend.relations()) - relations:
            reasoning.backend.drop(relation=relation)
        for relation in relations:
            reasoning.backend.rollback(relation=relation, generation=start)
        reasoning.stats = Stats()
        raise
    finally:
        reasoning.budget, reasoning.on_round, reasoning.live = None, None, None


def materialise_stratum(reasoning: Reasoning, stratum: Stratum, modules: Sequence[Module]) -> StratumStats:
    stats = StratumStats(stratum.index, tuple(sorted(stratum.predicates)))
    started = time.perf_counter()
    before = _sizes(reasoning, stratum)
    reasoning.live = Live(stats)
    apply_nonrecursive(reasoning, stratum)
    first: list[Window] = [(0, reasoning.tick())]
    pending = [first for _ in modules]   # Δ \\ Δ_i: module i gets only what the others wrote (line 14)
    while any(pending):
        written = [m.add(reasoning, delta) if delta else [] for m, delta in zip(modules, pending)]
        stats.rounds += sum(len(w) for w in written)
        pending = [[w for j, ws in enumerate(written) if j != i for w in ws] for i in range(len(modules))]
    stats.seconds = time.perf_counter() - started
    stats.derived = sum(_sizes(reasoning, stratum).values()) - sum(before.values())
    reasoning.live = None
    log.info("stratum %d (%s): %d rounds, %d facts, %.3f s", stats.index, ", ".join(stats.predicates),
              stats.rounds, stats.derived, stats.seconds)
    reasoning.stats.strata.append(stats)
    return stats


def apply_nonrecursive(reasoning: Reasoning, stratum: Stratum) -> int:
    """Π_nr^s[I]: every nonrecursive rule once over the complete lower strata."""
    generation = reasoning.tick()
    derived = 0
    for info in stratum.nonrecursive:
        plan = rule_plan(info, [FULL] * len(info.positive), reasoning, label=rule_label(info))
        derived += reasoning.derive(info, plan, generation)
    return derived


def _sizes(reasoning: Reasoning, stratum: Stratum) -> dict[str, int]:
    return {p: reasoning.backend.count(relation=p) for p in stratum.predicates}
