"""The analysed program (rules split by literal kind, strata, arities, dependency graph) and ``analyse``."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Iterable, Mapping

from deltalog.analysis.declarations import check_declarations, check_facts, check_heads
from deltalog.analysis.graph import DependencyGraph, build_graph
from deltalog.analysis.identity import base_id, rule_ids
from deltalog.analysis.modules import ModuleChoice
from deltalog.analysis.normalise import atom_variables, normalise_assignments, resolve_equalities
from deltalog.analysis.safety import body_variables, check_safety, literal_variables, negation_locals
from deltalog.analysis.types import check_arities, check_functions, check_types, rule_body_atoms
from deltalog.syntax.ast import Aggregate, Assignment, Atom, Comparison, Literal, Negation, Span
from deltalog.syntax.statements import Declaration, Program, Rule

PredicateWarning = tuple[str, Span]
"""A predicate used in a body (or declared as output) that nothing defines, with where it is used."""


BodyParts = tuple[
    tuple[Atom, ...], tuple[Atom, ...], tuple[Comparison, ...], tuple[Assignment, ...], tuple[Aggregate, ...]
]


def split_body(body: Iterable[Literal]) -> BodyParts:
    """``(positive atoms, negated atoms, filters, assignments in binding order, aggregates)`` of a normalised body."""
    literals, assignments = resolve_equalities(body)
    positive = tuple(lit for lit in literals if isinstance(lit, Atom))
    negative = tuple(lit.atom for lit in literals if isinstance(lit, Negation))
    filters = tuple(lit for lit in literals if isinstance(lit, Comparison))
    aggregates = tuple(lit for lit in literals if isinstance(lit, Aggregate))
    return positive, negative, filters, assignments, aggregates


@dataclass(frozen=True, repr=False)
class RuleInfo:
    """A normalised rule with its body split by literal kind, ready for planning."""

    index: int  # position in program.rules
    rule: Rule  # the normalised rule
    head: Atom
    positive: tuple[Atom, ...]  # positive body atoms, source order
    negative: tuple[Atom, ...]  # negated atoms (variables local to one negated atom are "for no value")
    filters: tuple[Comparison, ...]  # comparisons (not assignments), source order
    assignments: tuple[Assignment, ...]  # BINDs, each only using variables bound before it
    aggregates: tuple[Aggregate, ...]
    existential_negative_variables: frozenset[str] = frozenset()
    id: str = ""  # stable identity (analysis/identity.py): label, else content hash; keys stats, metrics, store

    @classmethod
    def from_rule(cls, index: int, rule: Rule, identity: str = "") -> RuleInfo:
        positive, negative, filters, assignments, aggregates = split_body(rule.body)
        has_negation = any(isinstance(lit, (Negation, Aggregate)) for lit in rule.body)
        locals_ = negation_locals(rule) if has_negation else frozenset()
        return cls(index, rule, rule.head, positive, negative, filters, assignments, aggregates, locals_,
                   identity or base_id(rule))

    @property
    def bound_variables(self) -> frozenset[str]:
        """Variables bound by the positive body atoms."""
        return frozenset(v.name for atom in self.positive for v in atom_variables(atom))

    def __repr__(self) -> str:
        return f"RuleInfo({self.index}, {str(self.rule)!r})"

    @property
    def label(self) -> str:
        return self.rule.label or f"rule {self.index}"

    def group_by(self, aggregate: Aggregate) -> tuple[str, ...]:
        """The aggregate's group-by variables: those of its body that also occur elsewhere in the rule."""
        outside = {v.name for v in atom_variables(self.head)}
        outside |= {v.name for lit in self.rule.body if lit is not aggregate for v in literal_variables(lit)}
        inner = dict.fromkeys(v.name for v in body_variables(aggregate.body))
        return tuple(name for name in inner if name in outside)


@dataclass(frozen=True)
class Stratum:
    """The rules whose head predicate is in ``predicates``, split into Π_r^s and Π_nr^s."""

    index: int  # 0-based, evaluation order
    predicates: frozenset[str]  # head predicates of this stratum
    recursive: tuple[RuleInfo, ...]  # some positive body atom's predicate is in this stratum
    nonrecursive: tuple[RuleInfo, ...]
    modules: tuple[ModuleChoice, ...] = ()  # the split of ``recursive`` into 003's modules (analysis/modules.py)

    @cached_property
    def rules(self) -> tuple[RuleInfo, ...]:
        """All of them in program order; one tuple per stratum (callers cache per rules tuple)."""
        return tuple(sorted(self.recursive + self.nonrecursive, key=lambda info: info.index))


@dataclass(frozen=True)
class AnalysedProgram:
    """A checked program: its normalised rules, strata, arities, IDB/EDB split, dependency graph and warnings."""

    program: Program  # the normalised program
    rules: tuple[RuleInfo, ...]
    strata: tuple[Stratum, ...]
    arities: Mapping[str, int]  # every predicate whose arity is known (rules, facts, extra_arities)
    idb: frozenset[str]  # predicates occurring in some rule head
    edb: frozenset[str]  # every other predicate (facts, inputs, bodies, extra_arities)
    graph: DependencyGraph
    warnings: tuple[PredicateWarning, ...] = ()
    declarations: Mapping[str, Declaration] = field(default_factory=dict)  # @decl by predicate
    unproven: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # head columns checked at run time

    @cached_property
    def rules_by_id(self) -> Mapping[str, RuleInfo]:
        return {info.id: info for info in self.rules}

    def stratum_of(self, predicate: str) -> int:
        """The index of the stratum defining ``predicate``; -1 for EDB-only (or unknown) predicates."""
        return self.graph.stratum_map.get(predicate, -1)


def collect_warnings(program: Program, known: Iterable[str]) -> tuple[PredicateWarning, ...]:
    """Body and output predicates that no rule, fact, input or data file defines (perhaps loaded later)."""
    defined = set(known) | {r.head.predicate for r in program.rules} | {f.atom.predicate for f in program.facts}
    defined |= {d.predicate for d in program.inputs}
    used = [(a.predicate, a.span) for rule in program.rules for a in rule_body_atoms(rule.body)]
    used += [(d.predicate, d.span) for d in program.outputs]
    first: dict[str, Span] = {}
    for predicate, span in used:
        if predicate not in defined:
            first.setdefault(predicate, span)
    return tuple(first.items())


MODULE_CHOICES = ("auto", "none")


def analyse(program: Program, *, extra_arities: Mapping[str, int] = MappingProxyType({}),
            modules: str = "auto") -> AnalysedProgram:
    """Normalise and check a program, then build its dependency graph and strata; raise a DeltalogError if invalid.
    ``modules``: ``auto`` lets closure modules (003) take the rules they match, ``none`` keeps every
    recursive rule seminaive."""
    if modules not in MODULE_CHOICES:
        from deltalog.errors import UsageError
        raise UsageError(f"unknown modules choice {modules!r} (choose from {', '.join(MODULE_CHOICES)})")
    from deltalog.analysis.strata import stratify  # strata builds Stratum objects defined here

    program = normalise_assignments(program)
    arities = check_arities(program, extra_arities)
    declared = check_declarations(program, arities)
    check_facts(program, declared)
    check_functions(program)
    check_types(program)
    check_safety(program)
    graph = build_graph(program)
    ids = rule_ids(program.rules)
    rules = tuple(RuleInfo.from_rule(index, rule, ids[index]) for index, rule in enumerate(program.rules))
    strata = stratify(graph, rules, closures=modules == "auto")
    idb = frozenset(rule.head.predicate for rule in program.rules)
    edb = (frozenset(arities) | frozenset(graph.nodes)) - idb
    warnings = collect_warnings(program, {**extra_arities, **declared})
    unproven = check_heads(rules, declared)
    return AnalysedProgram(program, rules, strata, MappingProxyType(arities), idb, edb, graph, warnings,
                           MappingProxyType(declared), MappingProxyType(unproven))
