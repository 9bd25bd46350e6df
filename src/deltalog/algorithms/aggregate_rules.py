"""Nonrecursive rules with an aggregate, maintained by difference (DRed, dred.py; DRed^c, dredc.py; FBF, fbf.py;
algorithms/lowerbound.py): old results not produced any more are overdeleted, new ones inserted, so a rule
that reads a changed predicate is re-evaluated whole in the old and the new state.
"""

from __future__ import annotations

from deltalog.analysis.program import RuleInfo
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import AggregatesIn, NegationsIn
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, predicates_read


def aggregate_results(update: Update, info: RuleInfo, view: View) -> ir.Node:
    """All head tuples of a nonrecursive rule with every atom (aggregates too) read in one view."""
    return rule_plan(info, [view] * len(info.positive), update.reasoning,
                     NegationsIn((view,) * len(info.negative)), AggregatesIn(view), label=rule_label(info))


def aggregate_rules_affected(info: RuleInfo, lost: set[str], gained: set[str]) -> bool:
    return bool(predicates_read((info,)) & (lost | gained))


def difference(left: ir.Node, right: ir.Node) -> ir.Node:
    return ir.Difference(left, right)
