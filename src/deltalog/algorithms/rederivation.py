"""DRed's REDERIVE (001 Algorithm 4; dred.py has the whole algorithm), shared with DRed^c and FBF:

    R := {F ∈ D ∩ Out_s | F ∈ E \\ E⁻, or F has a one-step derivation in I \\ D, I ∪ A}

REDERIVE needs one derivation per fact, so its plans are ``ir.Witnessed`` (the backend may stop at each
fact's first instance); the recursive rules' are the modules' Red^{s,i} (003 Algorithm 3).
"""

from __future__ import annotations

from typing import Callable, Iterator

from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.modules import modules_of
from deltalog.plan import ir
from deltalog.reasoning.instances import one_step_rederivation
from deltalog.reasoning.update import Update, fact_columns, tuples_of
from deltalog.reasoning.workspace import Role


Rederivations = Callable[[Update, Stratum, str], Iterator[tuple["RuleInfo | None", ir.Node]]]
"""Plans of the deleted facts of one predicate that are derived again (rule None: still explicit)."""


def rederive(update: Update, stratum: Stratum, rederivations: "Rederivations | None" = None) -> None:
    """One-step rederivation: bind each rule's head to the deleted facts and look for a derivation
    (``one_step``: the explicit facts, the nonrecursive rules and the modules' Red^{s,i}, 003 Algorithm
    3 line 242; DRed, whose overdeletion already checked the first two and the modules' ``holds``, asks
    only ``unheld_by_modules``)."""
    rederivations = rederivations or one_step
    reasoning = update.reasoning
    generation = reasoning.tick()
    for p in sorted(stratum.predicates):
        if not update.overdeleted.get(p):   # D ∩ p empty (every deletion went through update.delete)
            continue
        target = update.workspace.relation(Role.REDERIVED, p, reasoning.arities[p])
        for info, plan in rederivations(update, stratum, p):
            if info is None:
                update.backend.insert(relation=target, plan=plan, generation=generation)
            else:
                reasoning.derive(info, plan, generation, phase="rederivation", relation=target)


def one_step(update: Update, stratum: Stratum, p: str) -> Iterator[tuple["RuleInfo | None", ir.Node]]:
    """The deleted facts of ``p`` still explicit, or derived in one step from the surviving facts."""
    arity = update.reasoning.arities[p]
    if explicit := update.explicit_store(p):
        yield None, ir.SemiJoin(tuples_of(p, arity, update.views.deleted), tuples_of(explicit, arity),
                                fact_columns(arity))
    for info in stratum.nonrecursive:
        if info.head.predicate == p and not info.aggregates:
            yield info, one_step_rederivation(update, info)
    yield from by_modules(update, stratum, p)


def by_modules(update: Update, stratum: Stratum, p: str) -> Iterator[tuple["RuleInfo | None", ir.Node]]:
    """The deleted facts of ``p`` the stratum's recursive rules derive in one step (the modules' Red)."""
    for module in modules_of(stratum):
        yield from module.rederive(update, p)


def unheld_by_modules(update: Update, stratum: Stratum, p: str) -> Iterator[tuple["RuleInfo | None", ir.Node]]:
    """``by_modules`` after algorithms/lowerbound.py's check, which asked each module's ``holds`` already."""
    for module in modules_of(stratum):
        yield from module.rederive_unheld(update, p)
