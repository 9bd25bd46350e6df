"""The module plug-in contract of 003 section 4: Add, Diff, Del and Red for one module of a stratum.

A module is a set of recursive rules of one stratum with its own way to apply them. Add closes
the facts under them during materialisation (MAT-MOD, 003 Algorithm 2) and deriving is the
module's business there. During maintenance (003 Algorithm 3) the plug-ins return the rule
instances to evaluate as plans, one per rule: the algorithm layer (algorithms/dred.py) decides
where their facts go (overdeletion candidates, rederived facts, insertion deltas) and counts them,
so the delta bookkeeping stays in one place and a module only knows its rules and the views.
"""

from __future__ import annotations

from typing import Iterator, Protocol, Sequence

from deltalog.analysis.program import RuleInfo
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.update import Update

Window = tuple[int, int | None]
RulePlans = Iterator[tuple[RuleInfo, ir.Node]]
"""Plans of rule instances, each with the rule it belongs to (for statistics and the head predicate)."""


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

    def rederive(self, update: Update, predicate: str) -> RulePlans:
        """Red^{s,i} (line 242): the deleted facts of ``predicate`` the rules derive again from the
        surviving facts."""

    def insert(self, update: Update, deltas: dict[str, str], generation: int, grown: set[str]) -> RulePlans:
        """Add^{s,i} during maintenance (line 251), one round: consequences in the new materialisation of
        the facts stored at ``generation`` in ``deltas`` (scratch relations per predicate)."""
