"""DRed, the non-repetitive variant of 001 Algorithm 4, applied in place, stratum by stratum.

Per stratum s (with D and A the facts deleted and added so far, disjoint as in the
variant at the end of 001 section 6.2):

    OVERDELETE   N_D := (E⁻ ∩ Out_s) ∪ Π_s[I : D, A]
                 loop: Δ_D := N_D \\ D;  N_D := Π_r^s[I \\ D, I ∪ A : Δ_D];  D := D ∪ Δ_D
    REDERIVE     R := {F ∈ D ∩ Out_s | F ∈ E \\ E⁻, or F has a one-step derivation in I \\ D, I ∪ A}
    INSERT       N_A := R ∪ (E⁺ ∩ Out_s) ∪ Π_s[(I \\ D) ∪ A : A, D]
                 loop: Δ_A := N_A \\ ((I \\ D) ∪ A);  A := A ∪ Δ_A;  N_A := Π_r^s[(I \\ D) ∪ A : Δ_A]

The recursive rules are evaluated by the stratum's modules (003 Algorithm 3: Diff, Del, Red
and Add plug-ins, modules/), which return plans; the phases do the bookkeeping: where each
plan's facts go and when a loop stops (overdeletion.py, rederivation.py, insertion.py, which
DRed^c and FBF share; this file runs them per stratum). Deleting marks rows with the current
generation, so each overdeletion round's delta is the rows deleted in the previous round (inverse
seminaive); insertion reads each round's new facts in a scratch relation when facts may be
revived (see ``insertion.insert``), else as the rows a round stored. Nonrecursive rules with an
aggregate are maintained by difference (aggregate_rules.py): old results not produced any more are
overdeleted, new ones inserted. REDERIVE needs one derivation per fact,
so its plans are ``ir.Witnessed`` (the backend may stop at each fact's first instance).

OVERDELETE deletes only the candidates that are not explicit and that no nonrecursive rule
derives in the new state (the lower strata are final): those are in the new materialisation
for sure, so they and what depends on them through them stay (algorithms/lowerbound.py);
REDERIVE then has only the recursive rules to try, and a stratum without any skips it.
"""

from __future__ import annotations

from deltalog.algorithms.aggregate_rules import aggregate_rules_affected
from deltalog.algorithms.insertion import insert
from deltalog.algorithms.overdeletion import overdelete
from deltalog.algorithms.rederivation import rederive, unheld_by_modules
from deltalog.algorithms.unfolding import decides_every_candidate
from deltalog.analysis.program import Stratum
from deltalog.errors import DeltalogError
from deltalog.reasoning.update import Update, lower_changes
from deltalog.reasoning.workspace import Role


class MaintenanceUnsupported(DeltalogError):
    """This update needs something the chosen algorithm cannot do incrementally (callers rematerialise)."""


def aggregates_in_recursion(stratum: Stratum) -> bool:
    return any(info.aggregates for info in stratum.recursive)


def refuse_recursive_aggregates(stratum: Stratum) -> None:
    """The incremental algorithms maintain aggregates only outside recursion."""
    if aggregates_in_recursion(stratum):
        raise MaintenanceUnsupported("recursive rules with aggregates are maintained by rematerialisation")


def dred_stratum(update: Update, stratum: Stratum) -> None:
    """Maintain one stratum with DRed: overdelete, rederive one step, insert. Overdeletion keeps the
    candidates that are still explicit or derived by a rule reading only lower strata
    (algorithms/lowerbound.py), so rederivation has only the recursive rules left to try."""
    refuse_recursive_aggregates(stratum)
    if may_lose_derivations(update, stratum):   # an insertion-only change skips straight to INSERT
        overdelete_and_rederive(update, stratum)
    insert(update, stratum)


def overdelete_and_rederive(update: Update, stratum: Stratum) -> None:
    """OVERDELETE settled by the check, then the recursive rules' REDERIVE (none where the check decides every
    candidate: ``unfolding.decides_every_candidate``); a stratum of nonrecursive rules only, whose checks read no
    stored candidates, in one statement per predicate (``delete_unwitnessed_at_once``)."""
    from deltalog.algorithms import lowerbound
    if not stratum.recursive and not stratum.modules and not lowerbound.needs_stored_candidates(stratum):
        lowerbound.delete_unwitnessed_at_once(update, stratum)
        return
    overdelete(update, stratum, settle=lowerbound.delete_unwitnessed, unstored=lowerbound.unstored(stratum))
    if stratum.recursive and not decides_every_candidate(stratum):
        rederive(update, stratum, unheld_by_modules)


def may_lose_derivations(update: Update, stratum: Stratum) -> bool:
    """Can a fact of the stratum lose a derivation: an explicit deletion, a lower predicate that lost
    facts, or one that gained facts under a negation or into an aggregate? If not, N_D is empty and
    there is nothing to overdelete or rederive."""
    if update.workspace.any_of(Role.DELETED, stratum.predicates):
        return True
    lost, gained = lower_changes(update, stratum, stratum.rules)
    return bool(lost) or any(a.predicate in gained for info in stratum.rules for a in info.negative) or \
        any(info.aggregates and aggregate_rules_affected(info, lost, gained) for info in stratum.rules)
