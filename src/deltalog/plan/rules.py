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
from deltalog.analysis.safety import literal_variables
from deltalog.plan import ir
from deltalog.plan.joins import Pending, Source, Statistics, order_joins
from deltalog.syntax.ast import (Aggregate, Assignment, Atom, BinaryOp, Call, Comparison, Constant, Expr, Negation,
                                 Variable)

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


def pending_literals(negative, filters, assignments, views: dict[int, View] | None = None) -> Pending:
    """Literals placed as soon as bound; negated atoms are anti-joined against their views
    (``views`` maps id(atom) to a view; default: the facts now)."""
    views = views or {}
    return Pending(
        list(filters), list(assignments), list(negative),
        place_filter=lambda plan, f: ir.Filter(plan, ir.Compare(f.op, expression(f.left), expression(f.right))),
        place_assignment=lambda plan, a: ir.Bind(plan, a.variable.name, expression(a.expr)),
        check_assignment=lambda plan, a: ir.Filter(plan, ir.Compare("same", ir.Col(a.variable.name),
                                                                    expression(a.expr))),
        place_negation=lambda plan, atom, on: ir.AntiJoin(plan, views.get(id(atom), FULL).scan(atom), on),
        variables=variables_of,
    )


def aggregate_plan(rule: RuleInfo, aggregate: Aggregate, stats: Statistics, view: View = FULL) -> ir.Node:
    """Aggregate[group; R = f(Arg)] over the distinct bindings of the aggregate's body, read in ``view``."""
    positive, negative, filters, assignments, _ = split_body(aggregate.body)
    sources = [atom_source(a, view, stats) for a in positive]
    variables = set().union(*(variables_of(a) for a in positive)) | {a.variable.name for a in assignments}
    names = tuple(sorted(variables))
    pending = pending_literals(negative, filters, assignments, {id(a): view for a in negative})
    inner = order_joins(sources, pending, set(names), None, semijoin_groups=False)
    distinct = ir.Distinct(ir.Project(inner, tuple((n, ir.Col(n)) for n in names)))
    argument = aggregate.arg.name if isinstance(aggregate.arg, Variable) else None
    return ir.Aggregate(distinct, rule.group_by(aggregate), aggregate.function, argument, aggregate.result.name)


def rule_plan(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, *,
              first: int | None = None, label: str | None = None, exact_instances: bool = False,
              negative_views: Sequence[View] | None = None, first_negation: int | None = None,
              recheck_view: View = FULL, head_view: View | None = None, inner_view: View = FULL,
              output: Atom | None = None) -> ir.Node:
    """The plan deriving head tuples (columns c0..ck) of ``rule``, positive atom i read in windows[i].

    - ``first``: start the pipeline at positive atom i (the delta atom);
    - ``negative_views[j]``: the view negated atom j is anti-joined against (default: the facts now);
    - ``first_negation``: match negated atom j *positively* in its view and start there (001 (157));
      if the atom has "for no value" variables, it must also still be false in ``recheck_view``
      for the bound ones (one matching fact gone or added does not decide "no such fact");
    - ``head_view``: only derive head facts found in this view, starting the pipeline there;
    - ``inner_view``: the view aggregate bodies read;
    - ``output``: produce the tuples of this atom (a body atom, for backward chaining) instead of the head's;
    - ``exact_instances`` keeps one row per rule instance up to the head (no semi-joins of
      existential groups), for algorithms that count derivations.
    """
    sources = [atom_source(a, w, stats) for a, w in zip(rule.positive, windows)]
    for aggregate in rule.aggregates:
        agg = aggregate_plan(rule, aggregate, stats, inner_view)
        sources.append(Source(agg, frozenset(agg.columns), 1))
    negative = list(rule.negative)
    views = {id(a): v for a, v in zip(negative, negative_views or [FULL] * len(negative))}
    if first_negation is not None:
        matched = negative.pop(first_negation)
        local = local_variables(rule, matched)
        sources.append(atom_source(rename(matched, local), views[id(matched)], stats))
        first = len(sources) - 1
        if local:
            negative.append(matched)
            views[id(matched)] = recheck_view
    if head_view is not None:
        sources.append(atom_source(rule.head, head_view, stats))
        first = len(sources) - 1
    if not sources:
        sources.append(Source(ir.Values((), ((),)), frozenset(), 1))
    pending = pending_literals(negative, rule.filters, rule.assignments, views)
    produced = output or rule.head
    needed = variables_of(produced)
    if exact_instances:   # keep every variable: one row per rule instance
        needed |= set().union(*(s.names for s in sources))
    plan = order_joins(sources, pending, needed, first, semijoin_groups=not exact_instances)
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(produced.terms))
    return ir.Project(plan, outputs, label=label)


def instance_counts(rule: RuleInfo, windows: Sequence[View | Window], stats: Statistics, **options) -> ir.Node:
    """Per head tuple, the number of rule instances deriving it: columns c0..ck and ``n``.

    An instance is a distinct binding of all the rule's variables (those of its positive atoms,
    assignments and aggregates), so the body is planned without projecting anything away.
    """
    variables = sorted(set().union(*(variables_of(a) for a in rule.positive), set())
                       | {a.variable.name for a in rule.assignments}
                       | {agg.result.name for agg in rule.aggregates}
                       | set().union(*(set(rule.group_by(agg)) for agg in rule.aggregates), set()))
    binding = Atom("#instance", tuple(Variable(v) for v in variables))
    body = rule_plan(rule, windows, stats, exact_instances=True, output=binding, **options)
    renamed = ir.Project(ir.Distinct(body), tuple((v, ir.Col(f"c{i}")) for i, v in enumerate(variables)))
    head_vars = tuple(dict.fromkeys(t.name for t in rule.head.terms if isinstance(t, Variable)))
    counted = ir.Aggregate(renamed, head_vars, "count", None, "n")
    outputs = tuple((f"c{i}", term(t)) for i, t in enumerate(rule.head.terms)) + (("n", ir.Col("n")),)
    return ir.Project(counted, outputs)
