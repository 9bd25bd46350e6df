"""The module plug-in contract of 003 section 4: Add, Diff, Del and Red for one module of a stratum.

A module is a set of recursive rules of one stratum with its own way to apply them. Add closes
the facts under them during materialisation (MAT-MOD, 003 Algorithm 2) and deriving is the
module's business there. During maintenance (003 Algorithm 3) the plug-ins return the rule
instances to evaluate as plans, one per rule: the algorithm layer (algorithms/dred.py) decides
where their facts go (overdeletion candidates, rederived facts, insertion deltas) and counts them,
so the delta bookkeeping stays in one place and a module only knows its rules and the views.

Two algorithms work on the rule instances themselves rather than on the facts a module derives:
Counting (001 Algorithms 2-3) counts them per fact and iteration, and FBF (001 Algorithm 5) chains
through them backward and forward. They need two more pairs of plug-ins, each a capability
Protocol of its own: :class:`CountingModule` (``instances``, ``negated_instances``) and
:class:`BackwardModule` (``backward``, ``forward``); a module has a capability by implementing its
plug-ins (``isinstance(module, CountingModule)``). A module that derives without enumerating rule
instances (a closure module, 003 section 5) implements neither; the strategy then maintains its
stratum with an algorithm that needs only Add/Del/Red/Diff (algorithms/strategies.py), so no
algorithm tests which kind of module it has.
"""

from __future__ import annotations

from typing import Callable, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from deltalog.analysis.program import RuleInfo
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.update import Update
from deltalog.syntax.ast import Atom

Window = tuple[int, int | None]
RulePlans = Iterator[tuple[RuleInfo, ir.Node]]
"""Plans of rule instances, each with the rule it belongs to (for statistics and the head predicate)."""
InstancePlans = Iterator[tuple[RuleInfo, list[ir.Node]]]
"""Per rule, plans of the bindings of its instances (``plan.rules.instance_bindings``: one row per
instance); the caller unions them and counts distinct bindings (``plan.rules.count_instances``)."""
BodyPlans = Iterator[tuple[RuleInfo, Atom, ir.Node]]
"""Plans of the tuples of one body atom over the instances of a rule."""
AtomViews = Callable[[Atom], View]
"""The view an atom of a rule body reads (decided by the algorithm, e.g. per run for Counting)."""
DeltaViews = Callable[[Atom], "View | None"]
"""The view an atom is matched in as the delta of an instance, or None if it cannot be."""


@runtime_checkable
class Module(Protocol):
    """A set of recursive rules of one stratum with a custom way to apply them (003 section 4)."""

    rules: tuple[RuleInfo, ...]
    predicates: frozenset[str]   # the stratum's predicates (the module's rules read the others as final)

    def add(self, reasoning: Reasoning, delta: Sequence[Window]) -> list[Window]:
        """Add^{s,i} (003 Algorithm 2, line 14): derive every consequence of the rules that depends on the
        facts in ``delta`` (generation windows), inserting them at fresh generations; return the windows
        it wrote."""

    def diff(self, update: Update, positive: set[str], negative: set[str], base: View, positive_delta: View,
             negative_delta: View) -> RulePlans:
        """Diff^{s,i} (003 Algorithm 3, lines 224 and 243): the instances with a positive atom over a lower
        predicate in ``positive`` (read in ``positive_delta``) or a negated one in ``negative``."""

    def delete(self, update: Update, previous: int, shrunk: set[str]) -> RulePlans:
        """Del^{s,i} (line 229), one round: the heads of instances over the surviving facts with a body atom
        among the facts deleted at generation ``previous`` (``shrunk``: the predicates that lost some)."""

    def deletes_exactly(self, update: Update) -> bool:
        """Whether every fact ``delete`` returns is gone for good (in no new materialisation, so no check can
        keep it) and none is a fact this module's Del reads as deleted (so deleting them gives its Del
        nothing more). Overdeletion then deletes those facts as they come, unchecked, at a generation of
        their own, which every other module takes as a round of deletions and this one skips
        (algorithms/overdeletion.py)."""

    def rederive(self, update: Update, predicate: str) -> RulePlans:
        """Red^{s,i} (line 242): the deleted facts of ``predicate`` the rules derive again from the
        surviving facts."""

    def holds(self, update: Update, predicate: str, candidates: ir.Node) -> RulePlans:
        """The overdeletion ``candidates`` of ``predicate`` (all columns) that the rules derive in the new
        materialisation for sure, from final facts only (the lower strata and the explicit facts): DRed's
        check before deleting (algorithms/lowerbound.py) keeps them, as DRed^c's overdeletion stops at
        facts it knows stay (003 Definition 6's J_l). May yield nothing."""

    def rederive_unheld(self, update: Update, predicate: str) -> RulePlans:
        """Red after a check that asked ``holds`` of every deleted fact (DRed's): the deleted facts of
        ``predicate`` the rules derive again that ``holds`` did not already answer for."""

    def insert(self, update: Update, deltas: Mapping[str, str], generation: int, grown: set[str]) -> RulePlans:
        """Add^{s,i} during maintenance (line 251), one round: consequences in the new materialisation of
        the facts stored at ``generation`` in ``deltas`` (scratch relations per predicate)."""

    def inserts_exactly(self, update: Update) -> bool:
        """Whether ``insert`` gives in one round every fact its rules derive from the round's facts onward,
        so that its own facts give it nothing more: insertion then does not ask it about a round whose new
        facts of a predicate all came from its own ``insert`` (algorithms/insertion.py)."""


@runtime_checkable
class CountingModule(Module, Protocol):
    """A module whose rule instances Counting can count (001 Algorithms 2-3)."""

    def instances(self, update: Update, whole: AtomViews, delta: DeltaViews, negative: AtomViews) -> InstancePlans:
        """inst[I : Δ] (001 (67)-(69)): for each rule, one binding plan per positive atom j with a view
        ``delta(atom_j)``, atom j read there and the other positive atoms in ``whole``, negated atoms
        anti-joined in ``negative``; rules with no such atom are left out."""

    def negated_instances(self, update: Update, whole: AtomViews, negative: AtomViews,
                          matched: DeltaViews) -> InstancePlans:
        """The instances that a fact in ``matched(atom_j)`` of negated atom j blocks (001 (157), matched
        positively): positive atoms in ``whole``, the other negated atoms anti-joined in ``negative``."""


@runtime_checkable
class BackwardModule(Module, Protocol):
    """A module FBF can chain through, backward and forward (001 Algorithm 5)."""

    def backward(self, update: Update, heads: Callable[[str], View], body: View, negative: View) -> BodyPlans:
        """For each rule and each positive body atom over the stratum: that atom's tuples in the instances
        over ``body`` (negated atoms anti-joined in ``negative``) whose head is in ``heads(head predicate)``."""

    def forward(self, update: Update, relations: dict[str, str], delta: int, lower: View,
                negative: View) -> RulePlans:
        """One seminaive round over scratch relations (``relations``: one per stratum predicate): the heads
        of the instances with a stratum atom among the rows stored there at generation ``delta``, the
        other stratum atoms in those relations, lower atoms in ``lower``, negated ones anti-joined in
        ``negative``."""
