"""DRed's overdeletion, settled by a check: a candidate with a derivation from lower strata stays.

Stratum s is maintained after every lower stratum, whose facts are then final (001 Algorithm 4
runs stratum by stratum), and a nonrecursive rule of s reads only lower strata (a positive atom
over s would make it recursive; negation and aggregation read strictly lower strata). So a
candidate F ∈ N_D (a fact that lost a derivation) is in the new materialisation I' for sure if

    F ∈ E \\ E⁻   or   a nonrecursive rule of s has an instance deriving F in the new state (I \\ D) ∪ A

(positive atoms and negations read in the facts now). Such a fact is not deleted, and neither is
anything whose derivations go through it; every other candidate is. This keeps DRed exact: a fact
of I \\ I' still reaches N_D (each of its derivations loses a body fact, lower or in D, or meets a
negation made true) and fails the check, so it is deleted; the facts kept are in I'; REDERIVE and
INSERT then close the rest as for any smaller D ⊇ I \\ I'. It is what DRed^c's counters achieve
(003 section 4.2, algorithms/dredc.py) and FBF's SATURATE seeds (001 Algorithm 5), asked of the
stored facts instead of counted or chained. It pays wherever overdeletion would cascade through
facts with another derivation: deleting one ``takesCourse(s, c)`` of the LUBM-like data made plain
DRed overdelete ``student(s)``, ``person(s)`` and what depends on them and rederive them rule by
rule (about 35 plan evaluations); here ``student(s)`` is derived by ``student(X) :-
undergraduateStudent(X)`` and nothing is deleted (docs/benchmarks.md, "Fixed costs").

When no rule of s reads a predicate of s, overdeletion cannot cascade at all and this check is
the whole of OVERDELETE and REDERIVE. In a recursive stratum the deleted facts failed the check,
which covers the explicit facts and the nonrecursive rules of REDERIVE (over I \\ D ⊆ the new
state), so only the recursive rules' one-step rederivation (the modules' Red) is left to run.

The check stops at each candidate's first instance (``ir.Witnessed``), so a dense rule whose facts
almost all keep another derivation costs about one instance per candidate, and stops trying rules
once every candidate is witnessed. A candidate reached through a negated atom that became true
(001 (157)) is checked the same way; instances that a negated atom becoming false creates are
DRed's INSERT's, which runs unchanged. The checks of one predicate and round run inside its deletion
statement, the candidates anti-joined with each in turn (``unwitnessed``), and a rule that renames
one atom (``person(X) :- student(X)``, ``course(C) :- takes(X, C)``) is checked by that atom's facts
alone, without the rule's plan (``renamed_atom``).
"""

from __future__ import annotations

import time
from typing import Iterator, Mapping

from deltalog.algorithms.aggregate_rules import aggregate_results
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.modules import modules_of
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import HeadIn, WitnessOnly
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, fact_columns, tuples_of
from deltalog.syntax.ast import Variable


def delete_unwitnessed(update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int) -> int:
    """Delete the candidates collected at ``window`` that are neither explicit nor derived now, in one
    statement per predicate: the candidates anti-joined with each check in turn (``unwitnessed``)."""
    reasoning = update.reasoning
    generation = reasoning.tick()
    for p, relation in sorted(lost_derivation.items()):
        found = View(window, window + 1, relation=relation)
        if update.count(relation, found):
            metrics: dict[str, int] | None = {} if reasoning.collect_metrics else None
            started = time.perf_counter()
            update.delete(p, unwitnessed(update, stratum, p, found), generation, metrics)
            reasoning.record_metrics(metrics or {}, "rederivation", 0, time.perf_counter() - started)
    return generation


def unwitnessed(update: Update, stratum: Stratum, p: str, found: View) -> ir.Node:
    """The candidates of ``p`` in ``found`` that no check witnesses: ``AntiJoin(...AntiJoin(candidates,
    check_1)..., check_k)``. The checks stop once every candidate is witnessed: an anti-join builds its
    right side only at the first left frame with rows, so a check after the last witnessed candidate is
    never evaluated (deleting one ``takesCourse`` fact of an undergraduate course: ``course(c)`` is
    explicit, and the four rules deriving it are not run). Each check reads every candidate, as it did
    when its witnesses were inserted into a relation of their own and counted; the chain saves that
    relation, an insert and a count per check (a 1,000-fact LUBM-like deletion: ~45 of each)."""
    arity = update.reasoning.arities[p]
    plan: ir.Node = tuples_of(found.relation or p, arity, found)
    for check in checks(update, stratum, p, found):
        plan = ir.AntiJoin(plan, check, fact_columns(arity))
    return plan


def checks(update: Update, stratum: Stratum, p: str, found: View) -> Iterator[ir.Node]:
    """What keeps a candidate of ``p`` (in ``found``): the facts still in E \\ E⁻, then plans of the
    candidates a rule of the stratum reading only lower strata derives now, rule by rule, then those a
    module's closure of final inputs still gives."""
    arity = update.reasoning.arities[p]
    candidates = tuples_of(found.relation or p, arity, found)
    if explicit := update.explicit_store(p):
        yield tuples_of(explicit, arity)
    for info in stratum.nonrecursive:
        if info.head.predicate == p:
            yield derived_now(update, info, found, candidates)
    for module in modules_of(stratum):
        yield from (plan for _, plan in module.holds(update, p, candidates))


def derived_now(update: Update, info: RuleInfo, found: View, candidates: ir.Node) -> ir.Node:
    """The candidates (in ``found``) that the rule derives from the facts now, one instance each; for a
    rule that renames one atom (``p(X, Y) :- q(Y, Z, X)``), the atom's facts now, with the head's columns."""
    if (atom := renamed_atom(info)) is not None:
        return atom
    if info.aggregates:
        # p(X, N) :- N = count Y : {...}: the group's new result, compared with the candidate
        columns = fact_columns(len(info.head.terms))
        return ir.SemiJoin(candidates, aggregate_results(update, info, View()), columns)
    return rule_plan(info, [View()] * len(info.positive), update.reasoning, HeadIn(found), WitnessOnly(),
                     label=rule_label(info))


def renamed_atom(info: RuleInfo) -> ir.Scan | None:
    """The body atom of a rule ``p(X1..Xn) :- q(...)`` (distinct head variables, one positive atom and
    nothing else) as a scan of the facts now whose columns c0..c{n-1} are the head's: its tuples projected
    on them are the facts the rule derives, so a candidate is derived iff it matches one (None: another rule)."""
    if len(info.positive) != 1 or info.negative or info.filters or info.assignments or info.aggregates:
        return None
    head = [t.name for t in info.head.terms if isinstance(t, Variable)]
    if len(set(head)) != len(info.head.terms):   # a constant or a repeated variable selects among the atom's facts
        return None
    column = {name: f"c{i}" for i, name in enumerate(head)}
    atom = info.positive[0]
    terms = tuple(ir.Col(column.get(t.name, f"{t.name}#body")) if isinstance(t, Variable) else ir.Lit(t)
                  for t in atom.terms)
    return ir.Scan(atom.predicate, terms)
