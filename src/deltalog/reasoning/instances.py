"""Rule instances over an update's views, as plans: the operators the algorithms and the modules share.

    Π[I^p, I^n : Δ^p, Δ^n]   instances with a positive atom in Δ^p or a negated one in Δ^n (003 section 4,
                             001 (156)/(157)): ``delta_rule_plans``
    one-step rederivation    instances over I \\ D whose head is a deleted fact (001 Algorithm 4, REDERIVE):
                             ``one_step_rederivation``
"""

from __future__ import annotations

from typing import Iterator

from deltalog.analysis.program import RuleInfo
from deltalog.memo import IdentityMemo
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import HeadIn, MatchNegation, NegationsIn, StartAt, WitnessOnly
from deltalog.plan.rules import View, head_projection, instance_counts, rule_plan, variables_of
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update


def delta_rule_plans(update: Update, info: RuleInfo, own: frozenset[str], positive: set[str], negative: set[str],
                     base: View, positive_delta: View, negative_delta: View, counts: bool = False) -> Iterator[ir.Node]:
    """inst_r[I⁺, I⁻ : P, N] of 001 (156)/(157) for P, N the changes of lower predicates (``own``: the
    stratum's predicates): one plan per positive atom over a predicate in ``positive`` (read in
    ``positive_delta``) and per negated atom over a predicate in ``negative`` (matched in
    ``negative_delta``); every instance once. With ``counts``, each plan gives the number of
    instances per head tuple instead."""
    v = update.views
    if not counts and one_atom(info):
        if info.positive[0].predicate in positive and info.positive[0].predicate not in own:
            yield one_atom_plan(info, positive_delta, rule_label(info))
        return
    plan_of = instance_counts if counts else rule_plan
    rest = [v.surviving if a.predicate not in own else base for a in info.positive]
    for i, atom in enumerate(info.positive):
        if atom.predicate in positive and atom.predicate not in own:
            views = rest[:i] + [positive_delta] + [base] * (len(info.positive) - i - 1)
            yield plan_of(info, views, update.reasoning, NegationsIn((base,) * len(info.negative)), StartAt(i),
                          label=rule_label(info))
    for j, atom in enumerate(info.negative):
        if atom.predicate in negative:
            negs = (v.old_or_added,) * j + (negative_delta,) + (base,) * (len(info.negative) - j - 1)
            yield plan_of(info, rest, update.reasoning, NegationsIn(negs),
                          MatchNegation(j, negative_delta, recheck=base), label=rule_label(info))


def one_atom(info: RuleInfo) -> bool:
    """A rule of one positive atom and nothing else (``p(X) :- q(X, Y)``): its plan has no join to order."""
    return len(info.positive) == 1 and not (info.negative or info.filters or info.assignments or info.aggregates)


def one_atom_plan(info: RuleInfo, view: View, label: str) -> ir.Node:
    """The plan a planner makes of a ``one_atom`` rule, without asking the plan cache: the atom's scan in
    ``view``, its rows distinct on the head's variables if it binds others, projected on the head. The cache
    keys, drift-checks and retimes a plan per call (~30 us), and most of the rules a LUBM-like deletion's
    strata plan per update are of this shape (~35 an update)."""
    terms, kept, outputs = _SHAPES.get(info, lambda: one_atom_shape(info))
    plan: ir.Node = ir.Scan(view.relation or info.positive[0].predicate, terms, view.since, view.until, None,
                            view.visible, view.deleted)
    if kept is not None:   # as the planner drops variables nothing uses (plan/joins.py)
        plan = ir.Distinct(ir.Project(plan, kept))
    return ir.Project(plan, outputs, label=label)


def one_atom_shape(info: RuleInfo) -> tuple[tuple[ir.Term, ...], tuple | None, tuple]:
    """The scan's terms, the projection on the head's variables (None: the atom binds no other) and the head's
    outputs of a ``one_atom`` rule (made once per rule: they do not change with the views)."""
    scan = View().scan(info.positive[0])
    head = variables_of(info.head)
    kept = tuple(c for c in scan.columns if c in head)
    projection = tuple((c, ir.Col(c)) for c in kept) if len(kept) < len(scan.columns) else None
    return scan.terms, projection, head_projection(scan, info.head).outputs


_SHAPES: IdentityMemo[tuple[tuple[ir.Term, ...], tuple | None, tuple]] = IdentityMemo(limit=4096)


def one_step_rederivation(update: Update, info: RuleInfo) -> ir.Node:
    """The deleted facts the rule derives in one step from the surviving facts (head bound to D); one
    witness per fact is enough, so the backend may stop at each fact's first instance (``ir.Witnessed``)."""
    v = update.views
    return rule_plan(info, [v.surviving] * len(info.positive), update.reasoning,
                     NegationsIn((v.old_or_added,) * len(info.negative)), HeadIn(v.deleted), WitnessOnly(),
                     label=rule_label(info))
