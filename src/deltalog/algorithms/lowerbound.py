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
from typing import Iterator

from deltalog.algorithms.aggregate_rules import aggregate_results
from deltalog.algorithms.overdeletion import Candidates, lost_derivations
from deltalog.algorithms.unfolding import unfolded
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.memo import IdentityMemo
from deltalog.modules import modules_of
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import HeadIn, WitnessOnly
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, fact_columns, tuples_of
from deltalog.reasoning.workspace import Role
from deltalog.syntax.ast import Variable


def delete_unwitnessed(update: Update, stratum: Stratum, lost_derivation: Candidates, window: int) -> int:
    """Delete the candidates collected at ``window`` that are neither explicit nor derived now, in one
    statement per predicate: the candidates (stored, or the plans kept: ``unstored``) anti-joined with each
    check in turn (``unwitnessed``)."""
    reasoning = update.reasoning
    generation = reasoning.tick()
    for p, relation in sorted(lost_derivation.items()):
        found = View(window, window + 1, relation=relation)
        if update.count(relation, found):
            candidates = tuples_of(relation, reasoning.arities[p], found)
            delete_measured(update, p, unwitnessed(update, stratum, p, candidates, found), generation, "rederivation")
    for p, plans in sorted(lost_derivation.at(window).items()):
        plan = unwitnessed(update, stratum, p, one_candidate_plan(stratum, p, plans), None)
        delete_measured(update, p, plan, generation, "overdeletion")   # (a stored N_D's facts were overdeletion's)
    return generation


def unstored(stratum: Stratum) -> frozenset[str]:
    """The predicates of ``stratum`` whose checks read no stored candidates (``reads_stored_candidates``; made once
    per stratum: every DRed update of it asks)."""
    return _UNSTORED.get(stratum, lambda: frozenset(p for p in stratum.predicates
                                                    if not reads_stored_candidates(stratum, p)))


_UNSTORED: IdentityMemo[frozenset[str]] = IdentityMemo(limit=1024)


def reads_stored_candidates(stratum: Stratum, p: str) -> bool:
    """Does a check of ``p`` bind a rule's head to the stored candidates: a nonrecursive rule that is neither a
    renamed atom nor an aggregate (``derived_now``), or a recursive one unfolded with a rest (unfolding.py)?"""
    return any(info.head.predicate == p and renamed_atom(info) is None and not info.aggregates
               for info in stratum.nonrecursive) or any(u.rest is not None for u in unfolded(stratum, p))


def one_candidate_plan(stratum: Stratum, p: str, plans: list[ir.Node]) -> ir.Node:
    """Candidate plans of ``p`` as one: a Distinct, one frame for the checks (a union streams a frame per plan,
    each probed by every anti-join), evaluated once where an aggregate's check reads the candidates too (its
    rows are kept for the statement); a single plan read by no check stays as it is."""
    if len(plans) > 1:
        return ir.Distinct(ir.Union_(tuple(plans)))
    aggregated = any(info.aggregates and info.head.predicate == p for info in stratum.nonrecursive)
    return ir.Distinct(plans[0]) if aggregated else plans[0]


def delete_unwitnessed_at_once(update: Update, stratum: Stratum) -> None:
    """OVERDELETE and REDERIVE of a stratum of nonrecursive rules only: no rule of it reads it, so its
    candidates (E⁻ ∩ Out_s and what lost a derivation from a lower stratum) do not grow by its own
    deletions, and each predicate's are deleted unwitnessed in one statement from their plans, instead
    of being stored in N_D, counted and read back (~0.2 ms a stratum; a 1,000-fact LUBM-like deletion
    has six such strata). For a stratum whose checks bind a rule's head to the candidates
    (``needs_stored_candidates``), they are stored first (``overdelete``)."""
    reasoning, generation = update.reasoning, update.reasoning.tick()
    by_head: dict[str, list[ir.Node]] = {}
    for p in sorted(stratum.predicates):
        if (minus := update.workspace.staged(Role.DELETED, p)) is not None:
            by_head.setdefault(p, []).append(tuples_of(p, reasoning.arities[p], minus))
    for info, plan in lost_derivations(update, stratum):
        by_head.setdefault(info.head.predicate, []).append(plan)
    for p, plans in by_head.items():
        candidates = one_candidate_plan(stratum, p, plans)
        delete_measured(update, p, unwitnessed(update, stratum, p, candidates, None), generation, "overdeletion")


def needs_stored_candidates(stratum: Stratum) -> bool:
    """Does a check of the stratum bind a rule's head to the candidates (``derived_now``: a rule that is
    neither a renamed atom nor an aggregate), which then have to be a stored view?"""
    return any(renamed_atom(info) is None and not info.aggregates for info in stratum.nonrecursive)


def delete_measured(update: Update, p: str, plan: ir.Node, generation: int, phase: str) -> None:
    """``update.delete`` of the plan's facts, its rule instances and time credited to ``phase``."""
    reasoning = update.reasoning
    metrics: dict[str, int] | None = {} if reasoning.collect_metrics else None
    started = time.perf_counter()
    deleted = update.delete(p, plan, generation, metrics)
    reasoning.record_metrics(metrics or {}, phase, deleted if phase == "overdeletion" else 0,
                             time.perf_counter() - started)


def unwitnessed(update: Update, stratum: Stratum, p: str, candidates: ir.Node, found: View | None) -> ir.Node:
    """The ``candidates`` of ``p`` (stored in ``found``, or None) that no check witnesses:
    ``AntiJoin(...AntiJoin(candidates, check_1)..., check_k)``. The checks stop once every candidate is
    witnessed: an anti-join builds its right side only at the first left frame with rows, so a check after
    the last witnessed candidate is never evaluated (deleting one ``takesCourse`` fact of an undergraduate
    course: ``course(c)`` is explicit, and the four rules deriving it are not run). Each check reads every
    candidate, as it did when its witnesses were inserted into a relation of their own and counted; the
    chain saves that relation, an insert and a count per check (a 1,000-fact LUBM-like deletion: ~45 of each)."""
    arity = update.reasoning.arities[p]
    plan = candidates
    for check in checks(update, stratum, p, candidates, found):
        plan = ir.AntiJoin(plan, check, fact_columns(arity))
    return plan


def checks(update: Update, stratum: Stratum, p: str, candidates: ir.Node, found: View | None) -> Iterator[ir.Node]:
    """What keeps a candidate of ``p``: the facts still in E \\ E⁻, then plans of the candidates a rule
    of the stratum reading only lower strata derives now, rule by rule, then those a module's closure of
    final inputs still gives, then those a recursive rule unfolded into renaming rules derives now
    (algorithms/unfolding.py)."""
    arity = update.reasoning.arities[p]
    if explicit := update.explicit_store(p):
        yield tuples_of(explicit, arity)
    for info in stratum.nonrecursive:
        if info.head.predicate == p:
            yield derived_now(update, info, found, candidates)
    for module in modules_of(stratum):
        yield from (plan for _, plan in module.holds(update, p, candidates))
    for unfolding in unfolded(stratum, p):   # (none outside a recursive stratum)
        if unfolding.rest is None:   # the proofs alone: scans, reading no candidates
            yield from unfolding.all_proofs(update)
        elif found is not None:   # its candidates are stored (``reads_stored_candidates``)
            yield from unfolding.checks(update, found, candidates)


def derived_now(update: Update, info: RuleInfo, found: View | None, candidates: ir.Node) -> ir.Node:
    """The candidates (stored in ``found``) that the rule derives from the facts now, one instance each; for
    a rule that renames one atom (``p(X, Y) :- q(Y, Z, X)``), the atom's facts now, with the head's columns."""
    if (atom := renamed_atom(info)) is not None:
        return atom
    if info.aggregates:
        # p(X, N) :- N = count Y : {...}: the group's new result, compared with the candidate
        columns = fact_columns(len(info.head.terms))
        return ir.SemiJoin(candidates, aggregate_results(update, info, View()), columns)
    assert found is not None, "a rule's head is bound to stored candidates (needs_stored_candidates)"
    return rule_plan(info, [View()] * len(info.positive), update.reasoning, HeadIn(found), WitnessOnly(),
                     label=rule_label(info))


def renamed_atom(info: RuleInfo) -> ir.Scan | None:
    """The body atom of a rule ``p(X1..Xn) :- q(...)`` (distinct head variables, one positive atom and
    nothing else) as a scan of the facts now whose columns c0..c{n-1} are the head's: its tuples projected
    on them are the facts the rule derives, so a candidate is derived iff it matches one (None: another rule).
    Made once per rule (scans are immutable): every stratum of every deletion asks (~65 times)."""
    return _RENAMED.get(info, lambda: renaming_scan(info))


_RENAMED: IdentityMemo[ir.Scan | None] = IdentityMemo(limit=4096)


def renaming_scan(info: RuleInfo) -> ir.Scan | None:
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
