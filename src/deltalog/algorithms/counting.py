"""Counting (001 section 5, Algorithms 2-3): per-iteration counters of rule instances (a trace) and their upkeep.

For each derived predicate p, ``p#counting`` holds the trace of the counting seminaive
materialisation (001 Algorithm 2), one row per fact and stratum iteration i:
(fact..., i, n), n the number of rule instances deriving the fact in iteration i (an
explicit fact counts once, in iteration 1). The stratum is implicit in the predicate.

An update (001 Algorithm 3) reruns each stratum's seminaive iterations "in parallel" for
the old and the new explicit facts without evaluating either run from scratch: the old
run's facts I_o and deltas Δ_o are read off the old trace, the new run's I_n and Δ_n off
the counters as they are updated, and each iteration's counters change only by the rule
instances that fire in one run but not the other (001 Lemma 11, (68)-(69)):

    inst[I1] \\ inst[I2]           = inst[I1 : I1\\I2, I2\\I1]                               (68)
    inst[I1 : Δ1] \\ inst[I2 : Δ2] = inst[I1 : Δ1 ; I1\\I2, I2\\I1]
                                   ∪ inst[(I1∩I2)\\Δ2, I1∪I2 : (Δ1∩I2)\\Δ2]                 (69)

Instances are enumerated as bindings of all the rule's variables (several plans may find
the same one; a Distinct keeps it once) and counted set-at-a-time with group-by counts.
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
from deltalog.algorithms.dredc import (columns, explicit_changes, insert_counts, negated, net_changes, nonzero,
                                       old_explicit, rule_changes, rule_counts, stored_rows_for, summed)
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.plan import ir
from deltalog.plan.rules import View, rule_plan, term, variables_of
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, lower_changes, tuples_of
from deltalog.reasoning.workspace import Counters, Role
from deltalog.syntax.ast import Atom, Constant, Variable

OTHER = {"o": "n", "n": "o"}
RUN = {"o": Role.OLD_RUN, "n": Role.NEW_RUN}              # I_x
ONLY = {"o": Role.ONLY_OLD, "n": Role.ONLY_NEW}           # I_x \ I_y
STARTS = {"o": Role.OLD_STARTS, "n": Role.NEW_STARTS}     # Y_x := (Δ_x ∩ I_y) \ Δ_y
RUN_ROLES = (Role.OLD_RUN, Role.NEW_RUN, Role.ONLY_OLD, Role.ONLY_NEW, Role.OLD_STARTS, Role.NEW_STARTS, Role.TOUCHED)


def counter_relation(predicate: str) -> str:
    return Counters.TRACE.relation(predicate)


def fact_set(update: Update, role: Role, predicate: str) -> str:
    """The update's scratch set of ``role`` for one predicate (fact columns), created on first use."""
    return update.workspace.relation(role, predicate, arity_of(update, predicate))


def counting_stratum(update: Update, stratum: Stratum) -> None:
    """Maintain one stratum's trace (001 Algorithm 3, lines 21-38), then its derived relations."""
    refuse_recursive_aggregates(stratum)
    if counter_relation(min(stratum.predicates)) not in update.backend.relations():
        count_trace(update, stratum)
    lost, gained = lower_changes(update, stratum, stratum.recursive)
    run = Runs(update, stratum, old_trace(update), frozenset(lost), frozenset(gained))
    for p in stratum.predicates:
        for role in RUN_ROLES:
            fact_set(update, role, p)
    maintain_trace(run)
    store_facts(update, stratum)


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
    terms: tuple[ir.Term, ...] = tuple(ir.Col(c) for c in columns(arity)) + \
        (ir.Lit(Constant(iteration, "int")), ir.Col("n"))
    return ir.Scan(counter_relation(predicate), terms, view.since, view.until, None, view.visible, view.deleted)


def facts(plan: ir.Node, arity: int) -> ir.Node:
    """The distinct facts of a counter plan."""
    return ir.Distinct(ir.Project(plan, tuple((c, ir.Col(c)) for c in columns(arity))))


def with_iteration(plan: ir.Node, arity: int, iteration: int) -> ir.Node:
    """Counter rows (c0..ck, n) as stored: fact columns, the iteration, the count."""
    outputs = tuple((c, ir.Col(c)) for c in columns(arity))
    extra = ((f"c{arity}", ir.Lit(Constant(iteration, "int"))), (f"c{arity + 1}", ir.Col("n")))
    return ir.Project(plan, outputs + extra)


def store_counts(update: Update, predicate: str, iteration: int, changes: list[ir.Node]) -> None:
    """N_i := N_i ⊕ changes (signed counts); rows reaching zero disappear, and the facts are marked touched."""
    arity, relation = arity_of(update, predicate), counter_relation(predicate)
    key, generation = columns(arity), update.reasoning.tick()
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


# ---- rule instances as bindings, counted per head tuple ------------------------------------------

def instance_variables(info: RuleInfo) -> tuple[str, ...]:
    """An instance is a distinct binding of these (the variables of the positive atoms and BINDs)."""
    names = set().union(*(variables_of(a) for a in info.positive), set())
    return tuple(sorted(names | {a.variable.name for a in info.assignments}))


def bindings(update: Update, info: RuleInfo, views: list[View], **options) -> ir.Node:
    """One row per rule instance with positive atom i read in views[i]; columns: the instance variables."""
    names = instance_variables(info)
    binding = Atom("#instance", tuple(Variable(n) for n in names))
    body = rule_plan(info, views, update.reasoning, exact_instances=True, output=binding, label=rule_label(info),
                     **options)
    return ir.Project(body, tuple((n, ir.Col(f"c{i}")) for i, n in enumerate(names)))


def counted(info: RuleInfo, plans: list[ir.Node]) -> ir.Node:
    """Per head tuple, the number of distinct instances the binding plans find: columns c0..ck and n."""
    distinct = ir.Distinct(ir.Union_(tuple(plans)))
    head_variables = tuple(dict.fromkeys(t.name for t in info.head.terms if isinstance(t, Variable)))
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(info.head.terms)) + (("n", ir.Col("n")),)
    return ir.Project(ir.Aggregate(distinct, head_variables, "count", None, "n"), outputs)


def delta_bindings(update: Update, info: RuleInfo, stratum: Stratum, whole, delta, negative: View) -> list[ir.Node]:
    """inst[I : Δ]: for each positive atom over the stratum, that atom in Δ and the others in I
    (``whole``/``delta`` give an atom's view, None if empty); negated atoms are anti-joined in ``negative``."""
    plans = []
    for j, atom in enumerate(info.positive):
        if atom.predicate in stratum.predicates and (view := delta(atom)) is not None:
            views = [view if k == j else whole(a) for k, a in enumerate(info.positive)]
            plans.append(bindings(update, info, views, first=j, negative_views=[negative] * len(info.negative)))
    return plans


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
    whole = lambda a: View(relation=facts_so_far[a.predicate]) if a.predicate in facts_so_far else old  # noqa: E731
    delta = lambda a: View(window, window + 1, relation=facts_so_far[a.predicate])  # noqa: E731
    parts: dict[str, list[ir.Node]] = {}
    for info in stratum.recursive:
        if plans := delta_bindings(update, info, stratum, whole, delta, old):
            parts.setdefault(info.head.predicate, []).append(counted(info, plans))
    for p, counts in sorted(parts.items()):
        arity = arity_of(update, p)
        insert_counts(update, counter_relation(p), with_iteration(summed(counts, arity), arity, iteration),
                      update.reasoning.tick(), "counting (trace)")


# ---- Algorithm 3: the old and the new run in parallel ------------------------------------------

@dataclass(frozen=True)
class Runs:
    """One stratum's update: the old trace's view, and the lower predicates that lost / gained facts."""

    update: Update
    stratum: Stratum
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
        key = columns(arity_of(update, p))
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
    for info in run.stratum.recursive:
        for x, sign in (("o", negated), ("n", lambda plan: plan)):
            plans = stopped_by_difference(run, info, x, windows) + stopped_by_order(run, info, x, windows, fresh)
            if plans:
                parts.setdefault(info.head.predicate, []).append(sign(counted(info, plans)))
    for p, changes in sorted(parts.items()):
        store_counts(run.update, p, iteration, changes)


# changed_x(head) :- r(body), body⁺ ⊆ I_x, body⁻ ∩ I_x = ∅, body⁺ ∩ Δ_x ≠ ∅,
#                    (body⁺ ∩ (I_x \ I_y) ≠ ∅  or  body⁻ ∩ (I_y \ I_x) ≠ ∅)
def stopped_by_difference(run: Runs, info: RuleInfo, x: str, windows: dict[str, int]) -> list[ir.Node]:
    """inst[I_x : Δ_x ; I_xy, I_yx]: instances of run x (an atom in Δ_x) with a positive atom in I_x \\ I_y
    or a negated one in I_y \\ I_x, so not instances of run y at all."""
    whole, negative = [run.whole(x, a) for a in info.positive], [run.whole(x, a) for a in info.negative]
    plans = [bindings(run.update, info, whole[:m] + [view] + whole[m + 1:], first=m, negative_views=negative)
             for m, atom in enumerate(info.positive) if (view := run.only(x, atom)) is not None]
    plans += negation_differences(run, info, x, whole, negative)
    if not plans:
        return []
    found = ir.Distinct(ir.Union_(tuple(plans)))
    deltas = [run.window(RUN[x], a, windows[x]).scan(a) for a in info.positive if run.own(a)]
    return [ir.SemiJoin(found, scan, scan.columns) for scan in deltas]


def negation_differences(run: Runs, info: RuleInfo, x: str, whole: list[View], negative: list[View]) -> list:
    """Instances of run x whose negated atom j holds in run y: atom j matched positively in I_y \\ I_x."""
    plans = []
    for j, atom in enumerate(info.negative):
        if (view := run.only(OTHER[x], atom)) is not None:
            plans.append(bindings(run.update, info, whole, first_negation=j, recheck_view=negative[j],
                                  negative_views=negative[:j] + [view] + negative[j + 1:]))
    return plans


# changed_x(head) :- r(body), body⁺ ⊆ (I_x ∩ I_y) \ Δ_y, body⁻ ∩ (I_x ∪ I_y) = ∅,
#                    body⁺ ∩ ((Δ_x ∩ I_y) \ Δ_y) ≠ ∅
def stopped_by_order(run: Runs, info: RuleInfo, x: str, windows: dict[str, int], fresh: int) -> list[ir.Node]:
    """inst[(I_x ∩ I_y) \\ Δ_y, I_x ∪ I_y : (Δ_x ∩ I_y) \\ Δ_y]: instances of both runs that run y
    applies in another iteration (no atom in Δ_y, one in Δ_x that run y had already)."""
    y, update = OTHER[x], run.update
    whole = lambda a: run.whole(x, a) if run.own(a) else update.views.surviving  # noqa: E731
    start = lambda a: (run.window(STARTS[x], a, fresh)  # noqa: E731
                       if update.count(run.fact_set(STARTS[x], a), View(fresh, fresh + 1)) else None)
    plans = delta_bindings(update, info, run.stratum, whole, start, update.views.old_or_added)
    if not plans:
        return []
    found: ir.Node = ir.Distinct(ir.Union_(tuple(plans)))
    for atom in [a for a in info.positive if run.own(a)]:
        for view in (View(relation=run.fact_set(ONLY[x], atom)), run.window(RUN[y], atom, windows[y])):
            scan = view.scan(atom)
            found = ir.AntiJoin(found, scan, scan.columns)
    return [found]


# ---- the derived relations follow the counters --------------------------------------------------

# p(F) :- N_i(F) > 0 for some i      (only for F whose counters changed)
def store_facts(update: Update, stratum: Stratum) -> None:
    """For the facts whose counters changed: delete those with no counter left, add those newly counted."""
    generation = update.reasoning.tick()
    for p in sorted(stratum.predicates):
        arity = arity_of(update, p)
        key, touched = columns(arity), tuples_of(fact_set(update, Role.TOUCHED, p), arity)
        trace = tuples_of(counter_relation(p), arity + 2, names=key + ("i", "n"))
        gone = ir.AntiJoin(stored_rows_for(tuples_of(p, arity), touched, key), trace, key)
        update.delete(p, gone, generation)
        update.backend.insert(relation=p, plan=facts(stored_rows_for(trace, touched, key), arity),
                              generation=generation + 1, revive_since=update.views.g0)
    update.reasoning.tick()
