"""DRed for a stratum whose rules read only lower strata: overdeletion and rederivation in one check.

When no rule of stratum s reads a predicate of s, every predicate its bodies read belongs to a
lower stratum, which is final when s is maintained (001 Algorithm 4 runs stratum by stratum).
Overdeletion cannot cascade then: N_D = (E⁻ ∩ Out_s) ∪ Π_s[I : D, A] is computed once, as in DRed,
and instead of deleting all of N_D and rederiving one step (REDERIVE over I \\ D), a candidate
F ∈ N_D is deleted iff

    F ∉ E \\ E⁻   and   no rule of s has an instance deriving F in the new state (I \\ D) ∪ A

(the positive atoms and the negations read in the facts now: below s that is the new state). The
check stops at each candidate's first instance (``ir.Witnessed``), so a dense rule whose facts
almost all keep another derivation costs about one instance per candidate, not all of them, and
the facts that stay are never deleted, so the strata above see only the facts really gone. A
candidate reached through a negated atom that became true (001 (157)) is checked the same way;
instances that a negated atom becoming false creates are DRed's INSERT's, which runs unchanged.
"""

from __future__ import annotations

from deltalog.algorithms.dred import aggregate_results, overdelete
from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.plan import ir
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, predicates_read, tuples_of
from deltalog.reasoning.workspace import Role, explicit_relation


def reads_only_lower_strata(stratum: Stratum) -> bool:
    """No recursive rule, no module, and no body (negations and aggregates too) reading the stratum."""
    return not stratum.recursive and not stratum.modules and \
        not predicates_read(stratum.nonrecursive) & stratum.predicates


def settle_in_one_check(update: Update, stratum: Stratum) -> None:
    """OVERDELETE and REDERIVE of DRed for such a stratum: collect N_D, delete the unwitnessed."""
    overdelete(update, stratum, settle=delete_unwitnessed)


def delete_unwitnessed(update: Update, stratum: Stratum, lost_derivation: dict[str, str], window: int) -> int:
    """Delete the candidates collected at ``window`` that are neither explicit nor derived now."""
    reasoning = update.reasoning
    generation = reasoning.tick()
    for p, relation in sorted(lost_derivation.items()):
        found = View(window, window + 1, relation=relation)
        if not update.count(relation, found):
            continue
        arity = reasoning.arities[p]
        columns = tuple(f"c{i}" for i in range(arity))
        # F ∈ N_D stays iff F ∈ E \ E⁻ or some rule p(...) :- body of s has an instance deriving F now
        witnessed = update.workspace.relation(Role.WITNESSED, p, arity)
        candidates = tuples_of(relation, arity, found)
        if (explicit := explicit_relation(p)) in update.backend.relations():
            still_explicit = ir.SemiJoin(candidates, tuples_of(explicit, arity), columns)
            update.backend.insert(relation=witnessed, plan=still_explicit, generation=generation)
        for info in stratum.nonrecursive:
            if info.head.predicate == p:
                reasoning.derive(info, derived_now(update, info, found, candidates), generation,
                                 phase="rederivation", relation=witnessed)
        kept = tuples_of(witnessed, arity)
        update.delete(p, ir.AntiJoin(candidates, kept, columns), generation)
    return generation


def derived_now(update: Update, info: RuleInfo, found: View, candidates: ir.Node) -> ir.Node:
    """The candidates (in ``found``) that the rule derives from the facts now, one instance each."""
    if info.aggregates:
        # p(X, N) :- N = count Y : {...}: the group's new result, compared with the candidate
        columns = tuple(f"c{i}" for i in range(len(info.head.terms)))
        return ir.SemiJoin(candidates, aggregate_results(update, info, View()), columns)
    return rule_plan(info, [View()] * len(info.positive), update.reasoning, head_view=found,
                     label=rule_label(info), witness=True)
