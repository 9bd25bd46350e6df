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
DRed's INSERT's, which runs unchanged.
"""

from __future__ import annotations

from typing import Iterator, Mapping

from deltalog.algorithms.aggregate_rules import aggregate_results
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.modules import modules_of
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import HeadIn, WitnessOnly
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, fact_columns, tuples_of
from deltalog.reasoning.workspace import Role


def delete_unwitnessed(update: Update, stratum: Stratum, lost_derivation: Mapping[str, str], window: int) -> int:
    """Delete the candidates collected at ``window`` that are neither explicit nor derived now.

    The checks stop once every candidate is witnessed: a fact enters ``lost_derivation`` once per
    update, so this window's candidates are disjoint from the facts witnessed in earlier rounds and
    the rows the checks add to ``witnessed`` count the candidates witnessed so far (deleting one
    ``takesCourse`` fact of an undergraduate course: ``course(c)`` is explicit, and the four rules
    deriving it are not run)."""
    reasoning = update.reasoning
    generation = reasoning.tick()
    for p, relation in sorted(lost_derivation.items()):
        found = View(window, window + 1, relation=relation)
        if not (candidates := update.count(relation, found)):
            continue
        arity = reasoning.arities[p]
        # F ∈ N_D stays iff F ∈ E \ E⁻ or some rule p(...) :- body of s has an instance deriving F now
        witnessed = update.workspace.relation(Role.WITNESSED, p, arity)
        kept = 0
        for info, plan in witnesses(update, stratum, p, found):
            if info is None:
                kept += update.backend.insert(relation=witnessed, plan=plan, generation=generation)
            else:
                kept += reasoning.derive(info, plan, generation, phase="rederivation", relation=witnessed)
            if kept == candidates:
                break
        else:
            update.delete(p, ir.AntiJoin(tuples_of(relation, arity, found), tuples_of(witnessed, arity),
                                         fact_columns(arity)), generation)
    return generation


def witnesses(update: Update, stratum: Stratum, p: str, found: View) -> Iterator[tuple[RuleInfo | None, ir.Node]]:
    """Plans of the candidates of ``p`` (in ``found``) still in E \\ E⁻ (rule None), then of those a
    rule of the stratum reading only lower strata derives now, rule by rule."""
    arity = update.reasoning.arities[p]
    candidates = tuples_of(found.relation or p, arity, found)
    if explicit := update.explicit_store(p):
        yield None, ir.SemiJoin(candidates, tuples_of(explicit, arity), fact_columns(arity))
    for info in stratum.nonrecursive:
        if info.head.predicate == p:
            yield info, derived_now(update, info, found, candidates)
    for module in modules_of(stratum):   # a closure of final inputs that still gives the candidate
        yield from module.holds(update, p, candidates)


def derived_now(update: Update, info: RuleInfo, found: View, candidates: ir.Node) -> ir.Node:
    """The candidates (in ``found``) that the rule derives from the facts now, one instance each."""
    if info.aggregates:
        # p(X, N) :- N = count Y : {...}: the group's new result, compared with the candidate
        columns = fact_columns(len(info.head.terms))
        return ir.SemiJoin(candidates, aggregate_results(update, info, View()), columns)
    return rule_plan(info, [View()] * len(info.positive), update.reasoning, HeadIn(found), WitnessOnly(),
                     label=rule_label(info))
