"""The rewrites of a rule's body query that ``rule_plan`` (plan/rules.py) applies, in the order its
caller lists them: small frozen values over the pure functions of plan.query.

A caller says what it evaluates by listing them, e.g. a seminaive variant ``StartAt(i)`` (start at the
delta atom, 000 equation (7)), one-step rederivation ``NegationsIn(...), HeadIn(deleted), WitnessOnly()``.
The view rewrites address negated atoms and aggregates by position, so they come first; then the
start (``StartAt``, ``MatchNegation`` or ``HeadIn``); then what the result holds (``Produce``,
``KeepInstances``, ``WitnessOnly``).

The plan cache (plan/cache.py) keys a rule variant by its rewrites: compared by value, except for the
views they read, which are part of the call's *shape* (a plan is reused in other generations). So a
rewrite tells the two apart: ``views()`` lists its views, ``key()`` is the rest of its value.

>>> from deltalog.analysis.program import analyse
>>> from deltalog.plan.rules import body_query
>>> from deltalog.syntax import parse
>>> info = analyse(parse("t(X) :- r(X), not a(X).")).strata[0].rules[0]
>>> print(MatchNegation(0, View(4, 5))(body_query(info, [FULL]), info))
body r(X) gen[0:)
body a(X) gen[4:5) (first)
needed X
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import Hashable

from deltalog.analysis.program import RuleInfo
from deltalog.analysis.safety import literal_variables
from deltalog.plan.query import (
    FULL,
    AggregateQuery,
    BodyQuery,
    InView,
    View,
    keep_instances,
    produce,
    start_at,
    starting_with,
    witness_only,
)
from deltalog.plan.translate import variables_of
from deltalog.syntax.ast import Atom, Negation, Variable


class Rewrite(ABC):
    """A rewrite of a rule's body query (subclasses are frozen dataclasses: hashable, equal by value)."""

    @abstractmethod
    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        """The rewritten query."""

    def projected(self, atom: Atom) -> Atom:
        """The atom whose tuples the plan produces (the head unless a rewrite says otherwise)."""
        return atom

    def views(self) -> tuple[View, ...]:
        """The views this rewrite reads (keyed by their shape, see the module's docstring)."""
        return ()

    def key(self) -> Hashable:
        """The rest of its value, for the plan cache's key."""
        return self


@dataclass(frozen=True)
class OneView(Rewrite):
    """A rewrite whose only value is the one view it reads (so its key is its type)."""

    view: View

    def views(self) -> tuple[View, ...]:
        return (self.view,)

    def key(self) -> Hashable:
        return type(self)


@dataclass(frozen=True)
class NegationsIn(Rewrite):
    """Anti-join negated atom j against ``each[j]`` (default, without this rewrite: the facts now)."""

    each: tuple[View, ...]

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        return replace(query, negations=tuple(InView(n.atom, v) for n, v in zip(query.negations, self.each)))

    def views(self) -> tuple[View, ...]:
        return self.each

    def key(self) -> Hashable:
        return NegationsIn, len(self.each)


@dataclass(frozen=True)
class AggregatesIn(OneView):
    """Read every aggregate's body in ``view`` (default, without this rewrite: the facts now)."""

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        return replace(query, sources=tuple(self.read(s) if isinstance(s, AggregateQuery) else s
                                            for s in query.sources))

    def read(self, aggregate: AggregateQuery) -> AggregateQuery:
        """The aggregate with every atom of its body read in the view."""
        body = aggregate.body
        sources = tuple(replace(s, view=self.view) if isinstance(s, InView) else self.read(s) for s in body.sources)
        negations = tuple(replace(n, view=self.view) for n in body.negations)
        return replace(aggregate, body=replace(body, sources=sources, negations=negations))


@dataclass(frozen=True)
class StartAt(Rewrite):
    """Start the pipeline at positive atom ``index`` (the atom read in the delta): ``start_at``."""

    index: int

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        return start_at(query, self.index)


@dataclass(frozen=True)
class MatchNegation(Rewrite):
    """Match negated atom ``index`` *positively* in ``view`` and start there (001 (157)); if it has "for
    no value" variables, it must also still be false in ``recheck`` for the bound ones (one matching
    fact gone or added does not decide "no such fact")."""

    index: int
    view: View
    recheck: View = FULL

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        matched = query.negations[self.index].atom
        local = local_variables(rule, matched)
        rest = query.negations[:self.index] + query.negations[self.index + 1:]
        if local:
            rest += (InView(matched, self.recheck),)
        return starting_with(replace(query, negations=rest), InView(rename(matched, local), self.view))

    def views(self) -> tuple[View, ...]:
        return self.view, self.recheck

    def key(self) -> Hashable:
        return MatchNegation, self.index


@dataclass(frozen=True)
class HeadIn(OneView):
    """Only derive head facts found in ``view``, starting the pipeline there (one-step rederivation,
    backward chaining: bodies evaluated for all candidate head facts at once)."""

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        return starting_with(query, InView(rule.head, self.view))


@dataclass(frozen=True)
class Produce(Rewrite):
    """Produce the tuples of ``atom`` (a body atom, for backward chaining) instead of the head's."""

    atom: Atom

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        return produce(query, self.atom)

    def projected(self, atom: Atom) -> Atom:
        return self.atom


@dataclass(frozen=True)
class KeepInstances(Rewrite):
    """Keep one row per rule instance up to the head (``BodyQuery.instances``): ``keep_instances``."""

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        return keep_instances(query)


@dataclass(frozen=True)
class WitnessOnly(Rewrite):
    """One head tuple per row of the start source is enough (after ``HeadIn``: is each fact derived?);
    the plan is then an ``ir.Witnessed``: ``witness_only``."""

    def __call__(self, query: BodyQuery, rule: RuleInfo) -> BodyQuery:
        return witness_only(query)


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
