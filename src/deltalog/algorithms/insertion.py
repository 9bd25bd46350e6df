"""DRed's INSERT (001 Algorithm 4; dred.py has the whole algorithm), shared with DRed^c and FBF:

    N_A := R ∪ (E⁺ ∩ Out_s) ∪ Π_s[(I \\ D) ∪ A : A, D]
    loop: Δ_A := N_A \\ ((I \\ D) ∪ A);  A := A ∪ Δ_A;  N_A := Π_r^s[(I \\ D) ∪ A : Δ_A]

The recursive rules' new facts come from the stratum's modules (Diff, then Add^{s,i} each round, 003
Algorithm 3). Each round's new facts are read in a scratch relation when facts may be revived (see
``insert``), else as the rows a round stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from deltalog.algorithms.aggregate_rules import aggregate_results, aggregate_rules_affected
from deltalog.algorithms.overdeletion import scratch
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.modules import modules_of
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.instances import delta_rule_plans
from deltalog.reasoning.update import Update, fact_columns, lower_changes, tuples_of
from deltalog.reasoning.workspace import Role


def insert(update: Update, stratum: Stratum) -> None:
    """INSERT. Δ_A scratch relations are needed only to tell a round's facts from revived ones (a fact
    overdeleted and derived again keeps its old row and birth). Without them, when the update deleted
    nothing of the stratum (nothing can be revived, e.g. any insertion-only update) or the stratum has
    no recursive rules (one round; revivals need no second), facts go straight into the relations and
    a round's delta is the rows the relation got at its generation, as in materialisation: no scratch
    relations to fill, count and commit (~0.1 ms a stratum; DAG-R re-add: the copies of ~10^5 facts).
    An empty R (REDERIVE found none of the overdeleted facts again) is not collected: an anti-join of
    nothing, and a Δ_A relation made for it, per predicate (a 1,000-fact LUBM-like deletion: ~7)."""
    v, reasoning = update.views, update.reasoning
    revives = any(update.removed(p) for p in stratum.predicates)
    once = not stratum.recursive and not stratum.modules
    deltas = scratch(update, Role.INSERTION_DELTA, stratum) if revives and not once else None
    sink = Sink(update, reasoning.tick(), deltas, v.g0 if revives else None)
    for p in stratum.predicates:
        for role in (Role.REDERIVED, Role.ADDED):
            if (source := update.workspace.staged(role, p)) is not None and update.count(p, source):
                sink.collect(p, tuples_of(p, reasoning.arities[p], source))
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

    def collect(self, predicate: str, plan: ir.Node, info: RuleInfo | None = None) -> int:
        """Store the plan's facts that are new (their number)."""
        update, arity, target = self.update, self.update.reasoning.arities[predicate], predicate
        if self.deltas is not None:
            target, plan = self.deltas[predicate], ir.AntiJoin(plan, tuples_of(predicate, arity), fact_columns(arity))
        revive = None if self.deltas is not None else self.revive_since
        if info is None:
            return update.backend.insert(relation=target, plan=plan, generation=self.generation, revive_since=revive)
        return update.reasoning.derive(info, plan, self.generation, phase="insertion", relation=target,
                                       revive_since=revive)

    def next_round(self) -> "Sink":
        return Sink(self.update, self.update.reasoning.tick(), self.deltas, self.revive_since)


def propagate_insertion(update: Update, stratum: Stratum, sink: Sink) -> None:
    """Seminaive insertion over the new materialisation, starting from the collected delta (the modules'
    Add^{s,i}, 003 Algorithm 3 lines 246-254): each round's delta is what the last one stored, in the
    Δ_A relations (then committed) or in the relations themselves (``sink.deltas`` None). A module whose
    ``insert`` is complete (``Module.inserts_exactly``) is not asked about a predicate whose last round's
    facts all came from it (Claros-like, 1,000 facts re-added: ~470k ``relatedPlaces`` pairs semi-joined
    with the inputs for no new component, ~0.02 s)."""
    modules = modules_of(stratum)
    deltas = sink.deltas if sink.deltas is not None else {p: p for p in stratum.predicates}
    sources: dict[str, set[int]] = {}   # per predicate, the modules whose insert gave the last round's facts
    while True:
        window = View(since=sink.generation, until=sink.generation + 1)
        grown = {p for p, delta in deltas.items() if update.count(delta, window)}
        if not grown:
            return
        if sink.deltas is not None:
            commit(update, {p: deltas[p] for p in grown}, window)
        last, sink, gave = sink.generation, sink.next_round(), sources
        sources = {}
        for i, module in enumerate(modules):
            own = {p for p in grown if gave.get(p) == {i}} if module.inserts_exactly(update) else set()
            for info, plan in module.insert(update, deltas, last, grown - own):
                if sink.collect(info.head.predicate, plan, info):
                    sources.setdefault(info.head.predicate, set()).add(i)


def commit(update: Update, deltas: Mapping[str, str], window: View) -> None:
    """Store one round's Δ_A in the materialisation, reviving facts deleted earlier in this update."""
    generation = update.reasoning.tick()
    for p, delta in deltas.items():
        arity = update.reasoning.arities[p]
        update.backend.insert(relation=p, plan=tuples_of(delta, arity, window), generation=generation,
                              revive_since=update.views.g0)
