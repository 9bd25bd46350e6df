"""What a closure module of 003 sections 5 and 6 computes over: its external facts, the sources a change
affects, R's rows, and the closure plan of them (the plug-ins built on these: closure.py).

A closure module owns the rules that make a binary predicate R transitive (and symmetric). It
never evaluates them as rule instances: it asks the backend for a closure plan
(``ir.TransitiveClosure`` / ``ir.ComponentPairs``, evaluated by the backend's kernel) over the
*external* facts X_R, the R facts the other rules of R and the explicit facts give (003 section
5's X_R). Instead of keeping X_R as a set (003 keeps it globally), X_R is re-read from those
rules in the view at hand, so it is always current in every algorithm and needs no storage.

An *irreflexive* module (``x != z`` on its transitivity or step rules, analysis/modules.py) gives
the closure pairs (x, y) with x != y and the diagonal facts of X_R (``closure``); every plug-in
(closure.py) works unchanged on that. The proof (a simple path between distinct nodes) needs distinct
constants to compare unequal, which fails for an int and a float of the same value (``1 != 1.0``
is false, docs/semantics.md): while the backend may hold both kinds, the module hands every
plug-in to seminaive evaluation of its rules (``ties``), which needs no such argument.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Sequence

from deltalog.analysis.modules import ModuleChoice
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.backends.base import Backend, EncodedColumns
from deltalog.modules.seminaive import SeminaiveModule
from deltalog.modules.plans import PAIR, apart, column, diagonal, keyed, pairs, swap, union
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import AggregatesIn, NegationsIn
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.workspace import explicit_relation


@dataclass
class ClosureInputs(ABC):
    """A closure module's view of R: its rules, its external facts and the closure of them; subclasses say
    how a closure is computed (``reach``)."""

    choice: ModuleChoice
    stratum: Stratum
    rules: tuple[RuleInfo, ...] = field(init=False)
    predicates: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.rules, self.predicates = self.choice.rules, self.stratum.predicates
        self.r = self.choice.predicate
        claimed = {id(info) for info in self.rules}
        self.external = tuple(info for info in self.stratum.rules
                              if info.head.predicate == self.r and id(info) not in claimed)

    @property
    def flip(self) -> bool:
        return self.choice.flip

    def ties(self, backend: Backend) -> SeminaiveModule | None:
        """For an irreflexive module while two different constants may compare equal (an int and a
        float of the same value, both interned; any backend that does not say): the seminaive module
        of its rules, which every plug-in then delegates to."""
        if not self.choice.irreflexive:
            return None
        if isinstance(backend, EncodedColumns) and not backend.dictionary.numeric_ties():
            return None
        return SeminaiveModule(self.rules, self.predicates)

    # ---- what subclasses define --------------------------------------------------------------

    @abstractmethod
    def reach(self, reasoning: Reasoning, view: View, negative: View, sources: ir.Node | None,
              grounded: bool = False) -> ir.Node:
        """The closure of the module's inputs as if its rules had no ``!=`` (for ``sources`` only, if
        given); ``grounded``: only the external facts of explicit facts and nonrecursive rules (see
        ``external_facts``)."""

    def closure(self, reasoning: Reasoning, view: View, negative: View, sources: ir.Node | None,
                grounded: bool = False) -> ir.Node:
        """R's rows (for ``sources`` only, if given) that the external facts in ``view`` give: ``reach``,
        for an irreflexive module its pairs x != y and the diagonal facts of the inputs."""
        full = self.reach(reasoning, view, negative, sources, grounded)
        if not self.choice.irreflexive:
            return full
        return self.irreflexive(full, self.inputs(reasoning, view, negative, grounded), sources, "c0")

    @staticmethod
    def irreflexive(full: ir.Node, given: ir.Node, keys: ir.Node | None, column: str) -> ir.Node:
        """An irreflexive module's rows: the pairs x != y of ``full`` and the diagonal facts of its inputs
        ``given`` (those whose ``column`` is among ``keys``, if given)."""
        if keys is not None:
            given = ir.SemiJoin(given, ir.Project(keys, ((column, ir.Col(keys.columns[0])),)), (column,))
        return ir.Union_((apart(full), ir.Distinct(diagonal(given))))

    def inputs(self, reasoning: Reasoning, view: View, negative: View, grounded: bool = False) -> ir.Node:
        """The facts whose change can change R (X_R; for a linear module the steps too), as (c0, c1)."""
        return self.external_facts(reasoning, view, negative, grounded)

    def step_predicates(self) -> tuple[str, ...]:
        return ()

    def compare(self, before: ir.Node, after: ir.Node, changed: ir.Node) -> ir.Node:
        """The pairs the closure of the graph ``before`` has and that of ``after`` has not, from the
        ``changed`` facts' tails (maintenance, modules/closure.py): ``ir.ClosureDifference``."""
        return ir.ClosureDifference(before, after, changed)

    def check(self, graph: ir.Node, candidates: ir.Node) -> ir.Node:
        """The ``candidates`` (pairs) the closure of the ``graph`` holds: ``ir.Reaches``."""
        return ir.Reaches(graph, candidates)

    def graph(self, reasoning: Reasoning, view: View, negative: View, grounded: bool = False) -> ir.Node:
        """The edges ``compare`` and ``check`` read: the ``inputs``, whose paths R closes."""
        return self.inputs(reasoning, view, negative, grounded)

    # ---- external facts and affected sources -------------------------------------------------

    def external_facts(self, reasoning: Reasoning, view: View, negative: View, grounded: bool = False) -> ir.Node:
        """X_R in a view: the explicit facts of R and the heads of R's other rules (negated atoms
        checked in ``negative``), as (c0, c1), oriented as the module sees R.

        ``grounded`` leaves out the rules of the same stratum (other modules'): during overdeletion
        their facts may rest on R facts this module is about to delete (r :- q, q :- r, a cycle
        of support), so what survives is decided on the nonrecursive support alone, as DRed^c's
        overdeletion stops only at facts with a nonrecursive derivation (003 Definition 6's J_l);
        facts the other rules still give come back through Red and insertion."""
        return self.facts_of(reasoning, self.r, self.external, view, negative, grounded)

    def facts_of(self, reasoning: Reasoning, predicate: str, rules: Sequence[RuleInfo], view: View,
                 negative: View, grounded: bool) -> ir.Node:
        """A binary predicate's explicit facts and the heads of ``rules`` in a view, as (c0, c1) in the
        module's orientation; ``grounded``: the rules of the same stratum left out (``external_facts``)."""
        parts: list[ir.Node] = []
        explicit = explicit_relation(predicate)
        if explicit in reasoning.backend.relations():
            parts.append(pairs(explicit, view, self.flip))
        recursive = {id(info) for info in self.stratum.recursive}
        for info in rules:
            if grounded and id(info) in recursive:
                continue
            n = len(info.positive)
            plan = rule_plan(info, [view] * n, reasoning, NegationsIn((negative,) * len(info.negative)),
                             AggregatesIn(view))
            parts.append(swap(plan) if self.flip else plan)
        return union(parts)

    def affected(self, reasoning: Reasoning, changed: ir.Node, view: View) -> ir.Node:
        """Sources whose rows can change when ``changed`` edges appear or go: their tails and every
        x with R(x, tail) in ``view`` (for a symmetric R: the tails' whole components)."""
        tails = ir.Distinct(column(changed, "c0", "t"))
        terms = (ir.Col("t"), ir.Col("c0")) if self.flip else (ir.Col("c0"), ir.Col("t"))
        before = ir.Join(tails, ir.Scan(self.r, terms, view.since, view.until, None, view.visible, view.deleted),
                         ("t",))
        return ir.Distinct(ir.Union_((column(tails, "t"), column(before, "c0"))))

    def rows_of(self, sources: ir.Node, view: View) -> ir.Node:
        """R's rows in a view whose source is one of ``sources`` (probing R's index from the sources)."""
        joined = ir.Join(sources, keyed(self.r, view, self.flip), ("c0",))
        return ir.Project(joined, tuple((c, ir.Col(c)) for c in PAIR))

    def oriented(self, plan: ir.Node) -> ir.Node:
        """A plan in the module's orientation as R's columns."""
        return swap(plan) if self.flip else plan

    def new_inputs(self, reasoning: Reasoning, windows: Sequence[View]) -> ir.Node:
        """The inputs among the facts other modules stored in ``windows`` (Add's Δ \\ Δ_i): every R fact
        another module gives is an external fact (X_R), and so is a step of the stratum."""
        return self.changed_facts(windows)

    def changed_facts(self, windows: Sequence[View], predicates: set[str] | None = None) -> ir.Node:
        """R's facts (and a linear module's steps of this stratum) in some views."""
        names = [self.r] + [s for s in self.step_predicates() if s in self.predicates]
        return union([pairs(p, w, self.flip) for p in names if predicates is None or p in predicates
                      for w in windows])

    # ---- whether the closure is over paths of grounded inputs --------------------------------

    def paths(self, reasoning: Reasoning) -> bool:
        """Whether R(x, z) holds exactly when a path of external facts leads from x to z and every
        external fact is grounded (no rule of the stratum gives one). Then a pair (x, z) the update
        takes away is lost by a tail u of a deleted fact too: on an old path from x to z, the first
        fact missing now is (u, v), x still reaches u, so u cannot reach z any more. Del then needs
        the sources that reach a tail only (``ir.ClosureDifference`` with the deleted facts), not the
        rows of every source. Subclasses whose closure is not over paths say False."""
        recursive = {id(info) for info in self.stratum.recursive}
        return not any(id(info) in recursive for info in self.external)

    def exact(self, reasoning: Reasoning) -> bool:
        """``paths``, and no input is a fact of this stratum (no step of the stratum): then Del's losses are
        exact w.r.t. the final inputs, so the only deleted facts that can come back are deleted inputs."""
        return self.paths(reasoning) and not set(self.step_predicates()) & self.predicates
