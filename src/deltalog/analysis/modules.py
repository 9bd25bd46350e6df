"""Which modules (003 section 4) evaluate a stratum's recursive rules, chosen by rule shape at analysis.

003 splits Π_r^s into modules Π_r^{s,1} .. Π_r^{s,n}, each with its own Add/Del/Red/Diff plug-ins
(modules/). The choice is made here, once per program, and recorded on the :class:`Stratum`, so
materialisation and every maintenance algorithm use the same modules. Closure modules (003
sections 5 and 6) claim the rules of a binary predicate R whose shape matches exactly (plain
distinct variables; no constants, repeated variables, filters, negation or aggregates):

- TRANSITIVE: ``R(x, z) :- R(x, y), R(y, z)`` (003 section 5); R = X_R⁺, X_R being every R fact
  the other rules of R (and E) give. Linear steps ``R(x, z) :- R(x, y), E(y, z)`` / ``R(x, z) :-
  E(x, y), R(y, z)`` whose E also has the base rule ``R(x, y) :- E(x, y)`` are implied by
  transitivity and are claimed too.
- SYMMETRIC: ``R(x, y) :- R(y, x)`` plus transitivity (003 section 6): the components' cliques.
- LINEAR: no transitivity rule, the recursive rules of R are all steps of one direction, and
  every step relation E has the base rule; then R = S⁺ ∪ X_o ∪ X_o∘S⁺ (right steps; mirrored for
  left steps) for S the union of the step relations and X_o the other facts of R. A step may be
  derived in R's stratum (``q(x, y) :- p(x, y), x != 1``): its rules stay seminaive beside the
  module, and the module's Del measures losses against the steps final facts give (modules/transitive.py).
- Irreflexive forms of the three (RS1, RS2): every transitivity or step rule carries exactly one
  filter, ``!=`` between the head's two variables (``R(x, z) :- R(x, y), R(y, z), x != z``); the
  symmetric rule has none. Any path between two distinct nodes contains a simple path, on which
  every prefix pair is distinct, so R = {(x, y) ∈ closure : x ≠ y} ∪ X_R: the diagonal facts
  come only from the external facts (``irreflexive`` on the choice; modules/closure.py).

Every other recursive rule stays in one seminaive module (RS2's mutual recursion, a ``!=``
filter on a body variable, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Iterable

from deltalog.syntax.ast import Atom, Variable

if TYPE_CHECKING:
    from deltalog.analysis.program import RuleInfo


class ModuleKind(Enum):
    """An implementation of the plug-ins (modules/ maps each kind to its class)."""

    SEMINAIVE = "seminaive"   # 003 section 4.1: Add by seminaive evaluation, DRed's Del and Red
    TRANSITIVE = "transitive"   # 003 section 5: R = X_R⁺ by TransitiveClosure plans
    SYMMETRIC = "symmetric-transitive"   # 003 section 6: components, by ComponentPairs plans
    LINEAR = "linear-transitive"   # R = (S ∪ X_o)∘S* (right steps) or its mirror (left steps)


@dataclass(frozen=True)
class ModuleChoice:
    """One module of a stratum: its kind and the recursive rules it evaluates; a closure module also
    names its predicate, and a linear one its step relations and direction (``flip``: left steps)."""

    kind: ModuleKind
    rules: tuple[RuleInfo, ...]
    predicate: str = ""
    steps: tuple[str, ...] = ()
    flip: bool = False
    irreflexive: bool = False   # the transitivity/step rules carry ``x != z`` on the head's variables

    def describe(self) -> str:
        if self.kind is ModuleKind.SEMINAIVE:
            return f"seminaive: {', '.join(r.label for r in self.rules)}"
        steps = f" over {' ∪ '.join(self.steps)}{' (left steps)' if self.flip else ''}" if self.steps else ""
        kind = f"irreflexive {self.kind.value}" if self.irreflexive else self.kind.value
        return f"{kind} {self.predicate}{steps}: {', '.join(r.label for r in self.rules)}"


# ---- rule shapes ---------------------------------------------------------------------------------

def _vars(atom: Atom) -> tuple[str, ...] | None:
    """The variable names of a binary atom with two distinct plain variables, else None."""
    if len(atom.terms) != 2 or not all(isinstance(t, Variable) for t in atom.terms):
        return None
    names = tuple(t.name for t in atom.terms)   # type: ignore[union-attr]
    return names if names[0] != names[1] else None


def _plain(info: RuleInfo, atoms: int, irreflexive: bool = False) -> bool:
    """Only ``atoms`` positive binary atoms of distinct plain variables (and, ``irreflexive``, exactly
    the filter ``x != z`` on the head's variables x, z in either order)."""
    filters = 1 if irreflexive else 0
    if (info.negative or info.assignments or info.aggregates or len(info.filters) != filters
            or len(info.positive) != atoms or len(info.rule.body) != atoms + filters or _vars(info.head) is None
            or not all(_vars(a) is not None for a in info.positive)):
        return False
    return not irreflexive or _head_disequality(info)


def _head_disequality(info: RuleInfo) -> bool:
    (f,) = info.filters
    if f.op != "!=" or not isinstance(f.left, Variable) or not isinstance(f.right, Variable):
        return False
    return {f.left.name, f.right.name} == set(_vars(info.head) or ())


def transitive(info: RuleInfo, r: str, irreflexive: bool = False) -> bool:
    """``R(x, z) :- R(x, y), R(y, z)`` (either body order; ``irreflexive``: with ``x != z``)."""
    if (info.head.predicate != r or not _plain(info, 2, irreflexive)
            or any(a.predicate != r for a in info.positive)):
        return False
    x, z = _vars(info.head)   # type: ignore[misc]
    for first, second in (info.positive, info.positive[::-1]):
        (a, y), (y2, c) = _vars(first), _vars(second)   # type: ignore[misc]
        if a == x and c == z and y == y2 and len({x, y, z}) == 3:
            return True
    return False


def symmetric(info: RuleInfo, r: str) -> bool:
    """``R(x, y) :- R(y, x)``."""
    if info.head.predicate != r or not _plain(info, 1) or info.positive[0].predicate != r:
        return False
    return _vars(info.head) == _vars(info.positive[0])[::-1]   # type: ignore[index]


def step(info: RuleInfo, r: str, irreflexive: bool = False) -> tuple[str, bool] | None:
    """``R(x, z) :- R(x, y), E(y, z)`` -> (E, False); ``R(x, z) :- E(x, y), R(y, z)`` -> (E, True)
    (``irreflexive``: with ``x != z``)."""
    if info.head.predicate != r or not _plain(info, 2, irreflexive):
        return None
    own = [a for a in info.positive if a.predicate == r]
    other = [a for a in info.positive if a.predicate != r]
    if len(own) != 1 or len(other) != 1:
        return None
    x, z = _vars(info.head)   # type: ignore[misc]
    (a, b), (c, d) = _vars(own[0]), _vars(other[0])   # type: ignore[misc]
    if len({x, z, b if a == x else a}) != 3:
        return None
    if a == x and b == c and d == z:
        return other[0].predicate, False
    if c == x and d == a and b == z:
        return other[0].predicate, True
    return None


def base(info: RuleInfo, r: str) -> str | None:
    """``R(x, y) :- E(x, y)`` -> E."""
    if info.head.predicate != r or not _plain(info, 1) or info.positive[0].predicate == r:
        return None
    return info.positive[0].predicate if _vars(info.head) == _vars(info.positive[0]) else None


# ---- the choice ------------------------------------------------------------------------------------

def choose_modules(recursive: tuple[RuleInfo, ...], nonrecursive: tuple[RuleInfo, ...] = (),
                   closures: bool = True) -> tuple[ModuleChoice, ...]:
    """Split Π_r^s into modules by rule shape: closure modules first claim the rules they match
    exactly (``closures=False``: none do), every other rule goes to one seminaive module."""
    if not recursive:
        return ()
    chosen = [c for r in _binary_heads(recursive) if closures and (c := _closure(r, recursive, nonrecursive))]
    claimed = {id(info) for c in chosen for info in c.rules}
    rest = tuple(info for info in recursive if id(info) not in claimed)
    return ((ModuleChoice(ModuleKind.SEMINAIVE, rest),) if rest else ()) + tuple(chosen)


def _binary_heads(rules: Iterable[RuleInfo]) -> list[str]:
    return sorted({info.head.predicate for info in rules if len(info.head.terms) == 2})


def _closure(r: str, recursive: tuple[RuleInfo, ...], nonrecursive: tuple[RuleInfo, ...]) -> ModuleChoice | None:
    own = [info for info in recursive if info.head.predicate == r]
    bases = {e for info in own + [i for i in nonrecursive if i.head.predicate == r] if (e := base(info, r))}
    for irreflexive in (False, True):
        if choice := _shape(r, own, bases, irreflexive):
            return choice
    return None


def _shape(r: str, own: list[RuleInfo], bases: set[str], irreflexive: bool) -> ModuleChoice | None:
    trans = [info for info in own if transitive(info, r, irreflexive)]
    sym = [info for info in own if symmetric(info, r)]
    if trans and sym:
        return ModuleChoice(ModuleKind.SYMMETRIC, tuple(trans + sym), r, irreflexive=irreflexive)
    if trans:
        implied = [info for info in own if (s := step(info, r, irreflexive)) and s[0] in bases]
        return ModuleChoice(ModuleKind.TRANSITIVE, tuple(trans + implied), r, irreflexive=irreflexive)
    reading = [info for info in own if any(a.predicate == r for a in info.positive)]
    steps = [step(info, r, irreflexive) for info in reading]
    if not reading or any(s is None or s[0] not in bases for s in steps):
        return None
    directions = {s[1] for s in steps if s}
    if len(directions) != 1:
        return None
    names = tuple(sorted({s[0] for s in steps if s}))
    return ModuleChoice(ModuleKind.LINEAR, tuple(reading), r, names, directions.pop(), irreflexive)
