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
from deltalog.reasoning.instances import delta_rule_plans
from deltalog.reasoning.update import Update, lower_changes, tuples_of
from deltalog.reasoning.workspace import OnDemand, Role


Settle = Callable[[Update, Stratum, Mapping[str, str], int], int]
"""Deletes (through ``Update.delete``, at one new generation, which it returns) those candidates of
one round (rows of ``lost_derivation`` stored at the window given) that must go."""


def overdelete(update: Update, stratum: Stratum, settle: "Settle | None" = None) -> None:
    """Collect the facts that lost a derivation (N_D), let ``settle`` delete those that must go (DRed:
    all of them; FBF: the unproved ones), and repeat from what was deleted (inverse seminaive)."""
    settle = settle or delete_all
    reasoning = update.reasoning
    lost_derivation = scratch(update, Role.LOST_DERIVATION, stratum)
    generation = reasoning.tick()
    for p in stratum.predicates:
        if minus := update.workspace.get(Role.DELETED, p):
            update.backend.insert(relation=lost_derivation[p], plan=tuples_of(minus, reasoning.arities[p]),
                                  generation=generation)
    reasoning.derive_together(lost_derivations(update, stratum), generation, phase="overdeletion",
                              relations=lost_derivation)
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


def propagate_deletion(update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int,
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


def settled(update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int,
            settle: Settle) -> Deletion:
    """``settle`` the candidates collected at ``window``: what it deleted (it deletes through
    ``update.delete``, which counts)."""
    before = dict(update.overdeleted)
    generation = settle(update, stratum, lost_derivation, window)
    return Deletion(generation, shrunk_since(update, stratum.predicates, before))


def module_deletion(update: Update, module: Module, plans: RulePlans, lost_derivation: Mapping[str, str],
                    window: int) -> list[Deletion]:
    """A module's Del plans: their facts become candidates at ``window``, or, from a module that
    deletes exactly, are deleted at once at a new generation (returned)."""
    reasoning = update.reasoning
    if not module.deletes_exactly(update):
        for info, plan in plans:
            reasoning.derive(info, plan, window, phase="overdeletion", relation=lost_derivation[info.head.predicate])
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
