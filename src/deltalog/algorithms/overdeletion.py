"""DRed's OVERDELETE (001 Algorithm 4, the non-repetitive variant; dred.py has the whole algorithm), shared
with DRed^c and FBF, which choose what to delete of each round's candidates (``Settle``):

    N_D := (E⁻ ∩ Out_s) ∪ Π_s[I : D, A]
    loop: Δ_D := N_D \\ D;  N_D := Π_r^s[I \\ D, I ∪ A : Δ_D];  D := D ∪ Δ_D

The recursive rules' candidates come from the stratum's modules (Diff, then Del^{s,i} each round, 003
Algorithm 3). Deleting marks rows with the current generation, so each round's delta is the rows deleted in
the previous round (inverse seminaive).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from deltalog.algorithms.aggregate_rules import aggregate_results, aggregate_rules_affected, difference
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.modules import modules_of
from deltalog.modules.base import Module, RulePlans
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.instances import delta_rule_plans
from deltalog.reasoning.update import Update, fact_columns, lower_changes, tuples_of
from deltalog.reasoning.workspace import OnDemand, Role


Settle = Callable[[Update, Stratum, "Candidates", int], int]
"""Deletes (through ``Update.delete``, at one new generation, which it returns) those candidates of
one round (rows of ``lost_derivation`` stored at the window given, or plans kept for it) that must go."""


class Candidates(OnDemand):
    """N_D: per predicate a scratch relation made at its first use (``OnDemand``, what iterating shows), or, for
    the predicates ``unstored`` names, each round's candidate plans kept as they are until the settle reads them
    (``at``), inside its deletion statement. A settle whose check reads no stored candidates of a predicate
    saves its insert, count and read-back there, one statement a round (a 1,000-fact LUBM-like deletion: the
    inverse pairs' and the closure's ~8 of ~70 us each, docs/benchmarks.md stop 23). A candidate met again
    in a later round is then checked again (a stored one is not: its relation holds it already); the check
    reads final facts only, so it keeps or deletes it again, and deleting a dead fact changes nothing."""

    def __init__(self, update: Update, stratum: Stratum, unstored: frozenset[str]) -> None:
        arities = {p: update.reasoning.arities[p] for p in stratum.predicates}
        super().__init__(update.workspace, Role.LOST_DERIVATION, arities)
        self.unstored = unstored
        self._plans: dict[int, dict[str, list[ir.Node]]] = {}

    def collect(self, reasoning: Reasoning, plans: Iterable[tuple[RuleInfo, ir.Node]], window: int, phase: str) -> None:
        """Each rule plan's facts as candidates at ``window``: stored (``derive_together``), or kept."""
        stored = []
        for info, plan in plans:
            if info.head.predicate in self.unstored:
                self.keep_rule(reasoning, info, plan, window)
            else:
                stored.append((info, plan))
        reasoning.derive_together(stored, window, phase=phase, relations=self)

    def keep(self, predicate: str, plan: ir.Node, window: int) -> None:
        self._plans.setdefault(window, {}).setdefault(predicate, []).append(plan)

    def keep_rule(self, reasoning: Reasoning, info: RuleInfo, plan: ir.Node, window: int) -> None:
        """``keep`` a rule's plan, credited to the rule as an evaluation (its instances: by the plan's label, in
        the metrics of the statement that deletes, as ``derive`` credits them)."""
        reasoning.stats.rule(info).evaluations += 1
        self.keep(info.head.predicate, plan, window)

    def at(self, window: int) -> dict[str, list[ir.Node]]:
        """The plans kept for ``window``, by predicate (each window is settled once)."""
        return self._plans.pop(window, {})


def overdelete(update: Update, stratum: Stratum, settle: "Settle | None" = None,
               unstored: frozenset[str] = frozenset()) -> None:
    """Collect the facts that lost a derivation (N_D), let ``settle`` delete those that must go (DRed:
    all of them; FBF: the unproved ones), and repeat from what was deleted (inverse seminaive). The candidates
    of the ``unstored`` predicates reach ``settle`` as plans (``Candidates``)."""
    settle = settle or delete_all
    reasoning = update.reasoning
    lost_derivation = Candidates(update, stratum, unstored)
    generation = reasoning.tick()
    for p in stratum.predicates:
        if (minus := update.workspace.staged(Role.DELETED, p)) is not None:
            if p in unstored:
                lost_derivation.keep(p, tuples_of(p, reasoning.arities[p], minus), generation)
            else:
                update.backend.insert(relation=lost_derivation[p], plan=tuples_of(p, reasoning.arities[p], minus),
                                      generation=generation)
    lost_derivation.collect(reasoning, lost_derivations(update, stratum), generation, "overdeletion")
    propagate_deletion(update, stratum, lost_derivation, generation, settle)


def lost_derivations(update: Update, stratum: Stratum) -> list[tuple[RuleInfo, ir.Node]]:
    """Plans of the facts of the stratum that lost a derivation through a change of a lower stratum:
    Π_s[I : D, A] of N_D (E⁻ ∩ Out_s is the caller's)."""
    v = update.views
    lost, gained = lower_changes(update, stratum, stratum.rules)
    plans = []
    for info in stratum.nonrecursive:   # Π_nr^s[I : D \ A, A \ D]   (003 Algorithm 3, line 220)
        if info.aggregates:
            if aggregate_rules_affected(info, lost, gained):
                plans.append((info, difference(aggregate_results(update, info, v.old),
                                               aggregate_results(update, info, v.new))))
            continue
        for plan in delta_rule_plans(update, info, stratum.predicates, lost, gained, v.old, v.deleted, v.added):
            plans.append((info, plan))
    for module in modules_of(stratum):   # Diff^{s,i}[I, D \ A, A \ D]   (line 224)
        plans += module.diff(update, lost, gained, v.old, v.deleted, v.added)
    return plans


def scratch(update: Update, role: Role, stratum: Stratum) -> OnDemand:
    """The stratum's scratch relations of ``role``, made when first used."""
    return OnDemand(update.workspace, role, {p: update.reasoning.arities[p] for p in stratum.predicates})


def delete_all(update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int) -> int:
    """DRed's choice: every fact that lost a derivation is (over)deleted."""
    generation = update.reasoning.tick()
    for p, relation in lost_derivation.items():
        found = View(window, window + 1, relation=relation)
        if update.count(relation, found):
            update.delete(p, tuples_of(relation, update.reasoning.arities[p], found), generation)
    return generation


@dataclass(frozen=True)
class Deletion:
    """Facts of the stratum deleted at one ``generation`` (of the predicates ``shrunk``), by ``settle`` or,
    unchecked, by the Del of an exact module (``by``), which need not see them again
    (``Module.deletes_exactly``)."""

    generation: int
    shrunk: frozenset[str]
    by: Module | None = None


def propagate_deletion(update: Update, stratum: Stratum, lost_derivation: Candidates, window: int,
                       settle: Settle) -> None:
    """Inverse seminaive: each round finds what depends on the facts the last round deleted (the
    modules' Del^{s,i}, 003 Algorithm 3 lines 226-234), at each generation it deleted facts at. A module
    whose Del is exact deletes its facts as they come (no check can keep one) at a generation of their
    own: Claros-like, 1,000 facts deleted, ~470k ``relatedPlaces`` pairs no longer stored as candidates,
    checked against the new closure, and handed back to Del for nothing (docs/benchmarks.md, stop 18).
    (Diff's facts stay candidates: deleting a linear module's exact Diff at once did not pay on DAG-R.)"""
    reasoning, modules = update.reasoning, modules_of(stratum)
    pending = [settled(update, stratum, lost_derivation, window, settle)]
    while pending := [deletion for deletion in pending if deletion.shrunk]:
        window, done = reasoning.tick(), []
        for deletion in pending:
            for module in modules:
                if module is not deletion.by:
                    plans = module.delete(update, deletion.generation, set(deletion.shrunk))
                    done += module_deletion(update, module, plans, lost_derivation, window)
        pending = done + [settled(update, stratum, lost_derivation, window, settle)]


def settled(update: Update, stratum: Stratum, lost_derivation: Candidates, window: int,
            settle: Settle) -> Deletion:
    """``settle`` the candidates collected at ``window``: what it deleted (it deletes through
    ``update.delete``, which counts)."""
    before = dict(update.overdeleted)
    generation = settle(update, stratum, lost_derivation, window)
    return Deletion(generation, shrunk_since(update, stratum.predicates, before))


def module_deletion(update: Update, module: Module, plans: RulePlans, lost_derivation: Candidates,
                    window: int) -> list[Deletion]:
    """A module's Del plans: their facts become candidates at ``window``, or, from a module that
    deletes exactly, are deleted at once at a new generation (returned)."""
    reasoning = update.reasoning
    if not module.deletes_exactly(update):
        for info, plan in plans:
            if (p := info.head.predicate) in lost_derivation.unstored:
                # Δ_D := N_D \\ D: what a stored N_D met before it does not hold again; here a later round's
                # candidates already deleted (the inverse pairs' third round: all of them) are not checked again
                arity = reasoning.arities[p]
                lost_derivation.keep_rule(reasoning, info, ir.SemiJoin(plan, tuples_of(p, arity), fact_columns(arity)),
                                          window)
            else:
                reasoning.derive(info, plan, window, phase="overdeletion", relation=lost_derivation[p])
        return []
    generation, before = reasoning.tick(), dict(update.overdeleted)
    for info, plan in plans:
        started = time.perf_counter()
        deleted = update.delete(info.head.predicate, plan, generation)
        reasoning.record_phase("overdeletion", 0, deleted, time.perf_counter() - started)
    return [Deletion(generation, shrunk_since(update, module.predicates, before), module)]


def shrunk_since(update: Update, predicates: Iterable[str], before: Mapping[str, int]) -> frozenset[str]:
    """The ``predicates`` that lost facts since ``update.overdeleted`` was ``before``."""
    return frozenset(p for p in predicates if update.overdeleted.get(p, 0) > before.get(p, 0))
