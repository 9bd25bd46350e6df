"""The symmetric-transitive closure module of 003 section 6 (Algorithms 7-9).

R(x, y) :- R(y, x) and transitivity make each connected component of the external facts X_R
(read as an undirected graph) a clique, R(x, x) included for every node of an edge. The closure
is an ``ir.ComponentPairs`` plan.

That clique relation is also the transitive closure of X_R ∪ X_R⁻¹ (a path of facts read either
way), so maintenance treats the module as a closure over paths of those inputs (``inputs``), whose
closures it compares by their components (``compare``: ``ir.ComponentDifference`` over X_R itself): Del gives the
old cliques' pairs the new components split apart, Add the new cliques' pairs the old components kept
apart, and Red checks the deleted inputs by ``ir.Connects`` (both ends in one component of X_R).
Recomputing the touched components (003 Algorithms 8-9) emitted every pair of each touched clique and
anti-joined them: on RS2 p1's giant component, 160k pairs for a few hundred lost; Claros-like, 1,000
facts re-added, 1.15M pairs for 467k new (docs/benchmarks.md).
"""

from __future__ import annotations

from deltalog.modules.closure import ClosureModule
from deltalog.modules.plans import NOW, swap, union
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.update import Update


class SymmetricModule(ClosureModule):
    """R = the cliques of the components of X_R (003 section 6)."""

    def compare(self, before: ir.Node, after: ir.Node, changed: ir.Node) -> ir.Node:
        return ir.ComponentDifference(before, after, changed)

    def check(self, graph: ir.Node, candidates: ir.Node) -> ir.Node:
        """One labelling of X_R's components (``ir.Connects``), not a search over X_R and its reverse."""
        return ir.Connects(graph, candidates)

    def inputs(self, reasoning: Reasoning, view: View, negative: View, grounded: bool = False) -> ir.Node:
        """X_R read both ways: the edges whose paths R closes."""
        facts = self.external_facts(reasoning, view, negative, grounded)
        return union([facts, swap(facts)])

    def graph(self, reasoning: Reasoning, view: View, negative: View, grounded: bool = False) -> ir.Node:
        """X_R itself: components do not need the reverse of each fact."""
        return self.external_facts(reasoning, view, negative, grounded)

    def inserts_exactly(self, update: Update) -> bool:
        """Yes, unless the rules run seminaively (``ties``): Add gives whole components, and a fact of one,
        arriving again as an input, joins no two components."""
        return not self.ties(update.reasoning.backend)

    def arrivals(self, reasoning: Reasoning) -> ir.Node:
        """X_R alone, not its reverse: a new fact (x, y) arrives in R as it is, and its component is
        recomputed then; R(y, x) arrives a round later from that very component and joins nothing new.
        Matching the reverse too recomputed the components of every re-added fact a second time, for
        no new row (Claros-like, 1,000 facts re-added: ~0.27 s of ~0.5 s)."""
        return self.external_facts(reasoning, NOW, NOW)

    def reach(self, reasoning: Reasoning, view: View, negative: View, sources: ir.Node | None,
              grounded: bool = False) -> ir.Node:
        return ir.ComponentPairs(self.external_facts(reasoning, view, negative, grounded), sources)
