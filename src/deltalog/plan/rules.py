"""Planning a rule: its body as a join pipeline (see plan.joins), aggregates as subplans, the head as a projection.

Like 001 section 9.2, matching starts at the atom read from the (small) delta. The caller
decides which *view* of the stored facts each atom reads: a generation window for the
seminaive variants of 000 equation (7), and for maintenance the sets of 001 (old facts,
surviving facts, deleted facts, added facts) expressed through insertion and deletion
generations. A negated atom can also be matched *positively* in a view (001 (157): an
instance that stops firing because a negated fact was added), and the head can be bound
by a view (one-step rederivation and backward chaining: bodies evaluated for all
candidate head facts at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from deltalog.analysis.program import RuleInfo, split_body
from deltalog.plan import ir
from deltalog.plan.joins import Pending, Source, Statistics, order_joins
from deltalog.syntax.ast import Aggregate, Assignment, Atom, BinaryOp, Call, Comparison, Constant, Expr, Variable

Window = tuple[int, int | None]


@dataclass(frozen=True)
class View:
    """Which stored rows an atom reads: born in [since, until), alive at ``visible`` (None: now), or
    deleted in the window ``deleted``; ``relation`` reads another stored relation (a scratch set)."""

    since: int = 0
    until: int | None = None
    visible: int | None = None
    deleted: tuple[int, int | None] | None = None
    relation: str | None = None

    def scan(self, atom: Atom, label: str | None = None) -> ir.Scan:
        return ir.Scan(self.relation or atom.predicate, tuple(term(t) for t in atom.terms), self.since,
                       self.until, label, self.visible, self.deleted)


FULL = View()


def as_view(view: View | Window) -> View:
    """Views are also accepted as plain (since, until) generation windows."""
    return view if isinstance(view, View) else View(view[0], view[1])


def term(t) -> ir.Term:
    return ir.Lit(t) if isinstance(t, Constant) else ir.Col(t.name)


def expression(e: Expr) -> ir.Expr:
    """The IR form of an AST expression."""
    if isinstance(e, Variable):
        return ir.Col(e.name)
    if isinstance(e, Constant):
        return ir.Lit(e)
    if isinstance(e, BinaryOp):
        return ir.Arith(e.op, expression(e.left), expression(e.right))
    if isinstance(e, Call):
        return ir.Func(e.function, tuple(expression(a) for a in e.args))
    raise TypeError(f"not an expression: {e!r}")


def variables_of(e) -> set[str]:
    """Variables of an atom, expression, comparison or assignment."""
    if isinstance(e, Variable):
        return {e.name}
    if isinstance(e, Atom):
        return {t.name for t in e.terms if isinstance(t, Variable)}
    if isinstance(e, BinaryOp):
        return variables_of(e.left) | variables_of(e.right)
    if isinstance(e, Call):
        return set().union(*(variables_of(a) for a in e.args)) if e.args else set()
    if isinstance(e, Comparison):
        return variables_of(e.left) | variables_of(e.right)
    if isinstance(e, Assignment):
        return variables_of(e.expr) | {e.variable.name}
    return set()


def scan(atom: Atom, view: View | Window = FULL, label: str | None = None) -> ir.Scan:
    return as_view(view).scan(atom, label)


def atom_source(atom: Atom, view: View | Window, stats: Statistics) -> Source:
    """A source reading ``atom`` in ``view``; its fan-out comes from distinct-key counts."""
    view = as_view(view)
    rows = stats.rows(view.relation or atom.predicate, view.since, view.until, view.visible, view.deleted)
    cache: dict[frozenset[str], float] = {}

    def fanout(bound: frozenset[str]) -> float:
        if bound not in cache:
            positions = tuple(i for i, t in enumerate(atom.terms)
                              if isinstance(t, Constant) or t.name in bound)
            distinct = stats.distinct(atom.predicate, positions) if positions else 1
            cache[bound] = rows / max(distinct or 1, 1) if positions else float(rows)
        return cache[bound]

    return Source(view.scan(atom), frozenset(variables_of(atom)), rows, fanout)


def pending_literals(negative, filters, assignments, views: dict[int, View] | None = None) -> Pending:
    """Literals placed as soon as bound; negated atoms are anti-joined against their views
    (``views`` maps id(atom) to a view; default: the facts now)."""
    views = views or {}
    return Pending(
        list(filters), list(assignments), list(negative),
        place_filter=lambda plan, f: ir.Filter(plan, ir.Compare(f.op, expression(f.left), expression(f.right))),
        place_assignment=lambda plan, a: ir.Bind(plan, a.variable.name, expression(a.expr)),
        place_negation=lambda plan, atom, on: ir.AntiJoin(plan, views.get(id(atom), FULL).scan(atom), on),
        variables=variables_of,
    )


def aggregate_plan(rule: RuleInfo, aggregate: Aggregate, stats: Statistics) -> ir.Node:
    """Aggregate[group; R = f(Arg)] over the distinct bindings of the aggregate's body."""
    positive, negative, filters, assignments, _ = split_body(aggregate.body)
    sources = [atom_source(a, FULL, stats) for a in positive]
    variables = set().union(*(variables_of(a) for a in positive)) | {a.variable.name for a in assignments}
    names = tuple(sorted(variables))
    inner = order_joins(sources, pending_literals(negative, filters, assignments), set(names), None,
                        semijoin_groups=False)
    distinct = ir.Distinct(ir.Project(inner, tuple((n, ir.Col(n)) for n in names)))
    argument = aggregate.arg.name if isinstance(aggregate.arg, Variable) else None
    return ir.Aggregate(distinct, rule.group_by(aggregate), aggregate.function, argument, aggregate.result.name)


def rule_plan(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, *,
              first: int | None = None, label: str | None = None, exact_instances: bool = False,
              negative_views: Sequence[View] | None = None, first_negation: int | None = None,
              head_view: View | None = None) -> ir.Node:
    """The plan deriving head tuples (columns c0..ck) of ``rule``, positive atom i read in windows[i].

    - ``first``: start the pipeline at positive atom i (the delta atom);
    - ``negative_views[j]``: the view negated atom j is anti-joined against (default: the facts now);
    - ``first_negation``: match negated atom j *positively* in its view and start there (001 (157));
    - ``head_view``: only derive head facts found in this view, starting the pipeline there;
    - ``exact_instances`` keeps one row per rule instance up to the head (no semi-joins of
      existential groups), for algorithms that count derivations.
    """
    sources = [atom_source(a, w, stats) for a, w in zip(rule.positive, windows)]
    for aggregate in rule.aggregates:
        agg = aggregate_plan(rule, aggregate, stats)
        sources.append(Source(agg, frozenset(agg.columns), 1))
    negative = list(rule.negative)
    views = {id(a): v for a, v in zip(negative, negative_views or [FULL] * len(negative))}
    if first_negation is not None:
        matched = negative.pop(first_negation)
        sources.append(atom_source(matched, views[id(matched)], stats))
        first = len(sources) - 1
    if head_view is not None:
        sources.append(atom_source(rule.head, head_view, stats))
        first = len(sources) - 1
    if not sources:
        sources.append(Source(ir.Values((), ((),)), frozenset(), 1))
    pending = pending_literals(negative, rule.filters, rule.assignments, views)
    plan = order_joins(sources, pending, variables_of(rule.head), first, semijoin_groups=not exact_instances)
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(rule.head.terms))
    return ir.Project(plan, outputs, label=label)
