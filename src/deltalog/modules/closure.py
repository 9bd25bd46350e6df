"""The plug-ins of the closure modules of 003 sections 5 and 6. What they are computed over (the external
facts X_R, affected sources, the closure plan, irreflexive modules, ``paths`` and ``exact``):
closure_inputs.py.

The plug-ins, all as plans over the stored relations that the algorithm layer routes:

- Add (003 Algorithms 4 and 7): the first call closes everything; later calls (facts from other
  modules of the stratum, 003's Δ \\ Δ_i) recompute only the sources whose rows can grow: the
  tails of the new external facts and every x with R(x, tail) (for STC: the tails' components).
- Del (Algorithms 5 and 8; 003 Definition 6 bounds what Del may return): the rows of the
  affected sources (from the deleted external facts) that the *grounded* external facts of the
  new state (explicit facts and nonrecursive rules over the updated lower strata) do not give.
  That is DRed^c's stop at facts with a nonrecursive derivation, applied to whole reachable
  sets: what is kept is sound, and what other modules still give comes back through Red and
  insertion. Facts the module deleted itself are not external and are skipped (Δ \\ Δ_i). When
  R is a closure over paths of grounded inputs (``paths``) Del is 003 section 4's: the pairs the
  old inputs close to and the new ones do not, from the ancestors of the deleted facts' tails, as
  one ``ir.ClosureDifference`` (the backend diffs the two closures without emitting them).
- Red (Algorithms 6 and 9): the overdeleted R facts that the closure of the external facts
  after overdeletion gives again, from their sources (several steps at once). After an exact Del
  (``exact``) only deleted inputs can come back: they are checked by ``ir.Reaches``. DRed asks
  that of the candidates before deleting them (``holds``) and then skips Red (``rederive_unheld``).
- Diff: empty for TC and STC (their rules read only R, 003 section 5); a linear module's steps
  read lower relations, whose changes are handled like external facts.
- insert (Add during maintenance): the new closure of the affected sources; the algorithm
  keeps only the facts that are new. After an exact Del: the pairs the new inputs close to and
  the inputs of both states do not (``ir.ClosureDifference`` again, from the new facts' tails).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from deltalog.modules.base import RulePlans, Window
from deltalog.modules.closure_inputs import ClosureInputs
from deltalog.modules.plans import NOW, PAIR, column, difference, keyed, pairs, reached, swap, union
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.update import Update


class ClosureModule(ClosureInputs):
    """The plug-ins of a closure module over R; subclasses say how a closure is computed."""

    # ---- Add, materialisation (003 Algorithm 2) ----------------------------------------------

    def add(self, reasoning: Reasoning, delta: Sequence[Window]) -> list[Window]:
        if seminaive := self.ties(reasoning.backend):
            return seminaive.add(reasoning, delta)
        generation = reasoning.tick()
        first = min(since for since, _ in delta)
        if first == 0:   # the first call: close everything
            plan = self.oriented(self.closure(reasoning, NOW, NOW, None))
        else:
            plan = self.oriented(self.grown(reasoning, self.new_inputs(reasoning, [View(s, u) for s, u in delta]),
                                            View(0, first)))
        derived = reasoning.derive(self.rules[0], plan, generation)
        reasoning.round_done()
        return [(generation, generation + 1)] if derived else []

    def grown(self, reasoning: Reasoning, changed: ir.Node, before: View) -> ir.Node:
        """Add after the first call: the closure's pairs a path through a ``changed`` input gives that the
        inputs stored ``before`` the call's windows (closed by the earlier calls) do not; without ``paths``,
        the new closure of the sources the changed inputs affect. Steps a stratum derives from R itself
        mostly shortcut pairs R holds already, which the difference of the two closures does not emit
        (a 6,000-node closure, docs/benchmarks.md stop 22)."""
        if not self.paths(reasoning):
            return self.closure(reasoning, NOW, NOW, self.affected(reasoning, changed, NOW))
        now, old = self.graph(reasoning, NOW, NOW), self.graph(reasoning, before, before)
        return difference(self.compare, now, old, changed, self.choice.irreflexive)

    # ---- the maintenance plug-ins (003 Algorithm 3) -------------------------------------------

    def diff(self, update: Update, positive: set[str], negative: set[str], base: View, positive_delta: View,
             negative_delta: View) -> RulePlans:
        if seminaive := self.ties(update.reasoning.backend):
            yield from seminaive.diff(update, positive, negative, base, positive_delta, negative_delta)
            return
        lower = [s for s in self.step_predicates() if s not in self.predicates and s in positive]
        if not lower:
            return
        changed = union([pairs(s, positive_delta, self.flip) for s in lower])
        if positive_delta == update.views.deleted:
            yield self.rules[0], self.lost(update, changed)
        else:
            yield self.rules[0], self.gained(update, changed)

    def delete(self, update: Update, previous: int, shrunk: set[str]) -> RulePlans:
        """Del: the exact losses of the sources the deleted external facts affect."""
        if seminaive := self.ties(update.reasoning.backend):
            yield from seminaive.delete(update, previous, shrunk)
            return
        v = update.views
        if not shrunk & ({self.r} | set(self.step_predicates())):
            return
        # R's deleted facts that were external (the others the module deleted itself: Δ \ Δ_i) and
        # the deleted steps of this stratum; lower steps went through Diff already
        deleted = self.changed_facts([v.deleted_at(previous)], shrunk & {self.r})
        external = ir.SemiJoin(deleted, ir.Distinct(self.external_facts(update.reasoning, v.old, v.old)), PAIR)
        steps = self.changed_facts([v.deleted_at(previous)], shrunk - {self.r})
        yield self.rules[0], self.lost(update, union([external, steps]))

    def lost(self, update: Update, changed: ir.Node) -> ir.Node:
        v, reasoning = update.views, update.reasoning
        if not self.paths(reasoning):
            return self.oriented(self.lost_rows(update, self.affected(reasoning, changed, v.old)))
        # 003 section 4: the pairs the old inputs close to and the new ones do not, from the sources that
        # reach a tail of a changed fact (``paths``), computed as one difference of two closures
        old, new = self.graph(reasoning, v.old, v.old), self.graph(reasoning, NOW, NOW, grounded=True)
        return self.oriented(difference(self.compare, old, new, changed, self.choice.irreflexive))

    def deletes_exactly(self, update: Update) -> bool:
        """After an ``exact`` Del: its facts are pairs the old closure has and the closure of the final
        inputs lacks, so none is in the new materialisation; and none is an input of the old state (one
        still an input is in that closure, one gone was a candidate of the first round, deleted before any
        Del ran), so deleting them gives Del nothing more. Claros-like, 1,000 facts deleted: ~470k pairs
        were checked against the new closure and stored as candidates, and Del then ran once more for
        nothing (docs/benchmarks.md, stop 18)."""
        return not self.ties(update.reasoning.backend) and self.exact(update.reasoning)

    def lost_rows(self, update: Update, sources: ir.Node) -> ir.Node:
        """R's surviving rows of ``sources`` that the grounded external facts of the new state do not give
        (in the module's orientation)."""
        v = update.views
        kept = self.closure(update.reasoning, NOW, NOW, sources, grounded=True)
        # the closure kernels' output is distinct: an anti-join, not a Difference (which sorts it first)
        return ir.AntiJoin(self.rows_of(sources, v.surviving), kept, PAIR)

    def rederive(self, update: Update, predicate: str) -> RulePlans:
        """Red: the deleted R facts the surviving external facts still close to."""
        if seminaive := self.ties(update.reasoning.backend):
            yield from seminaive.rederive(update, predicate)
            return
        if predicate != self.r:
            return
        v = update.views
        deleted = pairs(self.r, v.deleted, self.flip)
        if self.exact(update.reasoning):   # Del removed only pairs the new inputs do not give
            yield self.rules[0], self.still_reached(update, deleted)
            return
        if self.paths(update.reasoning):   # R is the closure of the inputs: ask it of the deleted pairs only
            yield self.rules[0], self.oriented(self.reached_now(update.reasoning, deleted))
            return
        sources = ir.Distinct(column(deleted, "c0"))
        again = self.closure(update.reasoning, NOW, NOW, sources)
        yield self.rules[0], self.oriented(ir.SemiJoin(again, keyed(self.r, v.deleted, self.flip), PAIR))

    def still_reached(self, update: Update, facts: ir.Node) -> ir.Node:
        """The ``facts`` (pairs, module orientation) that were inputs and that the closure of the inputs
        now still gives (``ir.Reaches``: bits for their targets only), as R's columns."""
        reasoning, v = update.reasoning, update.views
        inputs = ir.SemiJoin(facts, ir.Distinct(self.inputs(reasoning, v.old, v.old)), PAIR)
        return self.oriented(self.reached_now(reasoning, inputs))

    def reached_now(self, reasoning: Reasoning, candidates: ir.Node) -> ir.Node:
        """The ``candidates`` (pairs, module orientation) the closure of the current inputs holds."""
        return reached(self.check, self.graph(reasoning, NOW, NOW), self.inputs(reasoning, NOW, NOW), candidates,
                       self.choice.irreflexive)

    def holds(self, update: Update, predicate: str, candidates: ir.Node) -> RulePlans:
        """The candidate inputs the new closure still reaches, when the inputs are final (``exact``). A
        deleted input inside a component (RS2's p1 edges in p11's giant one) then stays, and Del, Red and
        insertion never run; a pair lost has on an old path a deleted input the new closure does not
        reach (the others can be bypassed), whose tail Del starts from, so inputs are all to check."""
        if predicate == self.r and not self.ties(update.reasoning.backend) and self.exact(update.reasoning):
            yield self.rules[0], self.still_reached(update, swap(candidates) if self.flip else candidates)

    def rederive_unheld(self, update: Update, predicate: str) -> RulePlans:
        """Nothing where ``holds`` checks: ``exact`` Red's inputs still reached are what ``holds`` kept
        (DAG-R, 10 edges deleted: one 15 ms ``Reaches`` instead of two)."""
        if self.ties(update.reasoning.backend) or not self.exact(update.reasoning):
            yield from self.rederive(update, predicate)

    def insert(self, update: Update, deltas: Mapping[str, str], generation: int, grown: set[str]) -> RulePlans:
        """Add during maintenance: the new closure of the sources the round's new external facts affect."""
        if seminaive := self.ties(update.reasoning.backend):
            yield from seminaive.insert(update, deltas, generation, grown)
            return
        names = {self.r} | {s for s in self.step_predicates() if s in self.predicates}
        if not grown & names:
            return
        yield from self.insert_since(update, deltas, generation, generation, grown & names)

    def inserts_exactly(self, update: Update) -> bool:
        """No in general (a transitive module's insertion may run seminaive rounds; see the subclasses)."""
        return False

    def insert_since(self, update: Update, deltas: Mapping[str, str], since: int, generation: int,
                     grown: set[str]) -> RulePlans:
        """``insert`` from the external facts of the rounds ``since``..``generation`` (every earlier
        round's new closure pairs are in R already)."""
        window = [View(since, generation + 1, relation=deltas[p]) for p in sorted(grown)]
        changed = union([pairs(p, w, self.flip) for p, w in zip(sorted(grown), window)])
        external = ir.SemiJoin(changed, ir.Distinct(self.arrivals(update.reasoning)), PAIR)
        yield self.rules[0], self.gained(update, external)

    def arrivals(self, reasoning: Reasoning) -> ir.Node:
        """The facts whose arrival in R can grow the closure (``insert``): the inputs of the new state."""
        return self.inputs(reasoning, NOW, NOW)

    def gained(self, update: Update, changed: ir.Node) -> ir.Node:
        """The closure's new rows from the ``changed`` inputs (Add, 003 section 4's insertion)."""
        reasoning = update.reasoning
        if not self.exact(reasoning):
            sources = self.affected(reasoning, changed, NOW)
            return self.oriented(self.closure(reasoning, NOW, NOW, sources))
        # the mirror of ``lost``: R now holds what both the old and the new inputs give (the intersection of
        # two closures, transitive), so a pair R lacks has on a new path a first fact R lacked, a changed
        # one, whose tail the source reaches; the closure of the inputs both states have lacks the pair
        v = update.views
        now = self.graph(reasoning, NOW, NOW)
        both = ir.SemiJoin(self.graph(reasoning, v.old, v.old), ir.Distinct(now), PAIR)
        return self.oriented(difference(self.compare, now, both, changed, self.choice.irreflexive))
