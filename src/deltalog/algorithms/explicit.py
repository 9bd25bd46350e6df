"""An update's explicit changes, normalised and applied in one step per predicate (001 Algorithm 4, line 39):

    E⁺ := E⁺ \\ E          E⁻ := (E⁻ ∩ E) \\ E⁺          E := (E \\ E⁻) ∪ E⁺

Each side is loaded as given into a scratch relation (``RAW_ADDED``, ``RAW_DELETED``). A predicate
that rules derive keeps E in a relation of its own (``p#explicit``), and its normalised sides are
also staged (``ADDED``, ``DELETED``: the algorithms read them as the stratum's explicit changes,
and test for them, so such a relation exists iff the update adds / deletes facts of p). A predicate
no rule derives is E itself and no algorithm reads its sides, so its raw sides are applied to it
directly: the backend's insert and delete store exactly E⁺ \\ E and (E⁻ ∩ E) \\ E⁺ and say how many,
which is all the update needs of them (``Update.explicit_changes``). That saves a plan evaluation
and a relation per predicate and side (~0.1 ms each: a 1,000-fact LUBM-like update names ~26
predicates, 22 of them not derived). Where the backend can (``BatchLoading``), such a predicate
with one side only is changed by the side as given, without a scratch relation
(``change_in_place``: all of them in one call), and every other side is loaded in one call. So is a
derived predicate's explicit store with one side only: its staged side is then read back from the rows
that call deleted (added) at its generation, one statement instead of loading the side, comparing it
with E and changing E (three per predicate and side; a 1,000-fact LUBM-like deletion names 4 derived
predicates).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Mapping

from deltalog.backends.base import BatchLoading
from deltalog.plan import ir
from deltalog.plan.rules import View
from deltalog.reasoning.update import Update, fact_columns, tuples_of
from deltalog.reasoning.workspace import Role, explicit_relation

if TYPE_CHECKING:   # polars stays out of the algorithm layer's imports (the backends return its frames)
    import polars as pl
    from deltalog.io.int_columns import ColumnTable

Raw = tuple[str, int] | None
"""A side as given: its scratch relation and the distinct facts in it (None: the update has no such side)."""


def change_explicit_facts(update: Update, add, delete, ignored_additions: dict[str, int],
                          ignored_deletions: dict[str, int]) -> None:
    """Bring E to (E \\ E⁻) ∪ E⁺ for every predicate the update names, recording per predicate the
    facts really added and deleted (``update.explicit_changes``) and the given ones that were no-ops
    (``ignored_*``: already there, or not there to delete)."""
    deleting, adding = update.reasoning.tick(), update.reasoning.tick()   # E⁻ is deleted before E⁺ is added
    add, delete = change_in_place(update, add, delete, (deleting, adding), ignored_additions, ignored_deletions)
    raw = load_raw(update, add, delete)
    for predicate in sorted(set(add) | set(delete)):
        arity = update.reasoning.arities[predicate]
        raw_add, raw_delete = raw.get((Role.RAW_ADDED, predicate)), raw.get((Role.RAW_DELETED, predicate))
        change = stage_derived if predicate in update.reasoning.program.idb else change_directly
        added, deleted = change(update, predicate, arity, raw_add, raw_delete, (deleting, adding))
        update.explicit_changes[predicate] = (deleted, added)
        if raw_add is not None:
            ignored_additions[predicate] = raw_add[1] - added
        if raw_delete is not None:
            ignored_deletions[predicate] = raw_delete[1] - deleted


def change_in_place(update: Update, add, delete, generations: tuple[int, int], ignored_additions: dict[str, int],
                    ignored_deletions: dict[str, int]) -> tuple[dict, dict]:
    """Where the backend can (``BatchLoading``), a predicate no rule derives and that the update only adds
    to (or only deletes from) is changed by its side as given, in one backend call for all of them: its
    insert (delete) stores exactly E⁺ \\ E (deletes E⁻ ∩ E), so neither a scratch relation nor a plan is
    needed (~0.1 ms a predicate: a 1,000-fact LUBM-like update names ~22 of them). A derived predicate
    with one side has it applied to its explicit store the same way, and staged from the rows changed
    (``stage_changed``). The sides left over (predicates with both sides) are returned for ``load_raw``."""
    backend, idb = update.backend, update.reasoning.program.idb
    if not isinstance(backend, BatchLoading):
        return dict(add), dict(delete)
    only_added = {p: t for p, t in add.items() if p not in delete}
    only_deleted = {p: t for p, t in delete.items() if p not in add}
    stored = {p: explicit_relation(p) if p in idb else p for p in only_added.keys() | only_deleted.keys()}
    for p, relation in stored.items():
        if relation != p:   # a derived predicate's explicit store (made at its first explicit fact)
            update.backend.create_relation(relation=relation, arity=update.reasoning.arities[p])
    deleting, adding = generations
    if only_deleted:
        tables = {stored[p]: t for p, t in only_deleted.items()}
        done = backend.delete_tables(tables=tables, generation=deleting)
        for p in only_deleted:
            given, deleted = done[stored[p]]
            update.explicit_changes[p], ignored_deletions[p] = (deleted, 0), given - deleted
            if p in idb:
                stage_changed(update, p, Role.DELETED, View(until=update.views.g0, deleted=(deleting, deleting + 1)))
    if only_added:   # nothing of theirs was deleted in this update, so no row is revived (as by revive_since=g0)
        done = backend.insert_tables(tables={stored[p]: t for p, t in only_added.items()}, generation=adding)
        for p in only_added:
            given, added = done[stored[p]]
            update.explicit_changes[p], ignored_additions[p] = (0, added), given - added
            if p in idb:
                stage_changed(update, p, Role.ADDED, View(since=adding, until=adding + 1))
    return ({p: t for p, t in add.items() if p not in only_added},
            {p: t for p, t in delete.items() if p not in only_deleted})


def stage_changed(update: Update, predicate: str, role: Role, changed: View) -> None:
    """Stage the side (``role``) of a derived predicate that was applied to its explicit store as given:
    the store's rows in ``changed`` (deleted, or born, at that side's generation), which are exactly
    (E⁻ ∩ E) or (E⁺ \\ E) when the update has no other side for it, read there as a view (the store does
    not change again in the update): no copy into a scratch relation (~60-250 us a side and predicate:
    a 1,000-fact LUBM-like deletion stages 4, docs/benchmarks.md stop 23)."""
    update.workspace.stage_view(role, predicate, replace(changed, relation=explicit_relation(predicate)))


def load_raw(update: Update, add: Mapping[str, pl.DataFrame | ColumnTable],
             delete: Mapping[str, pl.DataFrame | ColumnTable]) -> dict[tuple[Role, str], tuple[str, int]]:
    """Every side as given, encoded into its scratch relation (in one call where the backend can),
    by (role, predicate)."""
    tables: dict[tuple[Role, str], tuple[str, pl.DataFrame | ColumnTable]] = {}
    for role, sides in ((Role.RAW_ADDED, add), (Role.RAW_DELETED, delete)):
        for predicate, table in sides.items():
            name = update.workspace.relation(role, predicate, update.reasoning.arities[predicate])
            tables[role, predicate] = (name, table)
    backend, g0 = update.backend, update.views.g0
    if isinstance(backend, BatchLoading):
        loaded = backend.load_many(tables={name: table for name, table in tables.values()}, generation=g0)
    else:
        loaded = {name: backend.load(relation=name, table=table, generation=g0) for name, table in tables.values()}
    return {key: (name, loaded[name]) for key, (name, _) in tables.items()}


def really_deleted(raw_delete: Raw, raw_add: Raw, arity: int) -> ir.Node:
    """E⁻ \\ E⁺ (deleting them from E keeps only those in E)."""
    assert raw_delete is not None
    gone: ir.Node = tuples_of(raw_delete[0], arity)
    if raw_add is not None:
        gone = ir.AntiJoin(gone, tuples_of(raw_add[0], arity), fact_columns(arity))
    return gone


def change_directly(update: Update, predicate: str, arity: int, raw_add: Raw, raw_delete: Raw,
                    generations: tuple[int, int]) -> tuple[int, int]:
    """A predicate no rule derives: its raw sides applied to it; (facts added, facts deleted)."""
    deleting, adding = generations
    added = deleted = 0
    if raw_add is not None:
        added = update.backend.insert(relation=predicate, plan=tuples_of(raw_add[0], arity), generation=adding,
                                      revive_since=update.views.g0)
    if raw_delete is not None:
        deleted = update.backend.delete(relation=predicate, plan=really_deleted(raw_delete, raw_add, arity),
                                        generation=deleting)
    return added, deleted


def stage_derived(update: Update, predicate: str, arity: int, raw_add: Raw, raw_delete: Raw,
                  generations: tuple[int, int]) -> tuple[int, int]:
    """A predicate rules also derive: its normalised sides staged (``ADDED``, ``DELETED``) and applied
    to its explicit facts (``p#explicit``); (facts added, facts deleted)."""
    deleting, adding = generations
    store, g0, backend = explicit_relation(predicate), update.views.g0, update.backend
    backend.create_relation(relation=store, arity=arity)
    known, on = tuples_of(store, arity), fact_columns(arity)
    added = deleted = 0
    if raw_delete is not None:   # staged before E changes: (E⁻ ∩ E) \ E⁺
        minus = update.workspace.relation(Role.DELETED, predicate, arity)
        plan = ir.SemiJoin(really_deleted(raw_delete, raw_add, arity), known, on)
        deleted = backend.insert(relation=minus, plan=plan, generation=g0)
    if raw_add is not None:
        plus = update.workspace.relation(Role.ADDED, predicate, arity)
        added = backend.insert(relation=plus, plan=ir.AntiJoin(tuples_of(raw_add[0], arity), known, on), generation=g0)
        backend.insert(relation=store, plan=tuples_of(plus, arity), generation=adding, revive_since=g0)
    if raw_delete is not None:
        backend.delete(relation=store, plan=tuples_of(minus, arity), generation=deleting)
    return added, deleted

