"""DRed, the non-repetitive variant of 001 Algorithm 4, applied in place, stratum by stratum.

Per stratum s (with D and A the facts deleted and added so far, disjoint as in the
variant at the end of 001 section 6.2):

    OVERDELETE   N_D := (E⁻ ∩ Out_s) ∪ Π_s[I : D, A]
                 loop: Δ_D := N_D \\ D;  N_D := Π_r^s[I \\ D, I ∪ A : Δ_D];  D := D ∪ Δ_D
    REDERIVE     R := {F ∈ D ∩ Out_s | F ∈ E \\ E⁻, or F has a one-step derivation in I \\ D, I ∪ A}
    INSERT       N_A := R ∪ (E⁺ ∩ Out_s) ∪ Π_s[(I \\ D) ∪ A : A, D]
                 loop: Δ_A := N_A \\ ((I \\ D) ∪ A);  A := A ∪ Δ_A;  N_A := Π_r^s[(I \\ D) ∪ A : Δ_A]

The recursive rules are evaluated by the stratum's modules (003 Algorithm 3: Diff, Del, Red
and Add plug-ins, modules/), which return plans; this file does the bookkeeping: where each
plan's facts go and when a loop stops. Deleting marks rows with the current generation, so
each overdeletion round's delta is the rows deleted in the previous round (inverse
seminaive); insertion reads each round's new facts in a scratch relation when facts may be
revived (see ``insert``), else as the rows a round stored. Nonrecursive rules with an
aggregate are maintained by difference: old results not produced any more are overdeleted,
new ones inserted. REDERIVE needs one derivation per fact,
so its plans are ``ir.Witnessed`` (the backend may stop at each fact's first instance).

OVERDELETE deletes only the candidates that are not explicit and that no nonrecursive rule
derives in the new state (the lower strata are final): those are in the new materialisation
for sure, so they and what depends on them through them stay (algorithms/lowerbound.py);
REDERIVE then has only the recursive rules to try, and a stratum without any skips it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Mapping

from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.errors import DeltalogError
from deltalog.modules import modules_of
from deltalog.plan import ir
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.instances import delta_rule_plans, one_step_rederivation
from deltalog.reasoning.update import Update, fact_columns, lower_changes, predicates_read, tuples_of
from deltalog.reasoning.workspace import OnDemand, Role


class MaintenanceUnsupported(DeltalogError):
    """This update needs something the chosen algorithm cannot do incrementally (callers rematerialise)."""


def aggregates_in_recursion(stratum: Stratum) -> bool:
    return any(info.aggregates for info in stratum.recursive)


def refuse_recursive_aggregates(stratum: Stratum) -> None:
    """The incremental algorithms maintain aggregates only outside recursion."""
    if aggregates_in_recursion(stratum):
        raise MaintenanceUnsupported("recursive rules with aggregates are maintained by rematerialisation")


def dred_stratum(update: Update, stratum: Stratum) -> None:
    """Maintain one stratum with DRed: overdelete, rederive one step, insert. Overdeletion keeps the
    candidates that are still explicit or derived by a rule reading only lower strata
    (algorithms/lowerbound.py), so rederivation has only the recursive rules left to try."""
    from deltalog.algorithms import lowerbound
    refuse_recursive_aggregates(stratum)
    if may_lose_derivations(update, stratum):   # an insertion-only change skips straight to INSERT
        overdelete(update, stratum, settle=lowerbound.delete_unwitnessed)
        if stratum.recursive:
            rederive(update, stratum, unheld_by_modules)
    insert(update, stratum)


def may_lose_derivations(update: Update, stratum: Stratum) -> bool:
    """Can a fact of the stratum lose a derivation: an explicit deletion, a lower predicate that lost
    facts, or one that gained facts under a negation or into an aggregate? If not, N_D is empty and
    there is nothing to overdelete or rederive."""
    if update.workspace.any_of(Role.DELETED, stratum.predicates):
        return True
    lost, gained = lower_changes(update, stratum, stratum.rules)
    return bool(lost) or any(a.predicate in gained for info in stratum.rules for a in info.negative) or \
        any(info.aggregates and aggregate_rules_affected(info, lost, gained) for info in stratum.rules)


# ---- nonrecursive rules with an aggregate --------------------------------------------------------

def aggregate_results(update: Update, info: RuleInfo, view: View) -> ir.Node:
    """All head tuples of a nonrecursive rule with every atom (aggregates too) read in one view."""
    return rule_plan(info, [view] * len(info.positive), update.reasoning, label=rule_label(info),
                     negative_views=[view] * len(info.negative), inner_view=view)


def aggregate_rules_affected(info: RuleInfo, lost: set[str], gained: set[str]) -> bool:
    return bool(predicates_read((info,)) & (lost | gained))


def difference(left: ir.Node, right: ir.Node) -> ir.Node:
    return ir.Difference(left, right)


# ---- OVERDELETE ------------------------------------------------------------------------------

Settle = Callable[[Update, Stratum, Mapping[str, str], int], int]
"""Deletes (through ``Update.delete``, at one new generation, which it returns) those candidates of
one round (rows of ``lost_derivation`` stored at the window given) that must go."""


def overdelete(update: Update, stratum: Stratum, settle: "Settle | None" = None) -> None:
    """Collect the facts that lost a derivation (N_D), let ``settle`` delete those that must go (DRed:
    all of them; FBF: the unproved ones), and repeat from what was deleted (inverse seminaive)."""
    settle = settle or delete_all
    v, reasoning = update.views, update.reasoning
    lost_derivation = scratch(update, Role.LOST_DERIVATION, stratum)
    generation = reasoning.tick()
    for p in stratum.predicates:
        if minus := update.workspace.get(Role.DELETED, p):
            update.backend.insert(relation=lost_derivation[p], plan=tuples_of(minus, reasoning.arities[p]),
                                  generation=generation)
    lost, gained = lower_changes(update, stratum, stratum.rules)
    for info in stratum.nonrecursive:   # Π_nr^s[I : D \ A, A \ D]   (003 Algorithm 3, line 220)
        if info.aggregates:
            if aggregate_rules_affected(info, lost, gained):
                plan = difference(aggregate_results(update, info, v.old), aggregate_results(update, info, v.new))
                reasoning.derive(info, plan, generation, phase="overdeletion",
                                 relation=lost_derivation[info.head.predicate])
            continue
        for plan in delta_rule_plans(update, info, stratum.predicates, lost, gained, v.old, v.deleted, v.added):
            reasoning.derive(info, plan, generation, phase="overdeletion",
                             relation=lost_derivation[info.head.predicate])
    for module in modules_of(stratum):   # Diff^{s,i}[I, D \ A, A \ D]   (line 224)
        for info, plan in module.diff(update, lost, gained, v.old, v.deleted, v.added):
            reasoning.derive(info, plan, generation, phase="overdeletion",
                             relation=lost_derivation[info.head.predicate])
    propagate_deletion(update, stratum, lost_derivation, generation, settle)


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


def propagate_deletion(update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int,
                       settle: Settle) -> None:
    """Inverse seminaive: each round finds what depends on the facts the last round deleted (the
    modules' Del^{s,i}, 003 Algorithm 3 lines 226-234)."""
    reasoning, modules = update.reasoning, modules_of(stratum)
    while True:
        before = dict(update.overdeleted)
        previous = settle(update, stratum, lost_derivation, window)
        # the predicates that lost rows at ``previous``: settle deletes through update.delete, which counts
        shrunk = {p for p in stratum.predicates if update.overdeleted.get(p, 0) > before.get(p, 0)}
        if not shrunk:
            return
        window = reasoning.tick()
        for module in modules:
            for info, plan in module.delete(update, previous, shrunk):
                reasoning.derive(info, plan, window, phase="overdeletion",
                                 relation=lost_derivation[info.head.predicate])


# ---- REDERIVE --------------------------------------------------------------------------------

Rederivations = Callable[[Update, Stratum, str], Iterator[tuple["RuleInfo | None", ir.Node]]]
"""Plans of the deleted facts of one predicate that are derived again (rule None: still explicit)."""


def rederive(update: Update, stratum: Stratum, rederivations: "Rederivations | None" = None) -> None:
    """One-step rederivation: bind each rule's head to the deleted facts and look for a derivation
    (``one_step``: the explicit facts, the nonrecursive rules and the modules' Red^{s,i}, 003 Algorithm
    3 line 242; DRed, whose overdeletion already checked the first two and the modules' ``holds``, asks
    only ``unheld_by_modules``)."""
    rederivations = rederivations or one_step
    reasoning = update.reasoning
    generation = reasoning.tick()
    for p in sorted(stratum.predicates):
        if not update.overdeleted.get(p):   # D ∩ p empty (every deletion went through update.delete)
            continue
        target = update.workspace.relation(Role.REDERIVED, p, reasoning.arities[p])
        for info, plan in rederivations(update, stratum, p):
            if info is None:
                update.backend.insert(relation=target, plan=plan, generation=generation)
            else:
                reasoning.derive(info, plan, generation, phase="rederivation", relation=target)


def one_step(update: Update, stratum: Stratum, p: str) -> Iterator[tuple["RuleInfo | None", ir.Node]]:
    """The deleted facts of ``p`` still explicit, or derived in one step from the surviving facts."""
    arity = update.reasoning.arities[p]
    if explicit := update.explicit_store(p):
        yield None, ir.SemiJoin(tuples_of(p, arity, update.views.deleted), tuples_of(explicit, arity),
                                fact_columns(arity))
    for info in stratum.nonrecursive:
        if info.head.predicate == p and not info.aggregates:
            yield info, one_step_rederivation(update, info)
    yield from by_modules(update, stratum, p)


def by_modules(update: Update, stratum: Stratum, p: str) -> Iterator[tuple["RuleInfo | None", ir.Node]]:
    """The deleted facts of ``p`` the stratum's recursive rules derive in one step (the modules' Red)."""
    for module in modules_of(stratum):
        yield from module.rederive(update, p)


def unheld_by_modules(update: Update, stratum: Stratum, p: str) -> Iterator[tuple["RuleInfo | None", ir.Node]]:
    """``by_modules`` after algorithms/lowerbound.py's check, which asked each module's ``holds`` already."""
    for module in modules_of(stratum):
        yield from module.rederive_unheld(update, p)


# ---- INSERT ----------------------------------------------------------------------------------

def insert(update: Update, stratum: Stratum) -> None:
    """INSERT. Δ_A scratch relations are needed only to tell a round's facts from revived ones (a fact
    overdeleted and derived again keeps its old row and birth). Without them, when the update deleted
    nothing of the stratum (nothing can be revived, e.g. any insertion-only update) or the stratum has
    no recursive rules (one round; revivals need no second), facts go straight into the relations and
    a round's delta is the rows the relation got at its generation, as in materialisation: no scratch
    relations to fill, count and commit (~0.1 ms a stratum; DAG-R re-add: the copies of ~10^5 facts)."""
    v, reasoning = update.views, update.reasoning
    revives = any(update.removed(p) for p in stratum.predicates)
    once = not stratum.recursive and not stratum.modules
    deltas = scratch(update, Role.INSERTION_DELTA, stratum) if revives and not once else None
    sink = Sink(update, reasoning.tick(), deltas, v.g0 if revives else None)
    for p in stratum.predicates:
        for role in (Role.REDERIVED, Role.ADDED):
            if source := update.workspace.get(role, p):
                sink.collect(p, tuples_of(source, reasoning.arities[p]))
    lost, gained = lower_changes(update, stratum, stratum.rules)
    for info in stratum.nonrecursive:   # Π_nr^s[(I \ D) ∪ A : A \ D, D \ A]   (003 Algorithm 3, line 237)
        if info.aggregates:
            # everything it derives now that is missing: new results, and old ones overdeleted via other rules
            if aggregate_rules_affected(info, lost, gained) or update.removed(info.head.predicate):
                sink.collect(info.head.predicate, aggregate_results(update, info, v.new), info)
            continue
        for plan in delta_rule_plans(update, info, stratum.predicates, gained, lost, v.new, v.added, v.deleted):
            sink.collect(info.head.predicate, plan, info)
    if once:
        return
    for module in modules_of(stratum):   # Diff^{s,i}[(I \ D) ∪ A, A \ D, D \ A]   (line 243)
        for info, plan in module.diff(update, gained, lost, v.new, v.added, v.deleted):
            sink.collect(info.head.predicate, plan, info)
    propagate_insertion(update, stratum, sink)


@dataclass(frozen=True)
class Sink:
    """Where INSERT's plans go at ``generation``: the facts not in the new materialisation yet into the
    round's Δ_A (``deltas``), or with ``deltas`` None into the relations themselves (whose insert keeps
    only the facts not live yet, reviving those deleted since ``revive_since`` if given)."""

    update: Update
    generation: int
    deltas: Mapping[str, str] | None
    revive_since: int | None

    def collect(self, predicate: str, plan: ir.Node, info: RuleInfo | None = None) -> None:
        update, arity, target = self.update, self.update.reasoning.arities[predicate], predicate
        if self.deltas is not None:
            target, plan = self.deltas[predicate], ir.AntiJoin(plan, tuples_of(predicate, arity), fact_columns(arity))
        revive = None if self.deltas is not None else self.revive_since
        if info is None:
            update.backend.insert(relation=target, plan=plan, generation=self.generation, revive_since=revive)
        else:
            update.reasoning.derive(info, plan, self.generation, phase="insertion", relation=target,
                                    revive_since=revive)

    def next_round(self) -> "Sink":
        return Sink(self.update, self.update.reasoning.tick(), self.deltas, self.revive_since)


def propagate_insertion(update: Update, stratum: Stratum, sink: Sink) -> None:
    """Seminaive insertion over the new materialisation, starting from the collected delta (the modules'
    Add^{s,i}, 003 Algorithm 3 lines 246-254): each round's delta is what the last one stored, in the
    Δ_A relations (then committed) or in the relations themselves (``sink.deltas`` None)."""
    modules = modules_of(stratum)
    deltas = sink.deltas if sink.deltas is not None else {p: p for p in stratum.predicates}
    while True:
        window = View(since=sink.generation, until=sink.generation + 1)
        grown = {p for p, delta in deltas.items() if update.count(delta, window)}
        if not grown:
            return
        if sink.deltas is not None:
            commit(update, {p: deltas[p] for p in grown}, window)
        last, sink = sink.generation, sink.next_round()
        for module in modules:
            for info, plan in module.insert(update, deltas, last, grown):
                sink.collect(info.head.predicate, plan, info)


def commit(update: Update, deltas: Mapping[str, str], window: View) -> None:
    """Store one round's Δ_A in the materialisation, reviving facts deleted earlier in this update."""
    generation = update.reasoning.tick()
    for p, delta in deltas.items():
        arity = update.reasoning.arities[p]
        update.backend.insert(relation=p, plan=tuples_of(delta, arity, window), generation=generation,
                              revive_since=update.views.g0)

