"""The default module: seminaive evaluation of recursive rules (003 section 4.1), with DRed's
overdeletion and one-step rederivation as its Del and Red (001 Algorithm 4).

For a rule with recursive body atoms B_0 .. B_n, round k evaluates, for each recursive
atom i, the body B_0^old .. B_{i-1}^old, B_i^delta, B_{i+1}^full .. B_n^full
(000 equation (7)), so every rule instance is considered at most once. Deletion rounds are
the same in reverse (inverse seminaive over the facts deleted in the previous round).
Its rules are evaluated by rule instances, so Counting can count them and FBF chain through them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from deltalog.analysis.program import RuleInfo
from deltalog.modules.base import AtomViews, BodyPlans, DeltaViews, InstancePlans, RulePlans, Window
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import HeadIn, MatchNegation, NegationsIn, Produce, StartAt
from deltalog.plan.rules import FULL, View, instance_bindings, rule_plan
from deltalog.reasoning.context import Reasoning, rule_label
from deltalog.reasoning.instances import delta_rule_plans, one_atom, one_atom_plan, one_step_rederivation
from deltalog.reasoning.update import Update


@dataclass
class SeminaiveModule:
    """Seminaive closure of a set of mutually recursive rules."""

    rules: tuple[RuleInfo, ...]
    predicates: frozenset[str]

    # ---- Add^{s,i} for materialisation (003 Algorithm 2) --------------------------------------

    def add(self, reasoning: Reasoning, delta: Sequence[Window]) -> list[Window]:
        written: list[Window] = []
        windows: list[tuple[Window, set[str] | None]] = [(w, None) for w in delta]
        while windows:
            generation = reasoning.tick()
            grew: set[str] = set()
            for window, grown in windows:
                grew |= self._round(reasoning, window, generation, grown)
            reasoning.round_done()
            if not grew:
                break
            written.append((generation, generation + 1))
            windows = [((generation, generation + 1), grew)]   # the next delta: what this round derived
        return written

    def _round(self, reasoning: Reasoning, delta: Window, generation: int, grown: set[str] | None) -> set[str]:
        """Apply every rule once with at least one recursive atom matched in ``delta``; return the
        predicates that got new facts. A variant whose delta atom's predicate did not grow in ``delta``
        (``grown``: known from the previous round, else one count per predicate) is skipped before it
        is planned, so a round costs nothing per idle relation of the stratum."""
        if grown is None:
            grown = {p for p in self.predicates if reasoning.rows(p, delta[0], delta[1])}
        grew: set[str] = set()
        for info in self.rules:
            for i in self.recursive_positions(info):
                if info.positive[i].predicate not in grown:
                    continue
                plan = rule_plan(info, self.windows(info, i, delta, generation), reasoning, StartAt(i),
                                 label=rule_label(info))
                if reasoning.derive(info, plan, generation):
                    grew.add(info.head.predicate)
        return grew

    def recursive_positions(self, info: RuleInfo) -> list[int]:
        return [i for i, atom in enumerate(info.positive) if atom.predicate in self.predicates]

    def windows(self, info: RuleInfo, i: int, delta: Window, generation: int) -> list[View | Window]:
        """Atom i reads the delta; earlier recursive atoms read old facts, later ones all facts."""
        out: list[View | Window] = []
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

    # ---- the maintenance plug-ins (003 Algorithm 3) --------------------------------------------

    def diff(self, update: Update, positive: set[str], negative: set[str], base: View, positive_delta: View,
             negative_delta: View) -> RulePlans:
        for info in self.rules:
            for plan in delta_rule_plans(update, info, self.predicates, positive, negative, base, positive_delta,
                                         negative_delta):
                yield info, plan

    def delete(self, update: Update, previous: int, shrunk: set[str]) -> RulePlans:
        """Inverse seminaive: atom i in the facts deleted at ``previous``, earlier own atoms in what was
        left after it, later ones in what was left before it (each lost instance found once)."""
        v = update.views
        for info in self.rules:
            for i in self.recursive_positions(info):
                if info.positive[i].predicate not in shrunk:   # an empty delta: no instance to find
                    continue
                if one_atom(info):   # no join: the plan without the cache (``one_atom_plan``)
                    yield info, one_atom_plan(info, v.deleted_at(previous), rule_label(info))
                    continue
                views = [v.surviving if a.predicate not in self.predicates else
                         v.alive_after(previous) if j < i else
                         v.deleted_at(previous) if j == i else v.alive_after(previous - 1)
                         for j, a in enumerate(info.positive)]
                yield info, rule_plan(info, views, update.reasoning,
                                      NegationsIn((v.old_or_added,) * len(info.negative)), StartAt(i),
                                      label=rule_label(info))

    def deletes_exactly(self, update: Update) -> bool:
        """No: a lost instance's head may have another derivation (the check and Red decide)."""
        return False

    def inserts_exactly(self, update: Update) -> bool:
        """No: one round of rule instances (seminaive)."""
        return False

    def rederive(self, update: Update, predicate: str) -> RulePlans:
        """One-step rederivation, as DRed does (003's Red may take several steps; one is enough here
        because insertion closes the rederived facts under the rules anyway)."""
        for info in self.rules:
            if info.head.predicate == predicate:
                yield info, one_step_rederivation(update, info)

    def holds(self, update: Update, predicate: str, candidates: ir.Node) -> RulePlans:
        """Nothing: a recursive rule's instances read facts of the stratum, which overdeletion may still
        delete (the nonrecursive rules' check is algorithms/lowerbound.py's own)."""
        return iter(())

    def rederive_unheld(self, update: Update, predicate: str) -> RulePlans:
        return self.rederive(update, predicate)   # ``holds`` answered for nothing

    def insert(self, update: Update, deltas: Mapping[str, str], generation: int, grown: set[str]) -> RulePlans:
        """Atom i in the round's delta relation, every other atom in the new materialisation."""
        for info in self.rules:
            for i in self.recursive_positions(info):
                predicate = info.positive[i].predicate
                if predicate not in grown:   # an empty delta: no instance to find
                    continue
                if one_atom(info):   # no join: the plan without the cache (``one_atom_plan``)
                    yield info, one_atom_plan(info, View(generation, generation + 1, relation=deltas[predicate]),
                                              rule_label(info))
                    continue
                views = [View(generation, generation + 1, relation=deltas[predicate]) if j == i else View()
                         for j in range(len(info.positive))]
                yield info, rule_plan(info, views, update.reasoning, StartAt(i), label=rule_label(info))

    # ---- counters of rule instances (Counting, 001 Algorithms 2-3) -----------------------------

    def instances(self, update: Update, whole: AtomViews, delta: DeltaViews, negative: AtomViews) -> InstancePlans:
        for info in self.rules:
            negated_in = NegationsIn(tuple(negative(a) for a in info.negative))
            plans = []
            for j, atom in enumerate(info.positive):
                if (view := delta(atom)) is not None:
                    views = [view if k == j else whole(a) for k, a in enumerate(info.positive)]
                    plans.append(instance_bindings(info, views, update.reasoning, negated_in, StartAt(j),
                                                   label=rule_label(info)))
            if plans:
                yield info, plans

    def negated_instances(self, update: Update, whole: AtomViews, negative: AtomViews,
                          matched: DeltaViews) -> InstancePlans:
        for info in self.rules:
            views, negative_views = [whole(a) for a in info.positive], tuple(negative(a) for a in info.negative)
            plans = []
            for j, atom in enumerate(info.negative):
                if (view := matched(atom)) is not None:
                    plans.append(instance_bindings(info, views, update.reasoning, NegationsIn(negative_views),
                                                   MatchNegation(j, view, recheck=negative_views[j]),
                                                   label=rule_label(info)))
            if plans:
                yield info, plans

    # ---- backward and forward chaining (FBF, 001 Algorithm 5) ----------------------------------

    def backward(self, update: Update, heads: Callable[[str], View], body: View, negative: View) -> BodyPlans:
        for info in self.rules:
            head = heads(info.head.predicate)
            for atom in [a for a in info.positive if a.predicate in self.predicates]:
                yield info, atom, rule_plan(info, [body] * len(info.positive), update.reasoning,
                                            NegationsIn((negative,) * len(info.negative)), HeadIn(head),
                                            Produce(atom), label=rule_label(info))

    def forward(self, update: Update, relations: dict[str, str], delta: int, lower: View,
                negative: View) -> RulePlans:
        """Seminaive over the scratch relations, as ``add`` reads its windows: earlier stratum atoms before
        the delta, atom i in it, later ones up to it."""
        for info in self.rules:
            for i in self.recursive_positions(info):
                views = [lower if a.predicate not in self.predicates else
                         View(0, delta, relation=relations[a.predicate]) if j < i else
                         View(delta, delta + 1, relation=relations[a.predicate]) if j == i else
                         View(0, delta + 1, relation=relations[a.predicate])
                         for j, a in enumerate(info.positive)]
                yield info, rule_plan(info, views, update.reasoning, NegationsIn((negative,) * len(info.negative)),
                                      StartAt(i), label=rule_label(info))
