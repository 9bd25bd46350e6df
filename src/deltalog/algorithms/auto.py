"""The ``auto`` maintenance policy: which algorithm an update runs, and when DRed gives up.

Two decisions, both from cheap estimates (docs/maintenance.md, "The auto policy"):

- before the update, per update: ``remat`` past the measured break-even fraction of changed
  explicit facts, else ``dred`` -- but never ``remat`` for an update that deletes nothing;
- during the update: DRed runs with an :class:`OverdeletionBudget`; once its overdeletion passes
  the budget, :class:`OverdeletionBudgetExceeded` is raised, ``apply_update`` rolls the update back
  and rematerialises instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from deltalog.analysis.modules import ModuleKind
from deltalog.analysis.program import AnalysedProgram, RuleInfo, Stratum
from deltalog.memo import IdentityMemo
from deltalog.plan.rules import variables_of
from deltalog.reasoning.update import Update, predicates_read
from deltalog.reasoning.workspace import explicit_relation

REMAT_FRACTION = 0.001
"""Past this fraction of the explicit facts changed *upstream of a generative recursive rule*,
rematerialising from scratch is cheaper: on transitive closures, symmetric-transitive cliques and
RS2 the break-even points measured in docs/maintenance-benchmarks.md lie at 0.001-0.1%."""

BOUNDED_REMAT_FRACTION = 0.01
"""Past this fraction of the explicit facts changed in all (with some deleted), rematerialise.
Without generative recursion, an explicit fact reaches a bounded number of derived facts: on the
LUBM-like data DRed breaks even at 1-2.5% of the explicit facts."""

OVERDELETION_BUDGET_FRACTION = 0.02
"""The facts DRed may overdelete under ``auto``, as a fraction of the derived facts a
rematerialisation would rebuild (every derived predicate's facts at the update's start).

Why facts against facts: a rematerialisation derives every derived fact at least once, and DRed
pays for each overdeleted fact several times (found, deleted, checked by rederivation, usually
inserted again), so the two counts are proportional to the work on either side, on any program,
and both are known without running anything (``Update.overdeleted`` already counts every
overdeleted fact).

Why 2%: measured per fact, DRed's overdeletion costs 8x a rematerialisation's derivation on a
1,000-edge chain (0.73 s for 250,500 overdeleted facts against 0.09 s to rebuild 250,000), so
overdeleting 2% of the materialisation costs about a sixth of the rematerialisation that replaces
it. On longer chains the whole DRed run is dearer still per fact (2,000 edges: 26x; 4,000 edges:
72x, 74 s against 1.03 s) because every overdeletion round rescans the rows deleted so far: the
cost of reaching a fraction f grows with f squared, which is why the budget is small (at 5% the
abandoned rounds alone took 0.55 s next to the 1.0 s rematerialisation of a 4,000-edge chain).
Measured end to end (docs/maintenance-benchmarks.md, "auto: add-only updates and runaway
overdeletion"): deleting the middle edge of an 8,000-edge chain, ``auto`` takes 1.6x a ``remat``
(most of the abandoned attempt is building indexes on the 32M ``path`` facts), ``dred`` more
than 300 s; on an 11,000-edge chain, on a heavily loaded machine, 1.75-4x: those index builds grow
faster than the rematerialisation (see the benchmark page). Ordinary deletions stay far below
the budget: 1,000 deleted facts on the LUBM-like data (13 universities) overdelete 2,000-3,300
facts, 0.2-0.3% of the derived facts."""

MODULE_REMAT_FRACTION = 0.05
"""Past this fraction of the explicit facts changed upstream of a closure module (003: TC, STC, and
their linear and irreflexive forms), rematerialise. A module maintains its closure by Del/Add over
the closure's inputs, not rule by rule, so the closure's recursion is not generative for DRed.
Measured (docs/benchmarks.md, "Closure modules", round 4; CPU medians, DRed vs rematerialisation):
DAG-R deleting 1% of the edges 0.66 s vs 1.20 s; RS2-400 deleting 0.25% of its explicit facts
0.05 s vs 0.89 s, 2.5% 0.23 s vs 1.05 s, 25% 1.16 s vs 0.79 s: the break-even lies between 2.5%
and 25%."""

CLOSURE_DELETION_WEIGHT = 1 / 8
"""What a fact deleted from a closure module's predicate counts toward the overdeletion budget.
A module deletes by the closure difference of its inputs: exactly the pairs lost, one bitset kernel,
never a rule-by-rule cascade whose cost grows with the square of what it deletes. Measured per
deleted fact against a rematerialisation's derivation (CPU, modules auto): 6-9x, so DRed breaks even
at 11-17% of the materialisation: deleting the middle edge of a 3,000-edge chain loses 2.25M of 4.5M
paths, 1.2-1.5 s against 0.3 s rematerialising (break-even 11%); deleting 1,000 explicit facts of
Claros-like data with 15,000 clusters loses 362k-595k of 6.7M clique pairs (5-9%), 0.52-0.85 s
against 1.4 s (break-even 17%). Counted like rule-by-rule overdeletion, those Claros updates passed
the 2% budget and ``auto`` paid for the abandoned DRed and the rematerialisation (1.7-2.1 s); at
1/8 the budget lets a module delete up to 16% of the materialisation (docs/benchmarks.md, "auto
with closure modules": ``bench/maint_closure_cpu.py claros-15000 1000 3 auto:auto,after:auto,remat:auto``)."""

ADD_REMAT_FRACTION = 0.02
"""Past this fraction of the explicit facts added (after the update, nothing deleted) upstream of
recursion that combines constants (a closure module's or a generative rule's), rematerialise.
Measured (CPU, DRed with modules vs remat, ``bench/maint_closure_cpu.py DATASET K 1
after:auto,remat:auto``, the add half; docs/benchmarks.md "auto: additions"): DAG-R adding 1% of
its edges 0.47 s vs 1.22 s, 2% 1.32 vs 1.01, 5% 2.08 vs 1.15; Claros-like (15,000 clusters) 0.2%
0.72 vs 1.58, 2% 2.51 vs 1.55, 10% 3.41 vs 1.69: break-even at 1-2%. Rule-by-rule generative
recursion (modules none) is taken to break even no lower: 0.18% added to Claros-like took 0.47 s
against 6.48 s rematerialising (docs/maintenance-benchmarks.md)."""

ADD_BOUNDED_REMAT_FRACTION = 0.15
"""Past this fraction of the explicit facts added to the other predicates (nothing deleted),
rematerialise. LUBM-like (1.05M explicit), DRed vs remat CPU: 2% 0.12 vs 0.16 s, 5% 0.12 vs 0.19,
10% 0.22 vs 0.24, 33% 0.53 vs 0.42: break-even at 15-20%."""

MIN_OVERDELETION_BUDGET = 10_000
"""Never give up before this many overdeleted facts: on a small materialisation DRed and a
rematerialisation both take milliseconds, and giving up would only add a rollback."""


def choose_automatically(update: Update) -> str:
    """``remat`` past the measured break-even fraction of changed explicit facts (lower ones for
    changes that feed recursion), else ``dred`` (measured faster than FBF/B/F on LUBM-like data and
    much faster on cliques, where backward chaining explores everything).

    An update that only adds is judged by its own, higher fractions (``ADD_REMAT_FRACTION``,
    ``ADD_BOUNDED_REMAT_FRACTION``): DRed is then seminaive insertion, which derives only new facts,
    but each costs more than a rematerialisation's (probes against the stored facts and indexes)."""
    additions, deletions = staged_changes(update)
    explicit = explicit_facts(update)
    if not explicit:
        return "dred"
    if not deletions:
        limits = (ADD_REMAT_FRACTION, ADD_REMAT_FRACTION, ADD_BOUNDED_REMAT_FRACTION)
    else:   # an update that deletes: judged as a whole, its additions included
        limits = (REMAT_FRACTION, MODULE_REMAT_FRACTION, BOUNDED_REMAT_FRACTION)
    program = update.reasoning.program
    feeding, closures = feeding_sets(program)
    changes = [*additions.items(), *deletions.items()]
    risky = sum(n for p, n in changes if p in feeding)
    closing = sum(n for p, n in changes if p in closures and p not in feeding)
    bounded = sum(n for p, n in changes if p not in closures and p not in feeding)
    past = any(n > fraction * explicit for n, fraction in zip((risky, closing, bounded), limits))
    return "remat" if past else "dred"


def staged_changes(update: Update) -> tuple[dict[str, int], dict[str, int]]:
    """Explicit facts really added and really deleted (after normalisation), per predicate."""
    changes = update.explicit_changes
    return {p: a for p, (_, a) in changes.items() if a}, {p: d for p, (d, _) in changes.items() if d}


def explicit_facts(update: Update) -> int:
    """|E|: the explicit facts of every predicate, wherever they are kept."""
    program, backend = update.reasoning.program, update.backend
    relations = backend.relations()
    stores = [explicit_relation(p) if p in program.idb else p for p in update.reasoning.arities]
    return sum(backend.count(relation=r) for r in stores if r in relations)


def generative(info: RuleInfo, own: frozenset[str]) -> bool:
    """A recursive rule with a head variable missing from one of its own-stratum body atoms, such as
    ``path(X, Z) :- edge(X, Y), path(Y, Z)``: it combines constants into new tuples, so one explicit
    change can reach very many derived facts. ``faculty(X) :- professor(X)`` or
    ``member(Y, X) :- memberOf(X, Y)`` only relabel a tuple."""
    head = variables_of(info.head)
    return any(not head <= variables_of(atom) for atom in info.positive if atom.predicate in own)


_FEEDING: IdentityMemo[tuple[frozenset[str], frozenset[str]]] = IdentityMemo(limit=64)


def feeding_sets(program: AnalysedProgram) -> tuple[frozenset[str], frozenset[str]]:
    """``feeds_generative_recursion`` and ``feeds_closure_modules`` of a program, computed once per
    program (every deleting update asks)."""
    return _FEEDING.get(program, lambda: (frozenset(feeds_generative_recursion(program)),
                                          frozenset(feeds_closure_modules(program))))


def feeds_generative_recursion(program: AnalysedProgram) -> set[str]:
    """The predicates a generative recursive rule that DRed evaluates rule by rule (not one a closure
    module took, see ``MODULE_REMAT_FRACTION``) depends on, directly or through lower strata."""
    def generative_here(stratum: Stratum) -> bool:
        taken = {id(info) for info in module_rules(stratum)}
        return any(generative(info, stratum.predicates) for info in stratum.recursive if id(info) not in taken)
    return upstream_of(program, generative_here)


def feeds_closure_modules(program: AnalysedProgram) -> set[str]:
    """The predicates the rules of a closure module depend on, directly or through lower strata."""
    return upstream_of(program, lambda stratum: bool(module_rules(stratum)))


def upstream_of(program: AnalysedProgram, starts: Callable[[Stratum], bool]) -> set[str]:
    """The predicates of the strata where ``starts`` holds and of every stratum they depend on."""
    feeding: set[str] = set()
    for stratum in reversed(program.strata):
        if stratum.predicates & feeding or starts(stratum):
            feeding |= set(stratum.predicates) | predicates_read(stratum.rules)
    return feeding


def closure_computed(program: AnalysedProgram) -> frozenset[str]:
    """The predicates whose every recursive rule a closure module evaluates (003: TC, STC and their
    forms): their deletions are closure differences, weighed by ``CLOSURE_DELETION_WEIGHT``."""
    return _CLOSURE_COMPUTED.get(program, lambda: frozenset(
        p for stratum in program.strata for p in closure_predicates(stratum)))


_CLOSURE_COMPUTED: IdentityMemo[frozenset[str]] = IdentityMemo(limit=64)


def closure_predicates(stratum: Stratum) -> set[str]:
    """The predicates of a stratum with recursive rules, all of them taken by closure modules."""
    taken = {id(info) for info in module_rules(stratum)}
    heads = {info.head.predicate for info in stratum.recursive}
    return {p for p in heads
            if all(id(info) in taken for info in stratum.recursive if info.head.predicate == p)}


def module_rules(stratum: Stratum) -> list[RuleInfo]:
    """The rules closure modules evaluate in a stratum (none with ``modules="none"``)."""
    return [info for choice in stratum.modules if choice.kind is not ModuleKind.SEMINAIVE for info in choice.rules]


# ---- giving up on a runaway overdeletion -----------------------------------------------------

class OverdeletionBudgetExceeded(Exception):
    """Internal signal: DRed under ``auto`` overdeleted more than its budget. ``apply_update``
    catches it after rolling the update back, and rematerialises instead."""

    def __init__(self, spent: int, limit: int) -> None:
        super().__init__(f"overdeleted {spent:,} facts, past the budget of {limit:,}")
        self.spent, self.limit = spent, limit


@dataclass
class OverdeletionBudget:
    """How many facts an update may overdelete before it is abandoned (see
    ``OVERDELETION_BUDGET_FRACTION``). The limit is computed at the first overdeletion, so updates
    that delete nothing never count the materialisation (a Spark job per predicate on Spark)."""

    fraction: float = OVERDELETION_BUDGET_FRACTION
    floor: int = MIN_OVERDELETION_BUDGET
    limit: int | None = None
    spent: int = 0   # facts deleted rule by rule
    closure_facts: int = 0   # facts of closure-computed predicates deleted (by a module's Del, or nonrecursive rules)

    def spend(self, update: Update, predicate: str, facts: int) -> None:
        """Record facts of ``predicate`` just overdeleted; raise once the total passes the limit.
        Facts of a predicate closure modules compute count ``CLOSURE_DELETION_WEIGHT`` each."""
        if predicate in closure_computed(update.reasoning.program):
            self.closure_facts += facts
        else:
            self.spent += facts
        if self.limit is None:
            self.limit = max(self.floor, int(self.fraction * rematerialisation_size(update)))
        if self.charged > self.limit:
            raise OverdeletionBudgetExceeded(self.charged, self.limit)

    @property
    def charged(self) -> int:
        return self.spent + int(self.closure_facts * CLOSURE_DELETION_WEIGHT)


def rematerialisation_size(update: Update) -> int:
    """The derived facts a rematerialisation would rebuild: every derived predicate's facts in I
    (the old materialisation, read as of the update's start whatever has been deleted since)."""
    return sum(update.count(p, update.views.old) for p in update.reasoning.program.idb)
