"""The symmetric-transitive closure module of 003 section 6 (Algorithms 7-9).

R(x, y) :- R(y, x) and transitivity make each connected component of the external facts X_R
(read as an undirected graph) a clique, R(x, x) included for every node of an edge. The closure
is an ``ir.ComponentPairs`` plan; maintenance recomputes only the components that lost or gained
an edge (the affected sources of modules/closure.py are then the components' nodes, because
R(x, tail) holds for every x of the tail's component), splits them and reports the lost pairs.
"""

from __future__ import annotations

from deltalog.modules.closure import ClosureModule
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.context import Reasoning


class SymmetricModule(ClosureModule):
    """R = the cliques of the components of X_R (003 section 6)."""

    def paths(self, reasoning: Reasoning) -> bool:
        return False   # a component's nodes are the affected sources already

    def reach(self, reasoning: Reasoning, view: View, negative: View, sources: ir.Node | None,
              grounded: bool = False) -> ir.Node:
        return ir.ComponentPairs(self.external_facts(reasoning, view, negative, grounded), sources)
