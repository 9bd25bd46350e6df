"""Planning a rule: its body as a ``BodyQuery`` (plan.query) handed to a planner, the head as a projection.

Like 001 section 9.2, matching starts at the atom read from the (small) delta. The caller
decides which *view* of the stored facts each atom reads: a generation window for the
seminaive variants of 000 equation (7), and for maintenance the sets of 001 (old facts,
surviving facts, deleted facts, added facts) expressed through insertion and deletion
generations. A negated atom can also be matched *positively* in a view (001 (157): an
instance that stops firing because a negated fact was added), and the head can be bound
by a view (one-step rederivation and backward chaining: bodies evaluated for all
candidate head facts at once).

``body_query`` builds the query, the rewrites a caller lists (plan/rule_rewrites.py) say which
variant of it to plan; ``planner_for`` picks the planner (the reasoning's ``planner`` field if set,
else the greedy default). ``rule_plan`` and ``instance_counts`` are the entry points.
"""

from __future__ import annotations

from typing import Sequence

from deltalog.analysis.program import RuleInfo, split_body
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
)
from deltalog.plan.rule_rewrites import KeepInstances, Produce, Rewrite
from deltalog.plan.translate import expression, term, variables_of
from deltalog.syntax.ast import Aggregate, Atom, Variable

__all__ = [
    "DEFAULT_PLANNER",
    "FULL",
    "View",
    "Window",
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
    "pending_literals",
    "plan_body",
    "planner_for",
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

def body_query(rule: RuleInfo, views: Sequence[View | Window]) -> BodyQuery:
    """The rule's body with positive atom i read in views[i], negated atoms anti-joined against the
    facts now and aggregate bodies read there (rule_rewrites: ``NegationsIn``, ``AggregatesIn``); needs the head."""
    sources: list[Source] = [InView(a, as_view(v)) for a, v in zip(rule.positive, views)]
    sources += [aggregate_query(rule, agg) for agg in rule.aggregates]
    return BodyQuery(tuple(sources), tuple(InView(a) for a in rule.negative),
                     tuple(rule.filters), tuple(rule.assignments), frozenset(variables_of(rule.head)))


def aggregate_query(rule: RuleInfo, aggregate: Aggregate, view: View = FULL) -> AggregateQuery:
    """Aggregate[group; R = f(Arg)] over the distinct bindings of the aggregate's body, read in ``view``."""
    positive, negative, filters, assignments, _ = split_body(aggregate.body)
    variables = set().union(*(variables_of(a) for a in positive)) | {a.variable.name for a in assignments}
    body = BodyQuery(tuple(InView(a, view) for a in positive), tuple(InView(a, view) for a in negative),
                     tuple(filters), tuple(assignments), frozenset(variables), instances=True)
    argument = aggregate.arg.name if isinstance(aggregate.arg, Variable) else None
    return AggregateQuery(body, rule.group_by(aggregate), aggregate.function, argument, aggregate.result.name)


# ---- planning ------------------------------------------------------------------------------------

def plan_body(query: BodyQuery, stats: Statistics, planner: Planner | None = None) -> ir.Node:
    """The body's plan, by ``planner`` (default: the reasoning's, see ``planner_for``)."""
    return (planner or planner_for(stats)).plan(query, stats)


def head_projection(body: ir.Node, atom: Atom, label: str | None = None) -> ir.Project:
    """The tuples of ``atom`` (columns c0..ck) from a body's bindings; ``label`` counts instances."""
    return ir.Project(body, tuple((f"c{i}", term(t)) for i, t in enumerate(atom.terms)), label=label)


def rule_plan(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, *rewrites: Rewrite,
              label: str | None = None) -> ir.Node:
    """The plan deriving head tuples (columns c0..ck) of ``rule``, positive atom i read in windows[i],
    the ``body_query`` rewritten by ``rewrites`` in order (plan/rule_rewrites.py says which and in what
    order); ``label`` counts the head tuples (metrics). Planned once per variant (plan/cache.py)."""
    cache = getattr(stats, "plan_cache", None)
    if cache is None:
        return _rule_plan(rule, windows, stats, rewrites, label)
    views = (windows, *[r.views() for r in rewrites])
    options = (len(windows), label, *[r.key() for r in rewrites])
    return cache.plan(stats, (rule, planner_for(stats, rule)), views, options,
                      lambda recorder: _rule_plan(rule, windows, recorder, rewrites, label))


def _rule_plan(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics,
               rewrites: Sequence[Rewrite], label: str | None) -> ir.Node:
    query, output = body_query(rule, windows), rule.head
    for rewrite in rewrites:
        query, output = rewrite(query, rule), rewrite.projected(output)
    plan = head_projection(plan_body(query, stats, planner_for(stats, rule)), output, label)
    return ir.Witnessed(plan) if query.witness else plan


# ---- rule instances ------------------------------------------------------------------------------

def instance_variables(rule: RuleInfo) -> tuple[str, ...]:
    """The one definition of a rule instance: a distinct binding of these variables (those of the
    positive atoms, the BINDs, and the aggregates' results and group-by variables), sorted."""
    names = set().union(*(variables_of(a) for a in rule.positive), set())
    names |= {a.variable.name for a in rule.assignments}
    for aggregate in rule.aggregates:
        names |= {aggregate.result.name} | set(rule.group_by(aggregate))
    return tuple(sorted(names))


def instance_bindings(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, *rewrites: Rewrite,
                      label: str | None = None) -> ir.Node:
    """One row per rule instance (columns: ``instance_variables``); the rest as for ``rule_plan``."""
    names = instance_variables(rule)
    binding = Atom("#instance", tuple(Variable(n) for n in names))
    body = rule_plan(rule, windows, stats, *rewrites, Produce(binding), KeepInstances(), label=label)
    return ir.Project(body, tuple((n, ir.Col(f"c{i}")) for i, n in enumerate(names)))


def count_instances(rule: RuleInfo, plans: Sequence[ir.Node]) -> ir.Node:
    """Per head tuple, the number of distinct instances the binding plans find: columns c0..ck and n."""
    distinct = ir.Distinct(ir.Union_(tuple(plans)))
    head_variables = tuple(dict.fromkeys(t.name for t in rule.head.terms if isinstance(t, Variable)))
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(rule.head.terms)) + (("n", ir.Col("n")),)
    return ir.Project(ir.Aggregate(distinct, head_variables, "count", None, "n"), outputs)


def instance_counts(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, *rewrites: Rewrite,
                    label: str | None = None) -> ir.Node:
    """Per head tuple, the number of rule instances deriving it: columns c0..ck and ``n``
    (like ``count_instances`` of one ``instance_bindings`` plan, in the plan shape DRed/C has always had)."""
    variables = instance_variables(rule)
    binding = Atom("#instance", tuple(Variable(v) for v in variables))
    body = rule_plan(rule, windows, stats, *rewrites, Produce(binding), KeepInstances(), label=label)
    renamed = ir.Project(ir.Distinct(body), tuple((v, ir.Col(f"c{i}")) for i, v in enumerate(variables)))
    head_vars = tuple(dict.fromkeys(t.name for t in rule.head.terms if isinstance(t, Variable)))
    counted = ir.Aggregate(renamed, head_vars, "count", None, "n")
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(rule.head.terms)) + (("n", ir.Col("n")),)
    return ir.Project(counted, outputs)
