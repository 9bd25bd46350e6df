"""DRed^c (003 section 4.2): DRed with per-fact counters of nonrecursive derivations.

For each derived fact, ``p#nonrecursive`` holds how many instances of the nonrecursive rules
derive it (an explicit fact counts once). Per stratum, the counters are brought up to date
first, from the instances that stopped firing and those that started (001 (156)/(157), each
instance once, counted set-at-a-time with group-by counts); overdeletion then stops at every
fact whose counter is still positive: such a fact has a nonrecursive derivation in the new
state, so neither it nor what depends on it through it needs to go. Rederivation and
insertion are DRed's.

The counters exist only while consecutive updates use DRed^c: the first such update counts
them from the old materialisation, and any other algorithm drops them.
"""

from __future__ import annotations

import time
from typing import Mapping

from deltalog.algorithms.aggregate_rules import aggregate_rules_affected
from deltalog.algorithms.dred import refuse_recursive_aggregates
from deltalog.algorithms.insertion import insert
from deltalog.algorithms.overdeletion import overdelete
from deltalog.algorithms.rederivation import rederive
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import AggregatesIn, NegationsIn
from deltalog.plan.rules import View, instance_counts
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.instances import delta_rule_plans
from deltalog.reasoning.update import Update, fact_columns, lower_changes, tuples_of
from deltalog.reasoning.workspace import Counters, Role, explicit_relation
from deltalog.syntax.ast import Constant


def counter_relation(predicate: str) -> str:
    return Counters.NONRECURSIVE.relation(predicate)


def dredc_stratum(update: Update, stratum: Stratum) -> None:
    refuse_recursive_aggregates(stratum)
    if counter_relation(min(stratum.predicates)) not in update.backend.relations():
        count_from_scratch(update, stratum)
    update_counters(update, stratum)
    overdelete(update, stratum, settle=keep_counted)
    rederive(update, stratum)
    insert(update, stratum)


# ---- counting ----------------------------------------------------------------------------------

def insert_counts(update: Update, relation: str, plan: ir.Node, generation: int, phase: str) -> int:
    """Insert counter rows, crediting the rule instances the plan enumerated to its rules and the phase."""
    metrics: dict[str, int] = {}
    started = time.perf_counter()
    stored = update.backend.insert(relation=relation, plan=plan, generation=generation, metrics=metrics)
    update.reasoning.record_metrics(metrics, phase, stored, time.perf_counter() - started)
    return stored


def count_from_scratch(update: Update, stratum: Stratum) -> None:
    """Counters of the old materialisation: nonrecursive rule instances over I, plus one per explicit fact."""
    v, generation = update.views, update.reasoning.tick()
    for p in sorted(stratum.predicates):
        arity = update.reasoning.arities[p]
        update.backend.create_relation(relation=counter_relation(p), arity=arity + 1)
        parts = [old_explicit(update, p, v.old)]
        parts += [rule_counts(update, info, v.old) for info in stratum.nonrecursive if info.head.predicate == p]
        insert_counts(update, counter_relation(p), summed(parts, arity), generation, "counting (initial)")


def old_explicit(update: Update, predicate: str, view: View) -> ir.Node:
    arity = update.reasoning.arities[predicate]
    explicit = explicit_relation(predicate)
    if explicit not in update.backend.relations():
        return ir.Values(fact_columns(arity) + ("n",), ())
    return with_count(tuples_of(explicit, arity, view), arity, 1)


def rule_counts(update: Update, info: RuleInfo, view: View) -> ir.Node:
    return instance_counts(info, [view] * len(info.positive), update.reasoning,
                           NegationsIn((view,) * len(info.negative)), AggregatesIn(view), label=rule_label(info))


def update_counters(update: Update, stratum: Stratum) -> None:
    """counter := counter - instances that stopped firing + instances that started (nonrecursive rules)."""
    lost, gained = lower_changes(update, stratum, stratum.nonrecursive)
    for p in sorted(stratum.predicates):
        arity = update.reasoning.arities[p]
        changes = explicit_changes(update, p, arity)
        for info in [r for r in stratum.nonrecursive if r.head.predicate == p]:
            changes += rule_changes(update, info, stratum, lost, gained)
        if changes:
            store_counts(update, p, arity, changes)


def explicit_changes(update: Update, predicate: str, arity: int) -> list[ir.Node]:
    out = []
    for role, sign in ((Role.DELETED, -1), (Role.ADDED, 1)):
        if (staged := update.workspace.staged(role, predicate)) is not None:
            out.append(with_count(tuples_of(predicate, arity, staged), arity, sign))
    return out


def rule_changes(update: Update, info: RuleInfo, stratum: Stratum, lost: set[str], gained: set[str]) -> list:
    """Signed instance counts: minus those that stopped firing, plus those that started."""
    v = update.views
    if info.aggregates:
        if not aggregate_rules_affected(info, lost, gained):
            return []
        return [negated(rule_counts(update, info, v.old)), rule_counts(update, info, v.new)]
    own = stratum.predicates
    out = [negated(p) for p in delta_rule_plans(update, info, own, lost, gained, v.old, v.deleted, v.added,
                                                counts=True)]
    out += list(delta_rule_plans(update, info, own, gained, lost, v.new, v.added, v.deleted, counts=True))
    return out


def net_changes(update: Update, predicate: str, arity: int, changes: list[ir.Node], generation: int) -> ir.Scan:
    """Evaluate the signed count changes once, summed per tuple (zero sums kept: the tuple was touched),
    into a scratch relation; its scan has columns c0..ck and n."""
    delta = update.workspace.relation(Role.COUNT_CHANGES, predicate, arity + 1)
    update.backend.clear(relation=delta)
    insert_counts(update, delta, summed(changes, arity), generation, "counting")
    return tuples_of(delta, arity + 1, names=fact_columns(arity) + ("n",))


def stored_rows_for(stored: ir.Scan, keys: ir.Node, key: tuple[str, ...]) -> ir.Node:
    """The stored rows whose key is among ``keys`` (distinct keys), found by probing the stored
    relation's index from the few keys, never by scanning the relation (a SemiJoin would)."""
    return ir.Join(ir.Project(keys, tuple((k, ir.Col(k)) for k in key)), stored, key)


def nonzero(plan: ir.Node) -> ir.Node:
    return ir.Filter(plan, ir.Compare("!=", ir.Col("n"), ir.Lit(Constant(0, "int"))))


def store_counts(update: Update, predicate: str, arity: int, changes: list[ir.Node]) -> None:
    """Fold signed count changes into the counter relation (rows with a zero count disappear)."""
    counters, key, generation = counter_relation(predicate), fact_columns(arity), update.reasoning.tick()
    change = net_changes(update, predicate, arity, changes, generation)
    current = stored_rows_for(tuples_of(counters, arity + 1, None, names=key + ("n",)), change, key)
    staged = update.workspace.relation(Role.STAGED_COUNTS, predicate, arity + 1)
    update.backend.insert(relation=staged, plan=nonzero(summed([current, change], arity)), generation=generation)
    update.backend.delete(relation=counters, plan=current, generation=generation)
    update.backend.insert(relation=counters, plan=tuples_of(staged, arity + 1, View(generation, generation + 1)),
                          generation=update.reasoning.tick())


# ---- overdeletion stops at counted facts -------------------------------------------------------

def keep_counted(update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int) -> int:
    """Delete the facts that lost a derivation and have no nonrecursive derivation left."""
    generation = update.reasoning.tick()
    for p, relation in lost_derivation.items():
        arity = update.reasoning.arities[p]
        candidates = tuples_of(relation, arity, View(window, window + 1))
        uncounted = ir.AntiJoin(candidates, tuples_of(counter_relation(p), arity + 1, None,
                                                     names=fact_columns(arity) + ("n",)), fact_columns(arity))
        update.delete(p, uncounted, generation)
    return generation


# ---- plan helpers ------------------------------------------------------------------------------


def with_count(plan: ir.Node, arity: int, n: int) -> ir.Node:
    outputs = tuple((c, ir.Col(c)) for c in fact_columns(arity)) + (("n", ir.Lit(Constant(n, "int"))),)
    return ir.Project(plan, outputs)


def negated(plan: ir.Node) -> ir.Node:
    """The same counts with the opposite sign."""
    names = tuple(c for c in plan.columns if c != "n")
    minus = ir.Bind(ir.Project(plan, tuple((c, ir.Col(c)) for c in names) + (("m", ir.Col("n")),)), "n",
                    ir.Arith("-", ir.Lit(Constant(0, "int")), ir.Col("m")))
    return ir.Project(minus, tuple((c, ir.Col(c)) for c in names) + (("n", ir.Col("n")),))


def summed(parts: list[ir.Node], arity: int) -> ir.Node:
    """Per tuple, the sum of the parts' counts (each part tagged, so equal rows of two parts both count)."""
    tagged = tuple(ir.Project(part, tuple((c, ir.Col(c)) for c in fact_columns(arity) + ("n",))
                              + (("part", ir.Lit(Constant(i, "int"))),)) for i, part in enumerate(parts))
    total = ir.Aggregate(ir.Union_(tagged), fact_columns(arity), "sum", "n", "n")
    return ir.Project(total, tuple((c, ir.Col(c)) for c in fact_columns(arity) + ("n",)))
