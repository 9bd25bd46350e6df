"""Stable rule identities, independent of where a rule stands in the program.

A rule's id is its label if it has one, else ``#`` and a content hash of the normalised rule
(labels are identifiers, so the two never collide). Statistics, metrics labels and counters are
keyed by it, so reordering rules changes nothing and a changed rule is a new rule. Two rules
that are the same (same label, or same text) get ``/2``, ``/3``... in program order: the only
place where position still matters, and only between rules that cannot be told apart.

``compare_rules`` maps an analysed program onto one rebuilt from a changed rule set (004's view of
rule-set maintenance: which rules stay, which come and go, which strata must be recomputed).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from deltalog.syntax.ast import literal_atoms
from deltalog.syntax.statements import Rule

if TYPE_CHECKING:
    from deltalog.analysis.program import AnalysedProgram

HASH_PREFIX, DUPLICATE_SEPARATOR = "#", "/"
HASH_DIGITS = 12


def content_hash(rule: Rule) -> str:
    """``#`` and a hash of the rule's text without its label (the text of the normalised rule)."""
    text = str(dataclasses.replace(rule, label=None))
    return HASH_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:HASH_DIGITS]


def base_id(rule: Rule) -> str:
    return rule.label or content_hash(rule)


def rule_ids(rules: Iterable[Rule]) -> tuple[str, ...]:
    """The id of every rule, in order; repeated ids numbered from the second occurrence on."""
    seen: dict[str, int] = {}
    out = []
    for rule in rules:
        found = base_id(rule)
        seen[found] = seen.get(found, 0) + 1
        out.append(found if seen[found] == 1 else f"{found}{DUPLICATE_SEPARATOR}{seen[found]}")
    return tuple(out)


@dataclass(frozen=True)
class RuleSetChange:
    """How a rebuilt program's rules relate to the old one's, by id."""

    kept: frozenset[str]
    added: frozenset[str]
    removed: frozenset[str]
    unchanged_predicates: frozenset[str]
    """Derived predicates whose stored facts (and counters) stay valid: their defining rules and
    everything those read, down to the explicit facts, are the same in both programs."""


def compare_rules(old: AnalysedProgram, new: AnalysedProgram) -> RuleSetChange:
    """Map ``new`` (analysed from a changed rule set) onto ``old``'s stored relations."""
    old_ids, new_ids = {i.id for i in old.rules}, {i.id for i in new.rules}
    return RuleSetChange(frozenset(old_ids & new_ids), frozenset(new_ids - old_ids), frozenset(old_ids - new_ids),
                         frozenset(unchanged_predicates(old, new)))


def unchanged_predicates(old: AnalysedProgram, new: AnalysedProgram) -> set[str]:
    """Walk ``new``'s strata bottom-up: a stratum is unchanged when it has the same rule ids as the
    old stratum of its predicates and reads only unchanged (or explicit-only) predicates."""
    old_rules = {p: frozenset(i.id for i in s.rules) for s in old.strata for p in s.predicates}
    unchanged: set[str] = set()
    for stratum in new.strata:
        ids = frozenset(i.id for i in stratum.rules)
        same_rules = all(old_rules.get(p) == ids for p in stratum.predicates)
        reads = {a.predicate for i in stratum.rules for lit in i.rule.body for a in literal_atoms(lit)}
        reads -= set(stratum.predicates)
        if same_rules and all(p in unchanged or p not in new.idb and p not in old.idb for p in reads):
            unchanged |= set(stratum.predicates)
    return unchanged
