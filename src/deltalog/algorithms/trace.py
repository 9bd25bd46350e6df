"""Counting's trace (001 section 5, Algorithm 2): per-iteration counters of rule instances, and their upkeep.

For each derived predicate p, ``p#counting`` holds the trace of the counting seminaive
materialisation, one row per fact and stratum iteration i: (fact..., i, n), n the number of
rule instances deriving the fact in iteration i (an explicit fact counts once, in iteration 1).
The stratum is implicit in the predicate. This file reads and writes the trace (``counters``,
``store_counts``), counts it from the old materialisation on first use (Algorithm 2, over the
instances the stratum's modules enumerate: ``Module.instances``) and brings the derived
relations in line with it (``store_facts``); algorithms/counting.py maintains it (Algorithm 3).
"""

from __future__ import annotations

from deltalog.algorithms.dredc import (insert_counts, net_changes, nonzero, old_explicit, rule_counts,
                                       stored_rows_for, summed)
from deltalog.analysis.program import Stratum
from deltalog.modules import counting_modules
from deltalog.plan import ir
from deltalog.plan.rules import View, count_instances
from deltalog.reasoning.update import Update, fact_columns, tuples_of
from deltalog.reasoning.workspace import Counters, Role
from deltalog.syntax.ast import Atom, Constant


def counter_relation(predicate: str) -> str:
    return Counters.TRACE.relation(predicate)


def fact_set(update: Update, role: Role, predicate: str) -> str:
    """The update's scratch set of ``role`` for one predicate (fact columns), created on first use."""
    return update.workspace.relation(role, predicate, arity_of(update, predicate))


# ---- the trace: N_i^s per predicate --------------------------------------------------------------

def arity_of(update: Update, predicate: str) -> int:
    return update.reasoning.arities[predicate]


def old_trace(update: Update) -> View:
    """The counters as they are now, before this stratum changes them (rows born and alive by now)."""
    now = update.reasoning.tick()
    return View(until=now, visible=now - 1)


def counters(update: Update, predicate: str, iteration: int, view: View | None = None) -> ir.Scan:
    """N_i for one predicate in a view of the counters: columns c0..ck and n."""
    view, arity = view or View(), arity_of(update, predicate)
    terms: tuple[ir.Col | ir.Lit, ...] = tuple(ir.Col(c) for c in fact_columns(arity))
    terms += (ir.Lit(Constant(iteration, "int")), ir.Col("n"))
    return ir.Scan(counter_relation(predicate), terms, view.since, view.until, None, view.visible, view.deleted)


def facts(plan: ir.Node, arity: int) -> ir.Node:
    """The distinct facts of a counter plan."""
    return ir.Distinct(ir.Project(plan, tuple((c, ir.Col(c)) for c in fact_columns(arity))))


def with_iteration(plan: ir.Node, arity: int, iteration: int) -> ir.Node:
    """Counter rows (c0..ck, n) as stored: fact columns, the iteration, the count."""
    outputs = tuple((c, ir.Col(c)) for c in fact_columns(arity))
    extra = ((f"c{arity}", ir.Lit(Constant(iteration, "int"))), (f"c{arity + 1}", ir.Col("n")))
    return ir.Project(plan, outputs + extra)


def store_counts(update: Update, predicate: str, iteration: int, changes: list[ir.Node]) -> None:
    """N_i := N_i ⊕ changes (signed counts); rows reaching zero disappear, and the facts are marked touched."""
    arity, relation = arity_of(update, predicate), counter_relation(predicate)
    key, generation = fact_columns(arity), update.reasoning.tick()
    change = net_changes(update, predicate, arity, changes, generation)
    current = stored_rows_for(counters(update, predicate, iteration), change, key)
    staged = update.workspace.relation(Role.STAGED_COUNTS, predicate, arity + 2)
    update.backend.clear(relation=staged)   # (a row staged for another iteration must not hide an equal one)
    update.backend.insert(relation=staged, plan=with_iteration(nonzero(summed([current, change], arity)), arity,
                                                               iteration), generation=generation)
    update.backend.insert(relation=fact_set(update, Role.TOUCHED, predicate), generation=generation,
                          plan=ir.Project(change, tuple((k, ir.Col(k)) for k in key)))
    update.backend.delete(relation=relation, plan=with_iteration(current, arity, iteration), generation=generation)
    update.backend.insert(relation=relation, plan=tuples_of(staged, arity + 2), generation=update.reasoning.tick())


# ---- Algorithm 2: the trace of the old materialisation, on first use ------------------------------

def count_trace(update: Update, stratum: Stratum) -> None:
    """N_1 := (E ∩ Out^s) ⊎ Π_nr^s[I]; loop: Δ := N_i \\ I; stop if Δ = ∅; I := I ∪ Δ; N_i+1 := Π_r^s[I : Δ]
    (lines 11-18, over the old facts: lower strata and E read as they were before this update)."""
    v, generation = update.views, update.reasoning.tick()
    for p in sorted(stratum.predicates):
        arity = arity_of(update, p)
        update.backend.create_relation(relation=counter_relation(p), arity=arity + 2)
        fact_set(update, Role.TRACE_FACTS, p)
        parts = [old_explicit(update, p, v.old)]
        parts += [rule_counts(update, info, v.old) for info in stratum.nonrecursive if info.head.predicate == p]
        insert_counts(update, counter_relation(p), with_iteration(summed(parts, arity), arity, 1), generation,
                      "counting (trace)")
    iteration = 1
    while (window := grow(update, stratum, Role.TRACE_FACTS, iteration, View())) is not None:
        iteration += 1
        count_iteration(update, stratum, iteration, window)


def grow(update: Update, stratum: Stratum, run: Role, iteration: int, trace: View) -> int | None:
    """Δ := N_i \\ I; I := I ∪ Δ (Δ stored in the run's relations at a new generation, returned; None if Δ = ∅)."""
    generation = update.reasoning.tick()
    for p in sorted(stratum.predicates):
        plan = facts(counters(update, p, iteration, trace), arity_of(update, p))
        update.backend.insert(relation=fact_set(update, run, p), plan=plan, generation=generation)
    window = View(generation, generation + 1)
    return generation if any(update.count(fact_set(update, run, p), window) for p in stratum.predicates) else None


# N_i(head) += 1 :- r(body), body⁺ ⊆ I, body⁻ ∩ I = ∅, body⁺ ∩ Δ ≠ ∅   (each instance once)
def count_iteration(update: Update, stratum: Stratum, iteration: int, window: int) -> None:
    """N_i := Π_r^s[I : Δ], counted per rule instance, for the old facts."""
    old = update.views.old
    facts_so_far = {p: fact_set(update, Role.TRACE_FACTS, p) for p in stratum.predicates}

    def whole(atom: Atom) -> View:
        return View(relation=facts_so_far[atom.predicate]) if atom.predicate in facts_so_far else old

    def delta(atom: Atom) -> View | None:
        return View(window, window + 1, relation=facts_so_far[atom.predicate]) if atom.predicate in facts_so_far \
            else None

    parts: dict[str, list[ir.Node]] = {}
    for module in counting_modules(stratum):
        for info, plans in module.instances(update, whole, delta, lambda a: old):
            parts.setdefault(info.head.predicate, []).append(count_instances(info, plans))
    for p, counts in sorted(parts.items()):
        arity = arity_of(update, p)
        insert_counts(update, counter_relation(p), with_iteration(summed(counts, arity), arity, iteration),
                      update.reasoning.tick(), "counting (trace)")


# ---- the derived relations follow the trace --------------------------------------------------

# p(F) :- N_i(F) > 0 for some i      (only for F whose counters changed)
def store_facts(update: Update, stratum: Stratum) -> None:
    """For the facts whose counters changed: delete those with no counter left, add those newly counted."""
    generation = update.reasoning.tick()
    for p in sorted(stratum.predicates):
        arity = arity_of(update, p)
        key, touched = fact_columns(arity), tuples_of(fact_set(update, Role.TOUCHED, p), arity)
        trace = tuples_of(counter_relation(p), arity + 2, names=key + ("i", "n"))
        gone = ir.AntiJoin(stored_rows_for(tuples_of(p, arity), touched, key), trace, key)
        update.delete(p, gone, generation)
        update.backend.insert(relation=p, plan=facts(stored_rows_for(trace, touched, key), arity),
                              generation=generation + 1, revive_since=update.views.g0)
    update.reasoning.tick()
