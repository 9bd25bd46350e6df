"""Applying an update (explicit facts added and deleted) with a chosen maintenance algorithm, atomically.

    E⁻ := (E⁻ ∩ E) \\ E⁺,  E⁺ := E⁺ \\ E            (001 Algorithm 4, line 39; algorithms/explicit.py)
    predicates no rule derives: changed directly (they are the lowest stratum)
    then every stratum in order, with the chosen strategy (algorithms/strategies.py: DRed,
    DRed^c, Counting, FBF, B/F, or rematerialisation)

The explicit facts of a predicate that rules also derive are kept in a relation of
their own (``p#explicit``); for every other predicate E and I coincide. If anything
fails, every relation is rolled back to the generation the update started at.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

from deltalog.algorithms.changes import Changes
from deltalog.algorithms.auto import OverdeletionBudget, OverdeletionBudgetExceeded, choose_automatically
from deltalog.algorithms.dred import MaintenanceUnsupported, aggregates_in_recursion
from deltalog.algorithms.explicit import change_explicit_facts
from deltalog.algorithms.strategies import STRATEGIES, drop_stale_counters
from deltalog.backends.base import DeferredDecoding
from deltalog.errors import UsageError
from deltalog.plan import ir
from deltalog.reasoning.context import Reasoning
from deltalog.reasoning.update import Update, UpdateViews, fact_columns, tuples_of
from deltalog.reasoning.workspace import Role

if TYPE_CHECKING:   # polars stays out of the algorithm layer's imports (the backends return its frames)
    import polars as pl
    from deltalog.io.int_columns import ColumnTable

ALGORITHMS = (*STRATEGIES, "auto")


@dataclass
class UpdateResult:
    """What an update changed, per predicate, and the explicit changes that were no-ops."""

    added: Changes = field(default_factory=Changes)
    removed: Changes = field(default_factory=Changes)
    ignored_additions: dict[str, int] = field(default_factory=dict)
    ignored_deletions: dict[str, int] = field(default_factory=dict)
    overdeleted: dict[str, int] = field(default_factory=dict)
    """Derived facts deleted on the way (001's D: DRed's overdeletion, FBF's unproved facts), per predicate."""
    algorithm: str = ""
    """The algorithm that produced the result: ``remat`` also when ``auto`` abandoned DRed (below)."""
    abandoned: str = ""
    """Why ``auto`` gave up on the algorithm it tried first and rematerialised, e.g.
    ``"dred: overdeleted 41,000 facts, past the budget of 40,020"``; empty if it did not."""
    seconds: float = 0.0


def apply_update(reasoning: Reasoning, add: Mapping[str, pl.DataFrame | ColumnTable],
                 delete: Mapping[str, pl.DataFrame | ColumnTable],
                 algorithm: str = "auto", check=None) -> UpdateResult:
    """Update the materialisation to mat(Π, (E \\ E⁻) ∪ E⁺); all or nothing. ``check()``, called on
    the updated state, may refuse it by raising (then the update is rolled back too).

    Under ``auto``, DRed runs with an overdeletion budget (algorithms/auto.py); when it is exceeded
    the attempt is rolled back like any failed update, and the update is applied again by
    rematerialisation, reported as ``algorithm == "remat"`` with the reason in ``abandoned``."""
    if algorithm not in ALGORITHMS:
        raise UsageError(f"unknown algorithm {algorithm!r} (choose from {', '.join(ALGORITHMS)})")
    started = time.perf_counter()
    try:
        result = attempt(reasoning, add, delete, algorithm, check)
    except OverdeletionBudgetExceeded as exceeded:
        result = attempt(reasoning, add, delete, "remat", check)
        result.abandoned = f"dred: {exceeded}"
    result.seconds = time.perf_counter() - started
    return result


def attempt(reasoning: Reasoning, add, delete, algorithm: str, check=None) -> UpdateResult:
    """Run the update once; on any exception roll every relation back to where it started. Relations are
    compacted only once the update is accepted (its check passed): a rollback revives the rows the update
    deleted, which compaction drops for good."""
    update = Update(reasoning, UpdateViews(reasoning.tick()))
    relations = list(reasoning.backend.relations())
    try:
        result = _run(update, add, delete, algorithm)
        if check is not None:
            check()
        compact_if_worthwhile(update)
        return result
    except BaseException:
        update.workspace.restore_set_aside()
        for relation in set(reasoning.backend.relations()) - set(relations):
            reasoning.backend.drop(relation=relation)   # made by the failed update (counters, scratch)
        for relation in relations:
            reasoning.backend.rollback(relation=relation, generation=update.views.g0)
        raise
    finally:
        update.finish()


def _run(update: Update, add, delete, algorithm: str) -> UpdateResult:
    result = UpdateResult()
    change_explicit_facts(update, add, delete, result.ignored_additions, result.ignored_deletions)
    strategy = STRATEGIES[choose(update, algorithm)]
    if algorithm == "auto":   # an explicitly chosen algorithm runs to completion
        update.budget = OverdeletionBudget()
    drop_stale_counters(update, strategy)
    strategy.run(update)
    result.algorithm = strategy.name
    result.overdeleted = {p: n for p, n in update.overdeleted.items() if n}
    collect_changes(update, result)
    return result


def choose(update: Update, algorithm: str) -> str:
    """The algorithm to run: as asked, except that DRed and FBF need aggregates outside recursion."""
    if algorithm == "remat":
        return "remat"
    if any(aggregates_in_recursion(s) for s in update.reasoning.program.strata):
        if algorithm != "auto":
            raise MaintenanceUnsupported(f"{algorithm} cannot maintain a recursive rule with an aggregate; "
                                         "use algorithm='remat' (or 'auto')")
        return "remat"
    return choose_automatically(update) if algorithm == "auto" else algorithm


# ---- results ---------------------------------------------------------------------------------

def collect_changes(update: Update, result: UpdateResult) -> None:
    """The net changes: facts of the old state that are gone, and facts of the new one that are new
    (read off only for the predicates that changed: every stratum is settled by now, so asking is O(1))."""
    read = read_off_later if isinstance(update.backend, DeferredDecoding) else read_off   # (a Protocol check: once)
    for predicate, arity in sorted(update.reasoning.arities.items()):
        if set_aside := update.workspace.get(Role.SET_ASIDE, predicate):   # rematerialised: compare with it
            before, now, on = tuples_of(set_aside, arity), tuples_of(predicate, arity), fact_columns(arity)
            read(update, result.removed, predicate, ir.Distinct(ir.AntiJoin(before, now, on)))
            read(update, result.added, predicate, ir.Distinct(ir.AntiJoin(now, before, on)))
            continue
        removed, added = update.changes(predicate)
        if removed:
            read(update, result.removed, predicate, gone_facts(update, predicate, arity, added))
        if added:
            read(update, result.added, predicate, new_facts(update, predicate, arity, removed))


def gone_facts(update: Update, predicate: str, arity: int, added: int) -> ir.Node:
    """Deleted facts of the old state that are not live again (revived, or appended anew).

    A live tuple has one live row, so a fact of the old state (a row born before the update and
    alive just before it) is live again only through a row the update added: the two small views of
    the update are compared, not the deleted rows with the whole relation (``new_facts`` likewise),
    and not at all when the update added no row (``added`` == 0: the anti-join would probe the
    relation's index, which the update's appends make the executor extend, for nothing)."""
    v = update.views
    gone = tuples_of(predicate, arity, v.deleted)
    return ir.AntiJoin(gone, tuples_of(predicate, arity, v.added), fact_columns(arity)) if added else gone


def new_facts(update: Update, predicate: str, arity: int, removed: int) -> ir.Node:
    """Facts added by the update that were not in the old state: a row of the old state with the same
    tuple would be alive at the start and dead now (``gone_facts``), so only the deleted rows are read
    (none when ``removed`` == 0)."""
    v = update.views
    new = tuples_of(predicate, arity, v.added)
    return ir.AntiJoin(new, tuples_of(predicate, arity, v.deleted), fact_columns(arity)) if removed else new


def read_off(update: Update, into: Changes, predicate: str, plan: ir.Node) -> None:
    """Evaluate the facts of one side of the change into ``into``. The incremental sides need no
    ``ir.Distinct``: a relation holds at most one live row per tuple (the backend's insert stores only
    tuples not live yet) and at most one row of the old state per tuple, so the added view (live rows
    born since g0) and the deleted one (rows of the old state dead now) are sets already, and so are
    their anti-joins; sorting them again cost 6-7 ms of a 112 ms DAG-R re-add of 1,000 edges."""
    if (frame := update.backend.evaluate(plan=plan)).height:
        into[predicate] = frame


def read_off_later(update: Update, into: Changes, predicate: str, plan: ir.Node) -> None:
    """``read_off`` on a backend that decodes when asked (``DeferredDecoding``): the rows are taken now,
    their frame made when the caller reads one (algorithms/changes.py)."""
    rows, frame = update.backend.evaluate_later(plan=plan)
    if rows:
        into.defer(predicate, frame, rows)


def compact_if_worthwhile(update: Update) -> None:
    """Drop deleted rows once they are at least half of a relation (not of the update's scratch
    relations: they are dropped right after). A relation last found not worth it, with ``rows`` rows, is
    not counted again while its deleted rows stay under half of those: its rows only grew since (a
    1,000-fact LUBM-like update deletes from ~35 relations, each a count otherwise)."""
    backend, scratch, checked = update.backend, set(update.workspace), update.reasoning.compaction_checked
    for relation in backend.relations():
        if relation in scratch:
            continue
        dead = backend.deleted_rows(relation=relation)
        if not dead or 2 * dead < checked.get(relation, 0):
            continue
        rows = backend.count(relation=relation, visible=-1)
        if 2 * dead >= rows:
            backend.compact(relation=relation)
            checked.pop(relation, None)
        else:
            checked[relation] = rows
