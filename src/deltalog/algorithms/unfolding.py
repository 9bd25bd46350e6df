"""A recursive rule's atom over its own stratum unfolded into that predicate's renaming rules, for DRed's
check before deleting (algorithms/lowerbound.py).

The check keeps a candidate of stratum s that a nonrecursive rule of s derives now: such a rule reads only
lower strata, which are final. A recursive rule reads a predicate q of s, whose facts overdeletion may still
delete, so it cannot vouch for a candidate as it stands. But where q's atom is replaced by the body of a
rule of s that renames one atom of a lower stratum (``q(X) :- b(X, Y)``, ``lowerbound.renamed_atom``), the
result reads only final facts (so do q's facts still explicit): an instance of the unfolded rule is an
instance of the recursive rule over a fact of q that a nonrecursive rule derives now, so the candidate is in
the new materialisation (001's non-repetitive DRed stays exact: the facts kept are in I', as for the
nonrecursive rules' check).

On the LUBM-like data, a deleted ``memberOf(s, d)`` of an undergraduate made ``person(s)`` (derived by
``person(Y) :- member(X, Y)``) a candidate that no nonrecursive rule derives: it was overdeleted with what
depends on it, and rederived through ``person(X) :- student(X)``. Unfolded with ``student(X) :-
undergraduateStudent(X)``, that rule is ``person(X) :- undergraduateStudent(X)``, one more renamed atom
to check. Only one level is unfolded, only into renaming rules, and only where the atom reads head variables
alone: then whether a fact of q proves the atom depends on the candidate alone, so the rest of the rule is
planned once (``student(X) :- takesCourse(X, C), course(C)``, one instance per candidate) and the candidates
it derives are kept unless no renaming rule of q derives q's fact now, the renamed atoms probed by index
(``Unfolding.checks``): ``chair``, ``student`` and ``teachingAssistant`` read ``person``, which has five
renaming rules, and one plan each of the unfolded rules cost ~1 ms a predicate (docs/benchmarks.md, stop 20).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator

from deltalog.analysis.program import RuleInfo, Stratum
from deltalog.memo import IdentityMemo
from deltalog.plan import ir
from deltalog.plan.rule_rewrites import HeadIn, WitnessOnly
from deltalog.plan.rules import View, rule_plan
from deltalog.reasoning.context import rule_label
from deltalog.reasoning.update import Update, fact_columns
from deltalog.syntax.ast import Atom, Variable


@dataclass(frozen=True)
class Unfolding:
    """A recursive rule of head ``p`` whose atom over the stratum reads head columns ``on`` only: ``rest`` is
    the rule without that atom (None: it had no other), ``proofs`` the scans of the facts now of the renaming
    rules of the atom's predicate, with the head's column names."""

    rest: RuleInfo | None
    proofs: tuple[ir.Scan, ...]
    on: tuple[str, ...]
    own: ir.Scan   # the atom over the stratum, its columns named as the head's

    def all_proofs(self, update: Update) -> tuple[ir.Scan, ...]:
        """The atom's predicate's facts still explicit if it has some (E \\ E⁻, first, as ``lowerbound.checks``
        asks them), then ``proofs``."""
        if (explicit := update.explicit_store(self.own.relation)) is None:
            return self.proofs
        return (ir.Scan(explicit, self.own.terms), *self.proofs)

    def checks(self, update: Update, found: View, candidates: ir.Node) -> Iterator[ir.Node]:
        """Plans of the candidates (stored in ``found``) this unfolding derives now, by columns c0..ck. Without
        a rest, each proof (a union would be a subplan, its rows sorted; a scan is probed by an index); else
        the rest's candidates less those no proof holds for (the candidates anti-joined with each proof),
        one plan where one per unfolded rule is a join each."""
        proofs = self.all_proofs(update)
        if self.rest is None or not proofs:
            yield from proofs
            return
        unproved = candidates
        for proof in proofs:
            unproved = ir.AntiJoin(unproved, proof, self.on)
        arity = len(self.rest.head.terms)
        derived = rule_plan(self.rest, [View()] * len(self.rest.positive), update.reasoning, HeadIn(found),
                            WitnessOnly(), label=rule_label(self.rest))
        yield ir.AntiJoin(derived, unproved, fact_columns(arity))


def unfolded(stratum: Stratum, head: str) -> tuple[Unfolding, ...]:
    """The recursive rules of ``stratum`` deriving ``head`` with their one atom over the stratum unfolded into
    the renaming rules of that atom's predicate (made once per stratum)."""
    return _UNFOLDED.get(stratum, lambda: unfold_all(stratum)).get(head, ())


_UNFOLDED: IdentityMemo[dict[str, tuple[Unfolding, ...]]] = IdentityMemo(limit=1024)


def unfold_all(stratum: Stratum) -> dict[str, tuple[Unfolding, ...]]:
    from deltalog.algorithms.lowerbound import renamed_atom
    out: dict[str, list[Unfolding]] = {}
    for rule in stratum.recursive:
        if (atom := own_atom(rule, stratum)) is None:
            continue
        column = {t.name: f"c{i}" for i, t in enumerate(rule.head.terms) if isinstance(t, Variable)}
        proofs = tuple(proof_scan(d, atom, column) for d in stratum.nonrecursive
                       if d.head.predicate == atom.predicate and renamed_atom(d) is not None)
        rest = tuple(a for a in rule.positive if a is not atom)
        on = tuple(dict.fromkeys(column[t.name] for t in atom.terms if isinstance(t, Variable)))
        if rest and not set(column) <= {v.name for a in rest for v in a.terms if isinstance(v, Variable)}:
            continue   # the rest binds not every head variable: no plan bound to the candidates alone
        if not rest and len(on) != len(rule.head.terms):
            continue
        own = ir.Scan(atom.predicate, tuple(ir.Col(column[t.name]) for t in atom.terms if isinstance(t, Variable)))
        out.setdefault(rule.head.predicate, []).append(
            Unfolding(replace(rule, positive=rest) if rest else None, proofs, on, own))
    return {head: tuple(found) for head, found in out.items()}


def own_atom(rule: RuleInfo, stratum: Stratum) -> Atom | None:
    """The rule's one positive atom over the stratum, if it has one, of another predicate than its head's,
    reading head variables only (no constant, none repeated), in a rule of positive atoms only (a closure's
    own rules, ``p(X, Z) :- p(X, Y), p(Y, Z)`` or ``p(X, Y) :- p(Y, X)``, are left to their modules)."""
    if rule.negative or rule.filters or rule.assignments or rule.aggregates:
        return None
    own = [a for a in rule.positive if a.predicate in stratum.predicates]
    if len(own) != 1 or own[0].predicate == rule.head.predicate:
        return None
    head = {t.name for t in rule.head.terms if isinstance(t, Variable)}
    names = [t.name for t in own[0].terms if isinstance(t, Variable)]
    if len(names) != len(own[0].terms) or len(set(names)) != len(names) or not set(names) <= head:
        return None
    return own[0]


def proof_scan(definition: RuleInfo, atom: Atom, column: dict[str, str]) -> ir.Scan:
    """The body atom of a renaming rule of ``atom``'s predicate as a scan of the facts now, its columns named
    as the head columns (``column``) of the variables ``atom`` binds its head variables to."""
    (body,) = definition.positive
    named = {}
    for term, value in zip(definition.head.terms, atom.terms):
        assert isinstance(term, Variable) and isinstance(value, Variable), "checked by own_atom, renamed_atom"
        named[term.name] = column[value.name]
    terms = tuple(ir.Col(named.get(t.name, f"{t.name}#body")) if isinstance(t, Variable) else ir.Lit(t)
                  for t in body.terms)
    return ir.Scan(body.predicate, terms)


def decides_every_candidate(stratum: Stratum) -> bool:
    """Whether the check before deleting (algorithms/lowerbound.py with the unfoldings above) keeps exactly
    the candidates of the stratum that the new materialisation holds, so that REDERIVE finds nothing: every
    recursive rule renames another predicate q of the stratum (``member(Y, X) :- memberOf(X, Y)``), whose
    nonrecursive rules all rename a lower atom (the unfolding's proofs: all of q's derivations from outside
    the stratum) and whose recursive rules all rename the head back to itself (``memberOf(X, Y) :-
    member(Y, X)``). A fact of the new materialisation then has a proof whose root is a fact still explicit
    or a nonrecursive rule, of its predicate or of q (a shortest proof through q's recursive rule would be
    longer than one of the fact itself), which the check asks; a candidate the check does not keep is not
    in it, and neither is any fact overdeletion deletes. The LUBM-like inverse pairs (``member``/``memberOf``,
    ``degreeFrom``/``hasAlumnus``) ran two rederivations finding nothing each update (docs/benchmarks.md,
    stop 22)."""
    return _DECIDES.get(stratum, lambda: _decides(stratum))


_DECIDES: IdentityMemo[bool] = IdentityMemo(limit=1024)


def _decides(stratum: Stratum) -> bool:
    from deltalog.algorithms.lowerbound import renamed_atom
    if not stratum.recursive:
        return False
    renamings: dict[tuple[str, str], set[tuple[int, ...]]] = {}
    for rule in stratum.recursive:
        atom = own_atom(rule, stratum)
        if atom is None or len(rule.positive) != 1 or len(atom.terms) != len(rule.head.terms):
            return False
        head = [t.name for t in rule.head.terms if isinstance(t, Variable)]
        if len(set(head)) != len(rule.head.terms):   # a constant or a repeated variable in the head
            return False
        # the head position each of the atom's positions feeds
        renamings.setdefault((rule.head.predicate, atom.predicate), set()).add(
            tuple(head.index(t.name) for t in atom.terms if isinstance(t, Variable)))
    for (p, q), forward in renamings.items():
        if any(renamed_atom(d) is None for d in stratum.nonrecursive if d.head.predicate == q):
            return False
        back = renamings.get((q, p), set())
        if len(forward) != 1 or len(back) != 1 or any(head == q and atom != p for head, atom in renamings):
            return False
        (there,), (again,) = forward, back
        if any(there[again[i]] != i for i in range(len(there))):   # p -> q -> p must be the identity
            return False
    return True
