"""Counting (001 section 5, Algorithms 2-3): per-iteration counters of rule instances (a trace) and their upkeep.

For each derived predicate p, ``p#counting`` holds the trace of the counting seminaive
materialisation (001 Algorithm 2; algorithms/trace.py): per fact and iteration, the number of
rule instances deriving it.

An update (001 Algorithm 3) reruns each stratum's seminaive iterations "in parallel" for
the old and the new explicit facts without evaluating either run from scratch: the old
run's facts I_o and deltas Δ_o are read off the old trace, the new run's I_n and Δ_n off
the counters as they are updated, and each iteration's counters change only by the rule
instances that fire in one run but not the other (001 Lemma 11, (68)-(69)):

    inst[I1] \\ inst[I2]           = inst[I1 : I1\\I2, I2\\I1]                               (68)
    inst[I1 : Δ1] \\ inst[I2 : Δ2] = inst[I1 : Δ1 ; I1\\I2, I2\\I1]
                                   ∪ inst[(I1∩I2)\\Δ2, I1∪I2 : (Δ1∩I2)\\Δ2]                 (69)

Instances of the recursive rules are enumerated by the stratum's modules (``Module.instances``
and ``negated_instances``, as bindings of a rule instance: plan/rules.py); several plans may find
the same instance, so a rule's plans are unioned and its distinct bindings counted per head
tuple (``count_instances``), set-at-a-time. A stratum with a module that cannot enumerate
instances (not a ``CountingModule``) is maintained by DRed^c instead (algorithms/strategies.py).
A stratum stops as soon as both runs have stopped, or once they coincide (001 line 31):
the rest of the old trace is then the new one. The derived relation p is finally brought
in line with the counters for the facts whose counters changed.

The counters exist only while consecutive updates use Counting: the first such update
counts them from the old materialisation (Algorithm 2 over the old facts, per stratum, on
first touching it), and any other algorithm drops them. Every stratum the paper covers
(stratified negation, nonrecursive aggregates in iteration 1) is maintained here;
recursive rules with an aggregate are refused, as DRed refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass

from deltalog.algorithms.dred import refuse_recursive_aggregates
from deltalog.algorithms.dredc import explicit_changes, negated, rule_changes
from deltalog.algorithms.trace import (arity_of, count_trace, counter_relation, fact_set, grow, old_trace,
                                       store_counts, store_facts)
from deltalog.analysis.program import Stratum
from deltalog.modules import counting_modules
from deltalog.modules.base import CountingModule
from deltalog.plan import ir
from deltalog.plan.rules import View, count_instances
from deltalog.reasoning.update import Update, fact_columns, lower_changes, tuples_of
from deltalog.reasoning.workspace import Role
from deltalog.syntax.ast import Atom

__all__ = ["count_trace", "counter_relation", "counting_stratum"]

OTHER = {"o": "n", "n": "o"}
RUN = {"o": Role.OLD_RUN, "n": Role.NEW_RUN}              # I_x
ONLY = {"o": Role.ONLY_OLD, "n": Role.ONLY_NEW}           # I_x \ I_y
STARTS = {"o": Role.OLD_STARTS, "n": Role.NEW_STARTS}     # Y_x := (Δ_x ∩ I_y) \ Δ_y
RUN_ROLES = (Role.OLD_RUN, Role.NEW_RUN, Role.ONLY_OLD, Role.ONLY_NEW, Role.OLD_STARTS, Role.NEW_STARTS, Role.TOUCHED)


def counting_stratum(update: Update, stratum: Stratum) -> None:
    """Maintain one stratum's trace (001 Algorithm 3, lines 21-38), then its derived relations."""
    refuse_recursive_aggregates(stratum)
    if counter_relation(min(stratum.predicates)) not in update.backend.relations():
        count_trace(update, stratum)
    modules = tuple(counting_modules(stratum))
    lost, gained = lower_changes(update, stratum, tuple(info for m in modules for info in m.rules))
    run = Runs(update, stratum, modules, old_trace(update), frozenset(lost), frozenset(gained))
    for p in stratum.predicates:
        for role in RUN_ROLES:
            fact_set(update, role, p)
    maintain_trace(run)
    store_facts(update, stratum)


# ---- Algorithm 3: the old and the new run in parallel ------------------------------------------

@dataclass(frozen=True)
class Runs:
    """One stratum's update: the old trace's view, and the lower predicates that lost / gained facts."""

    update: Update
    stratum: Stratum
    modules: tuple[CountingModule, ...]
    trace: View
    lost: frozenset[str]
    gained: frozenset[str]

    def own(self, atom: Atom) -> bool:
        return atom.predicate in self.stratum.predicates

    def whole(self, x: str, atom: Atom) -> View:
        """I_x: the run's facts so far (own predicates), or the old / new lower strata."""
        if self.own(atom):
            return View(relation=self.fact_set(RUN[x], atom))
        return self.update.views.old if x == "o" else self.update.views.new

    def only(self, x: str, atom: Atom) -> View | None:
        """I_x \\ I_y (None if empty): kept for own predicates (line 30), deleted / added for lower ones."""
        if self.own(atom):
            name = self.fact_set(ONLY[x], atom)
            return View(relation=name) if self.update.count(name, View()) else None
        changed, view = (self.lost, self.update.views.deleted) if x == "o" else (self.gained, self.update.views.added)
        return view if atom.predicate in changed else None

    def window(self, role: Role, atom: Atom, generation: int) -> View:
        return View(generation, generation + 1, relation=self.fact_set(role, atom))

    def fact_set(self, role: Role, atom: Atom) -> str:
        return fact_set(self.update, role, atom.predicate)


def maintain_trace(run: Runs) -> None:
    """Lines 22-38: iteration 1 from the explicit and nonrecursive changes, then iteration by iteration."""
    first_iteration(run)
    iteration = 1
    while True:
        deltas = {x: grow(run.update, run.stratum, RUN[x], iteration, run.trace if x == "o" else View())
                  for x in ("o", "n")}
        if deltas["o"] is None and deltas["n"] is None:
            return   # line 28: both runs stopped
        windows = {x: deltas[x] or run.update.reasoning.tick() for x in ("o", "n")}   # an empty window if None
        fresh = differences(run, windows)
        if settled(run, fresh):
            return   # line 31: the runs coincide from here on
        iteration += 1
        next_iteration(run, iteration, windows, fresh)


def first_iteration(run: Runs) -> None:
    """Lines 23-24: N_1 := N_1 ⊖ (E⁻ ∩ Out^s) ⊖ Π_nr^s[I_o : I_on, I_no]
                            ⊕ (E⁺ ∩ Out^s) ⊕ Π_nr^s[I_n : I_no, I_on]   (by (68), as DRed^c counts)."""
    update, stratum = run.update, run.stratum
    lost, gained = lower_changes(update, stratum, stratum.nonrecursive)
    for p in sorted(stratum.predicates):
        changes = explicit_changes(update, p, arity_of(update, p))
        for info in [r for r in stratum.nonrecursive if r.head.predicate == p]:
            changes += rule_changes(update, info, stratum, lost, gained)
        if changes:
            store_counts(update, p, 1, changes)


def differences(run: Runs, windows: dict[str, int]) -> int:
    """Line 30: I_on := (I_on \\ Δ_n) ∪ (Δ_o \\ I_n), I_no likewise; and Y_x := (Δ_x ∩ I_y) \\ Δ_y,
    the facts (69) starts from. Returns the generation Y_o and Y_n are stored at."""
    update, generation = run.update, run.update.reasoning.tick()
    for p in sorted(run.stratum.predicates):
        key = fact_columns(arity_of(update, p))
        for x, y in (("o", "n"), ("n", "o")):
            run_x, run_y, only_x = (fact_set(update, role, p) for role in (RUN[x], RUN[y], ONLY[x]))
            delta_x, delta_y = (tuples_of(r, len(key), View(windows[z], windows[z] + 1))
                                for r, z in ((run_x, x), (run_y, y)))
            update.backend.delete(relation=only_x, generation=generation,
                                  plan=ir.SemiJoin(tuples_of(only_x, len(key)), delta_y, key))
            update.backend.insert(relation=only_x, generation=generation + 1,
                                  plan=ir.AntiJoin(delta_x, tuples_of(run_y, len(key)), key))
            update.backend.insert(relation=fact_set(update, STARTS[x], p), generation=generation + 1,
                                  plan=ir.AntiJoin(ir.SemiJoin(delta_x, tuples_of(run_y, len(key)), key),
                                                   delta_y, key))
    update.reasoning.tick()
    return generation + 1


def settled(run: Runs, fresh: int) -> bool:
    """Line 31: Δ_o = Δ_n and I_o = I_n (no lower differences the recursive rules read, I_on = I_no = ∅)."""
    if run.lost or run.gained:
        return False
    names = [fact_set(run.update, ONLY[x], p) for p in run.stratum.predicates for x in ("o", "n")]
    windows = [fact_set(run.update, STARTS[x], p) for p in run.stratum.predicates for x in ("o", "n")]
    return not any(run.update.count(n, View()) for n in names) and \
        not any(run.update.count(n, View(fresh, fresh + 1)) for n in windows)


# N_i := N_i ⊖ changed_o ⊕ changed_n   (changed_x: instances of run x that run y lacks, below)
def next_iteration(run: Runs, iteration: int, windows: dict[str, int], fresh: int) -> None:
    """Lines 35-37: N_i := N_i ⊖ (instances only in the old run) ⊕ (instances only in the new run), by (69)."""
    parts: dict[str, list[ir.Node]] = {}
    for module in run.modules:
        changed = {x: join_plans(stopped_by_difference(run, module, x, windows),
                                 stopped_by_order(run, module, x, windows, fresh)) for x in ("o", "n")}
        for info in module.rules:
            for x, sign in (("o", negated), ("n", unchanged)):
                if plans := changed[x].get(info.id):
                    parts.setdefault(info.head.predicate, []).append(sign(count_instances(info, plans)))
    for p, changes in sorted(parts.items()):
        store_counts(run.update, p, iteration, changes)


PlansByRule = dict[str, list[ir.Node]]
"""Plans of instance bindings per rule id."""


def unchanged(plan: ir.Node) -> ir.Node:
    return plan


def join_plans(*found: PlansByRule) -> PlansByRule:
    out: PlansByRule = {}
    for plans in found:
        for rule, more in plans.items():
            out.setdefault(rule, []).extend(more)
    return out


# changed_x(head) :- r(body), body⁺ ⊆ I_x, body⁻ ∩ I_x = ∅, body⁺ ∩ Δ_x ≠ ∅,
#                    (body⁺ ∩ (I_x \ I_y) ≠ ∅  or  body⁻ ∩ (I_y \ I_x) ≠ ∅)
def stopped_by_difference(run: Runs, module: CountingModule, x: str, windows: dict[str, int]) -> PlansByRule:
    """inst[I_x : Δ_x ; I_xy, I_yx]: instances of run x (an atom in Δ_x) with a positive atom in I_x \\ I_y
    or a negated one in I_y \\ I_x, so not instances of run y at all."""
    def whole(atom: Atom) -> View:
        return run.whole(x, atom)

    found = join_plans(dict((info.id, plans) for info, plans in
                            module.instances(run.update, whole, lambda a: run.only(x, a), whole)),
                       dict((info.id, plans) for info, plans in
                            module.negated_instances(run.update, whole, whole, lambda a: run.only(OTHER[x], a))))
    out: PlansByRule = {}
    for info in module.rules:
        if plans := found.get(info.id):
            union = ir.Distinct(ir.Union_(tuple(plans)))
            deltas = [run.window(RUN[x], a, windows[x]).scan(a) for a in info.positive if run.own(a)]
            out[info.id] = [ir.SemiJoin(union, scan, scan.columns) for scan in deltas]
    return out


# changed_x(head) :- r(body), body⁺ ⊆ (I_x ∩ I_y) \ Δ_y, body⁻ ∩ (I_x ∪ I_y) = ∅,
#                    body⁺ ∩ ((Δ_x ∩ I_y) \ Δ_y) ≠ ∅
def stopped_by_order(run: Runs, module: CountingModule, x: str, windows: dict[str, int], fresh: int) -> PlansByRule:
    """inst[(I_x ∩ I_y) \\ Δ_y, I_x ∪ I_y : (Δ_x ∩ I_y) \\ Δ_y]: instances of both runs that run y
    applies in another iteration (no atom in Δ_y, one in Δ_x that run y had already)."""
    y, update = OTHER[x], run.update

    def whole(atom: Atom) -> View:
        return run.whole(x, atom) if run.own(atom) else update.views.surviving

    def start(atom: Atom) -> View | None:
        if run.own(atom) and update.count(run.fact_set(STARTS[x], atom), View(fresh, fresh + 1)):
            return run.window(STARTS[x], atom, fresh)
        return None

    out: PlansByRule = {}
    for info, plans in module.instances(update, whole, start, lambda a: update.views.old_or_added):
        found: ir.Node = ir.Distinct(ir.Union_(tuple(plans)))
        for atom in [a for a in info.positive if run.own(a)]:
            for view in (View(relation=run.fact_set(ONLY[x], atom)), run.window(RUN[y], atom, windows[y])):
                scan = view.scan(atom)
                found = ir.AntiJoin(found, scan, scan.columns)
        out[info.id] = [found]
    return out
