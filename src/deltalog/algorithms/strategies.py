"""The maintenance algorithms as strategy objects: what ``apply_update`` runs for the name asked for.

Each strategy brings the whole materialisation up to date after the explicit changes are
applied. The incremental ones work stratum by stratum, bottom-up (001 Algorithm 4 and its
relatives, 003 Algorithm 3), skipping strata nothing can have changed; rematerialisation
starts the derived relations afresh. A strategy that keeps counters between updates names
them, so that any other strategy drops them (they are only current while used).

An algorithm that works on rule instances (Counting counts them, FBF chains through them) needs
a capability of every module of a stratum (``CountingModule``, ``BackwardModule``);
for a stratum with a module that lacks it, its strategy runs its ``fallback`` on that stratum
(DRed^c for Counting, DRed for FBF and B/F), which needs only the Add/Del/Red/Diff plug-ins
every module has. Mixing is sound: each stratum reads the lower ones through the update's
views, whatever maintained them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Protocol

from deltalog.algorithms.counting import counting_stratum
from deltalog.algorithms.dred import dred_stratum
from deltalog.algorithms.dredc import dredc_stratum
from deltalog.algorithms.fbf import fbf_stratum
from deltalog.analysis.program import Stratum
from deltalog.modules import modules_of
from deltalog.modules.base import BackwardModule, CountingModule, Module
from deltalog.reasoning.update import Update, lower_changes, tuples_of
from deltalog.reasoning.workspace import Counters, Role, explicit_relation

FBF_BUDGET = 100_000
"""Facts FBF's backward chaining may check per stratum before it falls back to DRed's overdeletion."""


class Strategy(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def counters(self) -> Counters | None:
        """The counter relations it keeps between consecutive updates, if any."""

    def run(self, update: Update) -> None:
        """Bring every derived relation in line with the explicit facts (already changed)."""


@dataclass(frozen=True)
class StratumByStratum:
    """An incremental algorithm: ``maintain`` each stratum in turn that the update may change."""

    name: str
    maintain: Callable[[Update, Stratum], None]
    counters: Counters | None = None
    needs: Callable[[Module], bool] | None = None   # a capability every module of a stratum must have
    fallback: Callable[[Update, Stratum], None] | None = None   # for a stratum with a module lacking it

    def run(self, update: Update) -> None:
        for stratum in update.reasoning.program.strata:
            unchanged = untouched(update, stratum)
            if not unchanged:
                self.for_stratum(stratum)(update, stratum)
            update.settle(stratum.predicates, unchanged)

    def for_stratum(self, stratum: Stratum) -> Callable[[Update, Stratum], None]:
        """``maintain``, or ``fallback`` if a module of the stratum lacks the capability it ``needs``."""
        if self.needs is None or self.fallback is None or all(self.needs(m) for m in modules_of(stratum)):
            return self.maintain
        return self.fallback


def counts_instances(module: Module) -> bool:
    return isinstance(module, CountingModule)


def chains_backward(module: Module) -> bool:
    return isinstance(module, BackwardModule)


def untouched(update: Update, stratum: Stratum) -> bool:
    """No explicit change to the stratum's predicates and no change to anything its rules read:
    nothing in it can change (the common case for most strata of a small update)."""
    if update.workspace.any_of(Role.ADDED, stratum.predicates) or update.workspace.any_of(Role.DELETED,
                                                                                          stratum.predicates):
        return False
    lost, gained = lower_changes(update, stratum, stratum.rules)
    return not lost and not gained


@dataclass(frozen=True)
class Rematerialise:
    """Set the derived predicates' relations aside, start them afresh from the explicit facts and
    materialise; the old relations stay (as scratch) until the changes are read off."""

    name: str = "remat"
    counters: Counters | None = None

    def run(self, update: Update) -> None:
        from deltalog.algorithms.seminaive import materialise
        reasoning, backend = update.reasoning, update.backend
        started = time.perf_counter()
        generation = reasoning.tick()
        for predicate in sorted(reasoning.program.idb):
            arity = reasoning.arities[predicate]
            update.workspace.set_aside(predicate)
            backend.create_relation(relation=predicate, arity=arity)
            explicit = explicit_relation(predicate)
            if explicit in backend.relations():
                backend.insert(relation=predicate, plan=tuples_of(explicit, arity), generation=generation)
        materialise(reasoning)
        reasoning.record_phase("rematerialisation", 0, 0, time.perf_counter() - started)


STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    StratumByStratum("dred", dred_stratum),
    StratumByStratum("dredc", dredc_stratum, Counters.NONRECURSIVE),
    StratumByStratum("counting", counting_stratum, Counters.TRACE, counts_instances, dredc_stratum),
    StratumByStratum("fbf", partial(fbf_stratum, budget=FBF_BUDGET), None, chains_backward, dred_stratum),
    # B/F: FBF that never gives up checking
    StratumByStratum("bf", partial(fbf_stratum, budget=None), None, chains_backward, dred_stratum),
    Rematerialise(),
)}


def drop_stale_counters(update: Update, strategy: Strategy) -> None:
    """Forget the counters of every strategy but the running one: only consecutive updates by the
    same algorithm keep them current."""
    stale = [other.counters for other in STRATEGIES.values()
             if other.counters is not None and other.counters is not strategy.counters]
    if not stale:
        return
    stored = update.backend.relations()   # one listing, not a drop per strategy and derived predicate
    for counters in stale:
        for predicate in update.reasoning.program.idb:
            if (name := counters.relation(predicate)) in stored:
                update.backend.drop(relation=name)
