"""The transitive-closure modules of 003 section 5: nonlinear TC and the linear forms users write.

``TransitiveModule``: R = X_R⁺ (003 Algorithms 4-6 recast as whole-closure plans); the closure
is an ``ir.TransitiveClosure`` over the external facts, restricted to the affected sources
during maintenance (modules/closure.py).

``LinearModule``: ``R(x, y) :- E(x, y)`` and ``R(x, z) :- R(x, y), E(y, z)`` (for one or more
step relations E, S their union): R = (S ∪ X_o)∘S* = S⁺ ∪ X_o ∪ X_o∘S⁺, where X_o are R's other
facts (explicit, other rules). Left steps ``R(x, z) :- E(x, y), R(y, z)`` are the mirror image,
computed on swapped columns. With no X_o (the usual case) the closure is S⁺ alone.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from deltalog.analysis.modules import base
from deltalog.modules.base import RulePlans
from deltalog.modules.closure import ClosureModule
from deltalog.modules.plans import NOW, PAIR, pairs, union
from deltalog.modules.seminaive import SeminaiveModule
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.update import Update
from deltalog.reasoning.workspace import explicit_relation


SEMINAIVE_INSERT_FACTS = 64
"""While an update has given R at most this many new facts, its insertion rounds evaluate the rules
seminaively: a few new pairs joined with R's index cost a few plan evaluations, where the closure
difference of the inputs' graphs (``ClosureModule.gained``) builds and condenses both graphs (LUBM-like
re-add of 1,000 facts: ~4 new ``subOrganizationOf`` inputs, 2.4 ms for one ``ir.ClosureDifference``)."""


class TransitiveModule(ClosureModule):
    """R = X_R⁺ (003 section 5)."""

    def reach(self, reasoning: Reasoning, view: View, negative: View, sources: ir.Node | None,
              grounded: bool = False) -> ir.Node:
        return ir.TransitiveClosure(self.external_facts(reasoning, view, negative, grounded), sources)

    def insert(self, update: Update, deltas: Mapping[str, str], generation: int, grown: set[str]) -> RulePlans:
        """Add during maintenance: seminaive rounds while the update's new R facts are few (their fan-out
        in R bounds a round's joins), then the closure difference. Seminaive rounds leave R closed only
        over the facts before the last round's delta, so the first closure round after them starts from
        every external fact the update added (``insert_since`` from the first round), later ones from
        their own round's; the counts are per round, so the choice only ever goes from seminaive to
        closure within an update."""
        if self.ties(update.reasoning.backend) or self.r not in grown:
            yield from super().insert(update, deltas, generation, grown)
            return
        delta, g0 = deltas[self.r], update.views.g0   # (a Δ_A relation, or R itself: its rows born since g0)
        before = update.count(delta, View(g0, generation, relation=delta))   # earlier rounds' facts
        if before + update.count(delta, View(generation, generation + 1, relation=delta)) <= SEMINAIVE_INSERT_FACTS:
            yield from SeminaiveModule(self.rules, self.predicates).insert(update, deltas, generation, grown)
        else:   # the earlier rounds, if any, were seminaive exactly when they had this few facts
            since = g0 if 0 < before <= SEMINAIVE_INSERT_FACTS else generation
            yield from self.insert_since(update, deltas, since, generation, {self.r})


class LinearModule(ClosureModule):
    """R = S⁺ ∪ X_o ∪ X_o∘S⁺ for right steps (mirrored for left steps)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        steps = set(self.choice.steps)
        self.external = tuple(info for info in self.external if base(info, self.r) not in steps)
        self.step_rules = {s: tuple(info for info in self.stratum.rules if info.head.predicate == s) for s in steps}

    def step_predicates(self) -> tuple[str, ...]:
        return self.choice.steps

    # Insertion (Diff over added steps, Add during maintenance) runs the module's rules seminaively:
    # a new fact R(x, z) of a linear closure comes from a new fact one step shorter (or a new step),
    # so the rule instances are about (new facts) x (step degree), while the closure's plan (the tails'
    # gains joined with every R-ancestor of the tails) enumerates ancestors x gains, mostly old pairs
    # (DAG-R, 10 edges re-added: 0.5 s -> see docs/benchmarks.md). Deletion keeps the closure plans.

    def diff(self, update: Update, positive: set[str], negative: set[str], base: View, positive_delta: View,
             negative_delta: View) -> RulePlans:
        if positive_delta == update.views.deleted:
            yield from super().diff(update, positive, negative, base, positive_delta, negative_delta)
            return
        yield from SeminaiveModule(self.rules, self.predicates).diff(update, positive, negative, base,
                                                                      positive_delta, negative_delta)

    def insert(self, update: Update, deltas: Mapping[str, str], generation: int, grown: set[str]) -> RulePlans:
        yield from SeminaiveModule(self.rules, self.predicates).insert(update, deltas, generation, grown)

    def steps(self, reasoning: Reasoning, view: View, negative: View, grounded: bool = False) -> ir.Node:
        """S in a view. A step the stratum derives: its stored facts and its *grounded* ones, those final
        facts give (its explicit facts and its rules over lower strata); ``grounded``: those only. Its
        other facts may rest on R pairs Del is about to lose (``q(x, y) :- p(x, y)``: a pair and the step
        it gave would keep each other, stop 21), so Del measures losses against the grounded steps. Red
        reads both: a pair Del kept may rest on a grounded step an update's added lower facts give and
        the insertion phase has not stored yet, and the pairs through it must come back in Red (no new
        fact would bring them in insertion)."""
        parts: list[ir.Node] = []
        for s in self.choice.steps:
            if s not in self.predicates or not grounded:   # a lower step is final as stored
                parts.append(pairs(s, view, self.flip))
            if s in self.predicates:
                parts.append(self.facts_of(reasoning, s, self.step_rules[s], view, negative, True))
        return union(parts)

    def new_inputs(self, reasoning: Reasoning, windows: Sequence[View]) -> ir.Node:
        """Only R's external facts are inputs: ``R(x, y) :- E(x, y)`` for a step E of the stratum (another
        module's rule) gives pairs the closure holds already, from the step itself (a 6,000-node
        closure over a step of its own stratum: 0.08 s of 0.19 s materialising recomputed sources for them,
        docs/benchmarks.md stop 22)."""
        steps = self.changed_facts(windows, set(self.choice.steps))
        other = self.external_facts(reasoning, NOW, NOW)
        if isinstance(other, ir.Values) and not other.rows:
            return steps
        return union([steps, ir.SemiJoin(self.changed_facts(windows, {self.r}), ir.Distinct(other), PAIR)])

    def inputs(self, reasoning: Reasoning, view: View, negative: View, grounded: bool = False) -> ir.Node:
        return union([self.steps(reasoning, view, negative, grounded),
                      self.external_facts(reasoning, view, negative, grounded)])

    def paths(self, reasoning: Reasoning) -> bool:
        """Paths of steps only: with other facts X_o, a path's first fact may be one, the others not."""
        if self.external:
            return False
        explicit = explicit_relation(self.r)
        return explicit not in reasoning.backend.relations() or not reasoning.backend.count(relation=explicit)

    def reach(self, reasoning: Reasoning, view: View, negative: View, sources: ir.Node | None,
              grounded: bool = False) -> ir.Node:
        steps = self.steps(reasoning, view, negative, grounded)
        reach = ir.TransitiveClosure(steps, sources)
        other = self.external_facts(reasoning, view, negative, grounded)
        if isinstance(other, ir.Values) and not other.rows:
            return reach
        if sources is not None:
            other = ir.SemiJoin(other, sources, ("c0",))
        other = ir.Distinct(other)
        starts = ir.Distinct(ir.Project(other, (("c0", ir.Col("c1")),)))
        onward = ir.Project(ir.TransitiveClosure(steps, starts), (("t", ir.Col("c0")), ("c1", ir.Col("c1"))))
        through = ir.Join(ir.Project(other, (("c0", ir.Col("c0")), ("t", ir.Col("c1")))), onward, ("t",))
        return union([reach, other, ir.Project(through, tuple((c, ir.Col(c)) for c in PAIR))])
