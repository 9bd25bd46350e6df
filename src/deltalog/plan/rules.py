"""Planning a rule: its body as a ``BodyQuery`` (plan.query) handed to a planner, the head as a projection.

Like 001 section 9.2, matching starts at the atom read from the (small) delta. The caller
decides which *view* of the stored facts each atom reads: a generation window for the
seminaive variants of 000 equation (7), and for maintenance the sets of 001 (old facts,
surviving facts, deleted facts, added facts) expressed through insertion and deletion
generations. A negated atom can also be matched *positively* in a view (001 (157): an
instance that stops firing because a negated fact was added), and the head can be bound
by a view (one-step rederivation and backward chaining: bodies evaluated for all
candidate head facts at once).

``body_query`` and the rewrites of plan.query build the query; ``planner_for`` picks the
planner (the reasoning's ``planner`` field if set, else the greedy default). ``rule_plan``
and ``instance_counts`` are the historical entry points, kept as thin wrappers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from deltalog.analysis.program import RuleInfo, split_body
from deltalog.analysis.safety import literal_variables
from deltalog.plan import ir
from deltalog.plan.greedy import GreedyPlanner, atom_source, pending_literals
from deltalog.plan.joins import Statistics
from deltalog.plan.query import (
    FULL,
    AggregateQuery,
    BodyQuery,
    InView,
    Planner,
    Source,
    View,
    Window,
    as_view,
    keep_instances,
    produce,
    start_at,
    starting_with,
    witness_only,
)
from deltalog.plan.translate import expression, term, variables_of
from deltalog.syntax.ast import Aggregate, Atom, Negation, Variable

__all__ = [
    "DEFAULT_PLANNER",
    "FULL",
    "View",
    "Window",
    "aggregate_plan",
    "aggregate_query",
    "as_view",
    "atom_source",
    "body_query",
    "count_instances",
    "expression",
    "head_projection",
    "instance_bindings",
    "instance_counts",
    "instance_variables",
    "local_variables",
    "match_negation",
    "pending_literals",
    "plan_body",
    "planner_for",
    "rename",
    "rule_plan",
    "scan",
    "term",
    "variables_of",
]

DEFAULT_PLANNER: Planner = GreedyPlanner()


def planner_for(stats: Statistics, rule: RuleInfo | None = None) -> Planner:
    """The planner of a rule in a reasoning: the reasoning's per-rule choice (``planners``, by rule id:
    plan/combined.py), else its ``planner`` attribute when it has one, else the default."""
    if rule is not None:
        chosen = getattr(stats, "planners", None)
        if chosen and rule.id in chosen:
            return chosen[rule.id]
    return getattr(stats, "planner", None) or DEFAULT_PLANNER


def scan(atom: Atom, view: View | Window = FULL, label: str | None = None) -> ir.Scan:
    return as_view(view).scan(atom, label)


# ---- building the query of a rule ----------------------------------------------------------------

def body_query(rule: RuleInfo, views: Sequence[View | Window], negative_views: Sequence[View] | None = None,
               inner_view: View = FULL) -> BodyQuery:
    """The rule's body with positive atom i read in views[i], negated atom j anti-joined against
    negative_views[j] (default: the facts now), aggregate bodies read in ``inner_view``; needs the head."""
    negative_views = list(negative_views or ())
    negative_views += [FULL] * (len(rule.negative) - len(negative_views))
    sources: list[Source] = [InView(a, as_view(v)) for a, v in zip(rule.positive, views)]
    sources += [aggregate_query(rule, agg, inner_view) for agg in rule.aggregates]
    return BodyQuery(tuple(sources), tuple(InView(a, v) for a, v in zip(rule.negative, negative_views)),
                     tuple(rule.filters), tuple(rule.assignments), frozenset(variables_of(rule.head)))


def aggregate_query(rule: RuleInfo, aggregate: Aggregate, view: View = FULL) -> AggregateQuery:
    """Aggregate[group; R = f(Arg)] over the distinct bindings of the aggregate's body, read in ``view``."""
    positive, negative, filters, assignments, _ = split_body(aggregate.body)
    variables = set().union(*(variables_of(a) for a in positive)) | {a.variable.name for a in assignments}
    body = BodyQuery(tuple(InView(a, view) for a in positive), tuple(InView(a, view) for a in negative),
                     tuple(filters), tuple(assignments), frozenset(variables), instances=True)
    argument = aggregate.arg.name if isinstance(aggregate.arg, Variable) else None
    return AggregateQuery(body, rule.group_by(aggregate), aggregate.function, argument, aggregate.result.name)


def local_variables(rule: RuleInfo, atom: Atom) -> set[str]:
    """Variables of a negated atom that occur nowhere else in the rule ("for no value")."""
    elsewhere = variables_of(rule.head)
    for literal in rule.rule.body:
        if not (isinstance(literal, Negation) and literal.atom == atom):
            elsewhere |= {v.name for v in literal_variables(literal)}
    return variables_of(atom) - elsewhere


def rename(atom: Atom, names: set[str]) -> Atom:
    """The atom with the given variables renamed apart (so they bind nothing else)."""
    terms = tuple(Variable(f"{t.name}#matched") if isinstance(t, Variable) and t.name in names else t
                  for t in atom.terms)
    return Atom(atom.predicate, terms, atom.span)


def match_negation(query: BodyQuery, rule: RuleInfo, j: int, recheck_view: View = FULL) -> BodyQuery:
    """Match negated atom j *positively* in its view and start there (001 (157)); if it has "for no
    value" variables, it must also still be false in ``recheck_view`` for the bound ones (one
    matching fact gone or added does not decide "no such fact")."""
    matched = query.negations[j]
    local = local_variables(rule, matched.atom)
    rest = query.negations[:j] + query.negations[j + 1:]
    if local:
        rest += (InView(matched.atom, recheck_view),)
    return starting_with(replace(query, negations=rest), InView(rename(matched.atom, local), matched.view))


# ---- planning ------------------------------------------------------------------------------------

def plan_body(query: BodyQuery, stats: Statistics, planner: Planner | None = None) -> ir.Node:
    """The body's plan, by ``planner`` (default: the reasoning's, see ``planner_for``)."""
    return (planner or planner_for(stats)).plan(query, stats)


def head_projection(body: ir.Node, atom: Atom, label: str | None = None) -> ir.Project:
    """The tuples of ``atom`` (columns c0..ck) from a body's bindings; ``label`` counts instances."""
    return ir.Project(body, tuple((f"c{i}", term(t)) for i, t in enumerate(atom.terms)), label=label)


def aggregate_plan(rule: RuleInfo, aggregate: Aggregate, stats: Statistics, view: View = FULL) -> ir.Node:
    """Aggregate[group; R = f(Arg)] over the distinct bindings of the aggregate's body, read in ``view``."""
    return planner_for(stats, rule).aggregate(aggregate_query(rule, aggregate, view), stats)


def rule_plan(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, *,
              first: int | None = None, label: str | None = None, exact_instances: bool = False,
              negative_views: Sequence[View] | None = None, first_negation: int | None = None,
              recheck_view: View = FULL, head_view: View | None = None, inner_view: View = FULL,
              output: Atom | None = None, witness: bool = False) -> ir.Node:
    """The plan deriving head tuples (columns c0..ck) of ``rule``, positive atom i read in windows[i].

    A wrapper kept for its callers; each keyword is one rewrite of the ``body_query``:
    - ``first``: start the pipeline at positive atom i (the delta atom): ``start_at``;
    - ``negative_views[j]``: the view negated atom j is anti-joined against (default: the facts now);
    - ``first_negation``, ``recheck_view``: ``match_negation``;
    - ``head_view``: only derive head facts found in this view, starting the pipeline there;
    - ``inner_view``: the view aggregate bodies read;
    - ``output``: produce the tuples of this atom (a body atom, for backward chaining) instead of the head's;
    - ``exact_instances`` keeps one row per rule instance up to the head: ``keep_instances``;
    - ``witness``: one head tuple per row of the start source is enough (with ``head_view``: is each
      fact derived?): ``witness_only``, and the plan is an ``ir.Witnessed``.
    """
    cache = getattr(stats, "plan_cache", None)
    if cache is None:
        return _rule_plan(rule, windows, stats, first, label, exact_instances, negative_views, first_negation,
                          recheck_view, head_view, inner_view, output, witness)
    negatives = () if negative_views is None else negative_views
    views = (windows, negatives, recheck_view, head_view, inner_view)
    options = (len(windows), negative_views is None, len(negatives), head_view is None, first, label,
               exact_instances, first_negation, output, witness)
    return cache.plan(stats, (rule, planner_for(stats, rule)), views, options,
                      lambda recorder: _rule_plan(rule, windows, recorder, first, label, exact_instances,
                                                  negative_views, first_negation, recheck_view, head_view,
                                                  inner_view, output, witness))


def _rule_plan(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, first: int | None,
               label: str | None, exact_instances: bool, negative_views: Sequence[View] | None,
               first_negation: int | None, recheck_view: View, head_view: View | None, inner_view: View,
               output: Atom | None, witness: bool) -> ir.Node:
    query = body_query(rule, windows, negative_views, inner_view)
    if first is not None:
        query = start_at(query, first)
    if first_negation is not None:
        query = match_negation(query, rule, first_negation, recheck_view)
    if head_view is not None:
        query = starting_with(query, InView(rule.head, head_view))
    if output is not None:
        query = produce(query, output)
    if exact_instances:
        query = keep_instances(query)
    if witness:
        query = witness_only(query)
    plan = head_projection(plan_body(query, stats, planner_for(stats, rule)), output or rule.head, label)
    return ir.Witnessed(plan) if witness else plan


# ---- rule instances ------------------------------------------------------------------------------

def instance_variables(rule: RuleInfo) -> tuple[str, ...]:
    """The one definition of a rule instance: a distinct binding of these variables (those of the
    positive atoms, the BINDs, and the aggregates' results and group-by variables), sorted."""
    names = set().union(*(variables_of(a) for a in rule.positive), set())
    names |= {a.variable.name for a in rule.assignments}
    for aggregate in rule.aggregates:
        names |= {aggregate.result.name} | set(rule.group_by(aggregate))
    return tuple(sorted(names))


def instance_bindings(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics,
                      **options) -> ir.Node:
    """One row per rule instance (columns: ``instance_variables``); ``options`` as for ``rule_plan``."""
    names = instance_variables(rule)
    binding = Atom("#instance", tuple(Variable(n) for n in names))
    body = rule_plan(rule, windows, stats, exact_instances=True, output=binding, **options)
    return ir.Project(body, tuple((n, ir.Col(f"c{i}")) for i, n in enumerate(names)))


def count_instances(rule: RuleInfo, plans: Sequence[ir.Node]) -> ir.Node:
    """Per head tuple, the number of distinct instances the binding plans find: columns c0..ck and n."""
    distinct = ir.Distinct(ir.Union_(tuple(plans)))
    head_variables = tuple(dict.fromkeys(t.name for t in rule.head.terms if isinstance(t, Variable)))
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(rule.head.terms)) + (("n", ir.Col("n")),)
    return ir.Project(ir.Aggregate(distinct, head_variables, "count", None, "n"), outputs)


def instance_counts(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, **options) -> ir.Node:
    """Per head tuple, the number of rule instances deriving it: columns c0..ck and ``n``
    (like ``count_instances`` of one ``instance_bindings`` plan, in the plan shape DRed/C has always had)."""
    variables = instance_variables(rule)
    binding = Atom("#instance", tuple(Variable(v) for v in variables))
    body = rule_plan(rule, windows, stats, exact_instances=True, output=binding, **options)
    renamed = ir.Project(ir.Distinct(body), tuple((v, ir.Col(f"c{i}")) for i, v in enumerate(variables)))
    head_vars = tuple(dict.fromkeys(t.name for t in rule.head.terms if isinstance(t, Variable)))
    counted = ir.Aggregate(renamed, head_vars, "count", None, "n")
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(rule.head.terms)) + (("n", ir.Col("n")),)
    return ir.Project(counted, outputs)
