"""What every maintenance algorithm shares: the update's explicit changes and the views of 001's sets.

The materialisation is updated in place. Every row carries the generation that inserted
it and, once deleted, the one that deleted it; an update starts at generation g0, and a
fact deleted and then re-derived during the update is revived (001's disjoint
formalisation: it leaves D instead of entering A). The sets of 001 are then plain scans:

    I            old materialisation      born < g0, alive at g0-1
    I \\ D        surviving (= I ∩ I')     born < g0, alive now
    I ∪ A        old or added             alive at g0-1 (born any time)
    (I \\ D) ∪ A  new materialisation      alive now
    D            deleted                  born < g0, deleted at >= g0
    A            added                    born >= g0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Protocol

from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.memo import IdentityMemo
from deltalog.plan import ir
from deltalog.plan.rules import FULL, View
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.workspace import Workspace, explicit_relation
from deltalog.syntax.ast import literal_atoms


@dataclass(frozen=True)
class UpdateViews:
    """The views of an update that started at generation g0. Each is made once per update (a View is a
    frozen dataclass: ~12 profile events to build) though the algorithms ask for them ~500 times in a
    1,000-fact LUBM-like deletion; they are immutable, so sharing one is exact."""

    g0: int

    @cached_property
    def old(self) -> View:
        return View(until=self.g0, visible=self.g0 - 1)

    @cached_property
    def surviving(self) -> View:
        return View(until=self.g0)

    @cached_property
    def old_or_added(self) -> View:
        return View(visible=self.g0 - 1)

    @cached_property
    def new(self) -> View:
        return View()

    @cached_property
    def deleted(self) -> View:
        return View(until=self.g0, deleted=(self.g0, None))

    @cached_property
    def added(self) -> View:
        return View(since=self.g0)

    def deleted_at(self, generation: int) -> View:
        """Facts of I deleted at one generation (an overdeletion round's delta)."""
        return View(until=self.g0, deleted=(generation, generation + 1))

    def alive_after(self, generation: int) -> View:
        """Facts of I not deleted by the end of ``generation``."""
        return View(until=self.g0, visible=generation)


class Budget(Protocol):
    """A limit on the facts an update may overdelete (auto.OverdeletionBudget): ``spend`` raises
    once it is passed, which abandons the update (it is rolled back)."""

    def spend(self, update: "Update", predicate: str, facts: int) -> None: ...


@dataclass
class Update:
    """One update in progress: its views, its scratch relations, and the derived facts it deleted."""

    reasoning: Reasoning
    views: UpdateViews
    overdeleted: dict[str, int] = field(default_factory=dict)   # facts deleted per predicate (some come back)
    budget: Budget | None = None   # None: run to completion (every explicitly chosen algorithm)
    workspace: Workspace = field(init=False)
    # (removed, added) of predicates that cannot change any more in this update: those of finished strata
    # (``settle``), so that later strata ask nothing of the backend about them
    settled: dict[str, tuple[int, int]] = field(default_factory=dict)
    # (deleted, added) explicit facts per predicate the update names, after normalisation
    # (algorithms/explicit.py): for a predicate no rule derives, its whole change
    explicit_changes: dict[str, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.workspace = Workspace(self.reasoning.backend)
        self._explicit_stores: frozenset[str] | None = None

    def explicit_store(self, predicate: str) -> str | None:
        """The relation of a derived predicate's explicit facts (``p#explicit``) if it has one. They are
        made only when explicit changes are applied, before any stratum is maintained, so the stored
        relations are listed once per update, not once per predicate and stratum (~30 listings of ~150
        relations a 1,000-fact LUBM-like deletion)."""
        if self._explicit_stores is None:
            self._explicit_stores = frozenset(self.backend.relations())
        name = explicit_relation(predicate)
        return name if name in self._explicit_stores else None

    def delete(self, predicate: str, plan, generation: int, metrics: dict[str, int] | None = None) -> int:
        """Delete facts of a derived predicate during maintenance, counting them (001's set D)
        against the budget: every algorithm's deletions of derived facts pass through here
        (``metrics``: the backend's, for plans with labelled rule projections)."""
        n = self.backend.delete(relation=predicate, plan=plan, generation=generation, metrics=metrics)
        self.overdeleted[predicate] = self.overdeleted.get(predicate, 0) + n
        if self.budget is not None and n:
            self.budget.spend(self, predicate, n)
        return n

    @property
    def backend(self):
        return self.reasoning.backend

    def count(self, predicate: str, view: View) -> int:
        return self.backend.count(relation=view.relation or predicate, since=view.since, until=view.until,
                                  visible=view.visible, deleted=view.deleted)

    def removed(self, predicate: str) -> int:
        """Facts of the old state the update deleted so far (``D``)."""
        return self.changes(predicate)[0]

    def added(self, predicate: str) -> int:
        """Facts the update added so far (``A``)."""
        return self.changes(predicate)[1]

    def changes(self, predicate: str) -> tuple[int, int]:
        """(removed, added) of a predicate: O(1) once it is settled; a predicate no rule derives (changed
        before any stratum runs, by its explicit changes only) is settled at first sight, without asking."""
        found = self.settled.get(predicate)
        if found is not None:
            return found
        if predicate in self.reasoning.program.idb:
            return self.counted_changes(predicate)
        found = self.explicit_changes.get(predicate, (0, 0))
        self.settled[predicate] = found
        return found

    def counted_changes(self, predicate: str) -> tuple[int, int]:
        """(removed, added) of a predicate, asked of the backend."""
        return self.count(predicate, self.views.deleted), self.count(predicate, self.views.added)

    def settle(self, predicates, unchanged: bool = False) -> None:
        """A stratum is done: its predicates' changes are final (``unchanged``: known to be none)."""
        for p in predicates:
            self.settled[p] = (0, 0) if unchanged else self.counted_changes(p)

    def finish(self) -> None:
        self.workspace.drop_all()


@lru_cache(maxsize=64)
def fact_columns(arity: int) -> tuple[str, ...]:
    """The columns c0..ck of a stored relation's facts (``tuples_of``'s, and the key they join on)."""
    return tuple(f"c{i}" for i in range(arity))


def tuples_of(relation: str, arity: int, view: View | None = None, names: tuple[str, ...] | None = None) -> ir.Scan:
    """All tuples of a stored relation in a view, columns c0..ck (or ``names``)."""
    view = view or FULL
    return ir.Scan(view.relation or relation, column_terms(names or fact_columns(arity)), view.since,
                   view.until, None, view.visible, view.deleted)


@lru_cache(maxsize=1024)
def column_terms(names: tuple[str, ...]) -> tuple[ir.Col, ...]:
    """The terms naming ``names`` (shared: a small update builds ~130 such scans, and Cols are immutable)."""
    return tuple(ir.Col(n) for n in names)


_READ: IdentityMemo[frozenset[str]] = IdentityMemo(limit=4096)


def predicates_read(rules) -> frozenset[str]:
    """Every predicate the rules' bodies read (inside negations and aggregates too); remembered per rules
    tuple (strata keep theirs), since every stratum of every update asks."""
    def read() -> frozenset[str]:
        return frozenset(a.predicate for r in rules for lit in r.rule.body for a in literal_atoms(lit))
    return _READ.get(rules, read) if isinstance(rules, tuple) else read()


def lower_changes(update: Update, stratum: Stratum, rules: tuple[RuleInfo, ...]) -> tuple[set[str], set[str]]:
    """Predicates of lower strata (read by these rules) that lost facts, and that gained facts."""
    lost, gained = set(), set()
    for p in predicates_read(rules) - stratum.predicates:
        removed, added = update.changes(p)
        if removed:
            lost.add(p)
        if added:
            gained.add(p)
    return lost, gained
