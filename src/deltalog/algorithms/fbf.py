"""Forward/Backward/Forward (001 Algorithm 5), set-at-a-time; B/F and DRed are its two extremes.

DRed deletes every fact that lost a derivation and rederives later; FBF first checks
whether such a fact still has a proof and deletes only the unproved ones. Here every step
works on sets: the candidates of an overdeletion round are checked together.

    CHECK (backward)  bind the heads of the recursive rules to the facts being checked and
                      evaluate the bodies over the facts not deleted: the stratum's body facts
                      found are checked next (each fact at most once: the set C), breadth first
    SATURATE (fwd)    prove checked facts that are explicit, delayed (Y) or derivable by a
                      nonrecursive rule; then forward-chain the recursive rules from the proved
                      facts P, proving only checked facts (others are delayed in Y)
    delete            the candidates not in P

``budget`` is the strategy parameter of the paper's ABORTBRANCH: the number of facts backward
chaining may check per stratum. With no budget it is never exceeded (B/F: nothing is
overdeleted); with budget 0 no fact is checked (DRed). When a round exceeds it, that round's
candidates are deleted unchecked ("blocked") and one-step rederivation follows, as in DRed.

The recursive rules are chained through by the stratum's modules (``Module.backward`` and
``forward``); a stratum with a module that has neither (not a ``BackwardModule``) is
maintained by DRed instead (algorithms/strategies.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from deltalog.algorithms.aggregate_rules import aggregate_results
from deltalog.algorithms.dred import may_lose_derivations, refuse_recursive_aggregates
from deltalog.algorithms.insertion import insert
from deltalog.algorithms.overdeletion import overdelete
from deltalog.algorithms.rederivation import rederive
from deltalog.analysis.program import Stratum
from deltalog.modules import backward_modules
from deltalog.modules.base import BackwardModule
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import HeadIn, NegationsIn
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, fact_columns, tuples_of
from deltalog.reasoning.workspace import Role


def fbf_stratum(update: Update, stratum: Stratum, budget: int | None = None) -> None:
    """Maintain one stratum with FBF (B/F when ``budget`` is None)."""
    refuse_recursive_aggregates(stratum)
    if may_lose_derivations(update, stratum):   # else N_D is empty: nothing to check (as in DRed)
        proofs = Proofs(update, stratum, budget, tuple(backward_modules(stratum)))
        overdelete(update, stratum, settle=proofs.settle)
        proofs.revive_proved()
        if proofs.blocked:
            rederive(update, stratum)
    insert(update, stratum)


@dataclass
class Proofs:
    """The sets of 001 Algorithm 5 for one stratum, as scratch relations: C checked, P proved, Y delayed."""

    update: Update
    stratum: Stratum
    budget: int | None
    modules: tuple[BackwardModule, ...] = ()
    blocked: bool = False
    checked_count: int = 0
    checked: dict[str, str] = field(default_factory=dict)
    proved: dict[str, str] = field(default_factory=dict)
    delayed: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        arities, workspace = self.update.reasoning.arities, self.update.workspace
        for p in self.stratum.predicates:
            self.checked[p] = workspace.relation(Role.CHECKED, p, arities[p])
            self.proved[p] = workspace.relation(Role.PROVED, p, arities[p])
            self.delayed[p] = workspace.relation(Role.DELAYED, p, arities[p])

    # ---- the hook into the overdeletion loop --------------------------------------------------

    def settle(self, update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int) -> int:
        """Check this round's candidates, then delete the ones without a proof; return that generation."""
        candidates = self.candidates(lost_derivation, window)
        if self.budget is None or self.checked_count < self.budget:
            if self.check(candidates):
                self.saturate()
            else:
                self.blocked = True
        else:
            self.blocked = True
        generation = update.reasoning.tick()
        for p, relation in candidates.items():
            unproved = ir.AntiJoin(self.scan(relation, p, View(*self._window(relation))),
                                   self.scan(self.proved[p], p), self.on(p))
            update.delete(p, unproved, generation)
        return generation

    def candidates(self, lost_derivation: Mapping[str, str], window: int) -> dict[str, str]:
        """N_D \\ D \\ P: the round's facts that lost a derivation, are still there and are not proved."""
        generation = self.update.reasoning.tick()
        out = {}
        for p, relation in lost_derivation.items():
            target = self.update.workspace.relation(Role.CANDIDATES, p, self.update.reasoning.arities[p])
            alive = ir.SemiJoin(self.scan(relation, p, View(window, window + 1)), self.scan(p, p), self.on(p))
            plan = ir.AntiJoin(alive, self.scan(self.proved[p], p), self.on(p))
            self.update.backend.insert(relation=target, plan=plan, generation=generation)
            out[p] = target
        self._windows = {name: (generation, generation + 1) for name in out.values()}
        return out

    def _window(self, relation: str) -> tuple[int, int]:
        return self._windows[relation]

    # ---- backward chaining --------------------------------------------------------------------

    def check(self, candidates: dict[str, str]) -> bool:
        """Breadth-first backward chaining from the candidates; False if the budget ran out."""
        generation = self.update.reasoning.tick()
        for p, relation in candidates.items():
            fresh = ir.AntiJoin(self.scan(relation, p, View(*self._window(relation))),
                                self.scan(self.checked[p], p), self.on(p))
            self.checked_count += self.update.backend.insert(relation=self.checked[p], plan=fresh,
                                                             generation=generation)
        while self._any(self.checked, generation):
            if self.budget is not None and self.checked_count > self.budget:
                return False
            generation = self.expand(generation)
        return True

    def expand(self, frontier: int) -> int:
        """Check the stratum's body facts of the old rule instances that derive the frontier facts
        (the modules' backward plug-in)."""
        v, reasoning = self.update.views, self.update.reasoning
        generation = reasoning.tick()

        def heads(predicate: str) -> View:
            return View(frontier, frontier + 1, relation=self.checked[predicate])

        for module in self.modules:
            for info, atom, plan in module.backward(self.update, heads, v.surviving, v.old_or_added):
                fresh = ir.AntiJoin(plan, self.scan(self.checked[atom.predicate], atom.predicate),
                                    self.on(atom.predicate))
                self.checked_count += reasoning.derive(info, fresh, generation, phase="backward chaining",
                                                       relation=self.checked[atom.predicate])
        return generation

    # ---- forward chaining over the checked facts ----------------------------------------------

    def saturate(self) -> None:
        """Prove the checked facts that have a proof, forward from explicit facts and nonrecursive rules."""
        generation = self.prove_seeds()
        while self._any(self.proved, generation):
            generation = self.forward(generation)

    def prove_seeds(self) -> int:
        v, reasoning = self.update.views, self.update.reasoning
        generation = reasoning.tick()
        for p in self.stratum.predicates:
            unproved = ir.AntiJoin(self.scan(self.checked[p], p), self.scan(self.proved[p], p), self.on(p))
            sources = [self.delayed[p]]
            if explicit := self.update.explicit_store(p):
                sources.append(explicit)
            for source in sources:
                seed = ir.SemiJoin(unproved, self.scan(source, p), self.on(p))
                self.update.backend.insert(relation=self.proved[p], plan=seed, generation=generation)
        for info in self.stratum.nonrecursive:
            p = info.head.predicate
            plan: ir.Node
            if info.aggregates:   # all its atoms are in lower strata, final: its new results are proofs
                plan = ir.SemiJoin(aggregate_results(self.update, info, v.new), self.scan(self.checked[p], p),
                                   self.on(p))
            else:
                plan = rule_plan(info, [v.surviving] * len(info.positive), reasoning,
                                 NegationsIn((v.old_or_added,) * len(info.negative)),
                                 HeadIn(View(relation=self.checked[p])), label=rule_label(info))
            fresh = ir.AntiJoin(plan, self.scan(self.proved[p], p), self.on(p))
            reasoning.derive(info, fresh, generation, phase="saturation", relation=self.proved[p])
        return generation

    def forward(self, delta: int) -> int:
        """One seminaive round over the proved facts (the modules' forward plug-in): checked consequences
        are proved, others delayed."""
        v, reasoning = self.update.views, self.update.reasoning
        generation = reasoning.tick()
        for module in self.modules:
            for info, plan in module.forward(self.update, self.proved, delta, v.surviving, v.old_or_added):
                p = info.head.predicate
                new = ir.AntiJoin(plan, self.scan(self.proved[p], p), self.on(p))
                reasoning.derive(info, ir.SemiJoin(new, self.scan(self.checked[p], p), self.on(p)), generation,
                                 phase="saturation", relation=self.proved[p])
                self.update.backend.insert(relation=self.delayed[p], generation=generation,
                                           plan=ir.AntiJoin(new, self.scan(self.checked[p], p), self.on(p)))
        return generation

    def revive_proved(self) -> None:
        """Facts deleted unchecked (blocked) and proved later are back (001 Algorithm 5, line 63)."""
        for p in self.stratum.predicates:
            target = self.update.workspace.relation(Role.REDERIVED, p, self.update.reasoning.arities[p])
            plan = ir.SemiJoin(self.scan(self.proved[p], p), self.scan(p, p, self.update.views.deleted), self.on(p))
            self.update.backend.insert(relation=target, plan=plan, generation=self.update.reasoning.tick())

    # ---- helpers ------------------------------------------------------------------------------

    def scan(self, relation: str, predicate: str, view: View | None = None) -> ir.Scan:
        return tuples_of(relation, self.update.reasoning.arities[predicate], view)

    def on(self, predicate: str) -> tuple[str, ...]:
        return fact_columns(self.update.reasoning.arities[predicate])

    def _any(self, relations: dict[str, str], generation: int) -> bool:
        return any(self.update.count(r, View(generation, generation + 1)) for r in relations.values())
