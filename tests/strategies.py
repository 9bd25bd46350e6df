"""Hypothesis strategies: random stratified, safe deltalog programs with facts, and update batches over them."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import Mapping

from hypothesis import settings, strategies as st

from deltalog.syntax.ast import Aggregate, Atom, BinaryOp, Call, Comparison, Constant, Negation, Variable
from deltalog.syntax.statements import Program, Rule

Value = tuple[str, object]


def examples(ci: int) -> settings:
    """``ci`` examples under the ``ci`` profile (a property whose examples are slow keeps the suite's time),
    the profile's own number under the others (``DELTALOG_HYPOTHESIS=thorough``: 2,000; tests/conftest.py)."""
    ci_profile = os.environ.get("DELTALOG_HYPOTHESIS", "ci") == "ci"
    return settings(max_examples=ci if ci_profile else settings.default.max_examples)



Facts = dict[str, set[tuple[Value, ...]]]
Batch = tuple[Facts, Facts]

DOMAIN: tuple[Value, ...] = (
    ("int", 0), ("int", 1), ("int", 2), ("string", "a"), ("int", 3), ("int", 4), ("string", "b"), ("int", 5),
    ("float", 2.5), ("int", -1), ("iri", "http://x/a"), ("float", 1.0), ("string", ""),
)
"""The values facts are drawn from: ints 0-5 and two strings, then a float, a negative int, an IRI, a float
equal to an int and the empty string; each example uses a prefix of it (mostly of the first eight)."""
CONSTANTS = DOMAIN[:5]
"""The values program constants are drawn from (so that they usually occur in the facts)."""
POOL = ("X", "Y", "Z", "W")
FILTERS = ("!=", "<", "<=", "=", ">", ">=")


@dataclass(frozen=True)
class Pred:
    """A predicate of a generated schema: ``level`` 0 is EDB; ``floaty`` ones may hold floats (from ``/``)."""

    name: str
    arity: int
    level: int
    floaty: bool = False


# ---------------------------------------------------------------- small pieces


def constant(value: Value) -> Constant:
    return Constant(value[1], value[0])


values = st.sampled_from(CONSTANTS)
constants = values.map(constant)
small_ints = st.integers(0, 5).map(lambda i: Constant(i, "int"))


@st.composite
def schemas(draw, max_idb: int = 6) -> list[Pred]:
    """2-3 EDB predicates and 2-``max_idb`` IDB predicates at non-decreasing levels >= 1 (arities 0-3)."""
    arity = st.sampled_from((1, 2, 3, 1, 2, 0))
    preds = [Pred(f"e{i}", draw(arity), 0) for i in range(draw(st.integers(2, 3)))]
    level = 1
    for i in range(draw(st.integers(2, max(2, max_idb)))):
        level += i > 0 and draw(st.booleans())
        preds.append(Pred(f"p{i}", draw(arity), level, draw(st.booleans())))
    return preds


class Names:
    """Fresh variable names within one rule."""

    def __init__(self) -> None:
        self.counters: dict[str, itertools.count] = {}

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counters.setdefault(prefix, itertools.count()))}"

    def anonymous(self) -> Variable:
        return Variable(self.fresh("_G"), anonymous=True)


def named(terms) -> list[str]:
    """Names of the non-anonymous variables among ``terms``, first occurrence order."""
    return list(dict.fromkeys(t.name for t in terms if isinstance(t, Variable) and not t.anonymous))


@st.composite
def positive_atom(draw, preds: list[Pred], bound: list[str], names: Names) -> Atom:
    """An atom over pool variables (mostly fresh ones, sometimes repeated), constants and ``_``.

    It shares a variable with ``bound`` (the variables of earlier atoms) when there are any.
    """
    pred = draw(st.sampled_from(preds))
    terms: list = []
    for _ in range(pred.arity):
        used = list(dict.fromkeys(bound + named(terms)))
        fresh = [v for v in POOL if v not in used]
        choice = draw(st.integers(0, 9))
        if choice <= 4 and fresh:
            terms.append(Variable(fresh[0]))
        elif choice <= 6 and used:
            terms.append(Variable(draw(st.sampled_from(used))))
        elif choice == 8:
            terms.append(names.anonymous())
        elif choice == 9:
            terms.append(Variable(draw(st.sampled_from(POOL))))
        else:
            terms.append(constant(draw(values)))
    if bound and pred.arity and not set(named(terms)) & set(bound):
        terms[draw(st.integers(0, pred.arity - 1))] = Variable(draw(st.sampled_from(bound)))
    return Atom(pred.name, tuple(terms))


@st.composite
def atoms(draw, preds: list[Pred], names: Names, max_size: int = 3, first: Pred | None = None) -> list[Atom]:
    """1..max_size connected positive atoms, the first over ``first`` if given."""
    body: list[Atom] = []
    for i in range(draw(st.integers(1, max_size))):
        choices = [first] if i == 0 and first is not None else preds
        body.append(draw(positive_atom(choices, named(t for a in body for t in a.terms), names)))
    return body


def operand(bound: list[str]) -> st.SearchStrategy:
    return st.sampled_from([Variable(v) for v in bound]) | small_ints if bound else small_ints


@st.composite
def comparison(draw, bound: list[str]) -> Comparison:
    """``X op Y``, ``X op 3``, ``X op a`` or ``X op (Y + 1)`` over bound variables."""
    op = draw(st.sampled_from(FILTERS))
    left = Variable(draw(st.sampled_from(bound)))
    others = [v for v in bound if v != left.name]
    kind = draw(st.integers(0, 3)) if others else draw(st.integers(1, 2))
    if kind == 1:
        return Comparison(op, left, draw(small_ints))
    if kind == 2:
        return Comparison(op, left, draw(constants))
    right = Variable(draw(st.sampled_from(others)))
    return Comparison(op, left, right if kind == 0 else BinaryOp("+", right, Constant(1, "int")))


@st.composite
def negation(draw, preds: list[Pred], bound: list[str], names: Names) -> Negation:
    """``not q(...)`` over bound variables, constants and sometimes a "for no value" variable or ``_``."""
    pred = draw(st.sampled_from(preds))
    local = names.fresh("U")
    terms = []
    for _ in range(pred.arity):
        choice = draw(st.integers(0, 7))
        if choice <= 4 and bound:
            terms.append(Variable(draw(st.sampled_from(bound))))
        elif choice == 6:
            terms.append(Variable(local))
        elif choice == 7:
            terms.append(names.anonymous())
        else:
            terms.append(constant(draw(values)))
    return Negation(Atom(pred.name, tuple(terms)))


@st.composite
def bind(draw, bound: list[str], names: Names, arithmetic: bool, division: bool) -> tuple[Comparison, str]:
    """``B = expr`` and ``B``: abs/min/max/copy always (no new values), + - * % (and /) only when allowed."""
    target = Variable(names.fresh("B"))
    kinds = ["abs", "min", "max", "copy"] + (["+", "-", "*", "%"] if arithmetic else []) + (["/"] if division else [])
    kind = draw(st.sampled_from(kinds))
    x = draw(operand(bound))
    if kind == "copy":
        expr = x if bound else draw(small_ints)
    elif kind == "abs":
        expr = Call("abs", (x,))
    elif kind in ("min", "max"):
        expr = Call(kind, (x, draw(operand(bound) | constants)))
    else:
        divisor = st.integers(1, 3).map(lambda i: Constant(i, "int"))
        expr = BinaryOp(kind, x, draw(operand(bound) if kind not in "/%" else st.one_of(divisor, operand(bound))))
    flip = draw(st.integers(0, 4)) == 4
    return (Comparison("=", expr, target) if flip else Comparison("=", target, expr)), target.name


# ---------------------------------------------------------------- rules


def readable(schema: list[Pred], head: Pred, strict: bool, floats: bool) -> list[Pred]:
    """Predicates a rule for ``head`` may read: lower levels (``strict``) or up to its own; floaty ones if allowed."""
    top = head.level - 1 if strict else head.level
    return [p for p in schema if p.level <= top and (floats or not p.floaty)]


@st.composite
def join_rule(draw, schema: list[Pred], head: Pred, base: bool = False) -> Rule:
    """Positive atoms (maybe a transitive-closure shape), then filters, negations and BINDs, then the head.

    A ``base`` rule reads only lower levels (so every IDB predicate has a non-recursive way in).
    """
    names = Names()
    positive = readable(schema, head, strict=base, floats=head.floaty)
    binary = [p for p in positive if p.arity == 2]
    if head.arity == 2 and binary and draw(st.integers(0, 2)) == 0:
        body = draw(transitive_body(head, binary))
    else:
        recurse = not base and draw(st.booleans())
        body = draw(atoms(positive, names, first=head if recurse else None))
    bound = named(t for a in body for t in a.terms)
    recursive = any(p.level == head.level for p in schema for a in body if a.predicate == p.name)
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.integers(0, 2))
        if kind == 0 and bound:
            body.append(draw(comparison(bound)))
        elif kind == 1:
            body.append(draw(negation(readable(schema, head, strict=True, floats=True), bound, names)))
        elif kind == 2:
            literal, target = draw(bind(bound, names, arithmetic=not recursive, division=head.floaty and not recursive))
            body.append(literal)
            bound.append(target)
    return Rule(Atom(head.name, draw(head_terms(head.arity, bound))), tuple(body))


@st.composite
def transitive_body(draw, head: Pred, binary: list[Pred]) -> list[Atom]:
    """``q(X, Z), r(Z, Y)`` or symmetric ``q(Y, X)``; often q or r is the head (linear, or nonlinear if both).

    ``binary`` holds the head itself unless this is a base rule.
    """
    pick = st.sampled_from([p.name for p in binary])
    first, second = draw(pick), draw(pick)
    if head in binary and draw(st.booleans()):
        first, second = (head.name, second) if draw(st.booleans()) else (first, head.name)
    x, y, z = Variable("X"), Variable("Y"), Variable("Z")
    return [Atom(first, (x, z)), Atom(second, (z, y))] if draw(st.integers(0, 2)) else [Atom(first, (y, x))]


@st.composite
def head_terms(draw, arity: int, bound: list[str]) -> tuple:
    """Mostly bound variables, sometimes constants."""
    terms = []
    for _ in range(arity):
        i = draw(st.integers(0, len(bound)))
        terms.append(Variable(bound[i]) if i < len(bound) else constant(draw(values)))
    return tuple(terms)


@st.composite
def aggregate_rule(draw, schema: list[Pred], head: Pred, base: bool = False) -> Rule:
    """``h(G..., R) :- [outer atom,] R = f Arg : { body } [, R op c]`` over strictly lower predicates."""
    names = Names()
    functions = ["count", "sum", "min", "max"] + (["avg", "median"] if head.floaty else [])
    function = draw(st.sampled_from(functions))
    floats = function == "count" or head.floaty   # float sums are exactly rounded: any order gives them
    inner = draw(atoms(readable(schema, head, strict=True, floats=floats), names, max_size=2))
    inner_bound = named(t for a in inner for t in a.terms)
    extra = draw(st.integers(0, 3))
    if extra == 1 and inner_bound:
        inner.append(draw(comparison(inner_bound)))
    elif extra == 2:
        inner.append(draw(negation(readable(schema, head, strict=True, floats=True), inner_bound, names)))
    if not inner_bound:
        function = "count"
    omit = not inner_bound or (function == "count" and draw(st.booleans()))
    arg = None if omit else Variable(draw(st.sampled_from(inner_bound)))
    result = Variable("R")
    group = draw(st.lists(st.sampled_from(inner_bound), unique=True, max_size=head.arity - 1)) if inner_bound else []
    body: list = [Aggregate(result, function, arg, tuple(inner))]
    if draw(st.integers(0, 3)) == 0:
        outer = readable(schema, head, strict=base, floats=head.floaty)
        body.insert(0, draw(outer_atom(outer, inner_bound)))
    if draw(st.integers(0, 3)) == 0:
        body.append(Comparison(draw(st.sampled_from(FILTERS)), result, draw(small_ints)))
    return Rule(Atom(head.name, draw(aggregate_head(head.arity, result, group))), tuple(body))


@st.composite
def outer_atom(draw, preds: list[Pred], inner_bound: list[str]) -> Atom:
    """An atom over the aggregate's body variables and constants only (its variables become group variables)."""
    pred = draw(st.sampled_from(preds))
    pick = st.sampled_from([Variable(v) for v in inner_bound]) | constants if inner_bound else constants
    return Atom(pred.name, tuple(draw(pick) for _ in range(pred.arity)))


@st.composite
def aggregate_head(draw, arity: int, result: Variable, group: list[str]) -> tuple:
    """The result at some position, the group variables elsewhere, constants to fill."""
    rest = [Variable(g) for g in group] + [constant(draw(values)) for _ in range(arity - 1 - len(group))]
    position = draw(st.integers(0, arity - 1))
    return tuple(rest[:position] + [result] + rest[position:])


@st.composite
def rule(draw, schema: list[Pred], head: Pred, base: bool = False) -> Rule:
    """A join rule (3 in 4) or an aggregate rule for ``head``."""
    shape = aggregate_rule if draw(st.integers(0, 3)) == 3 and head.arity else join_rule
    return draw(shape(schema, head, base))


# ---------------------------------------------------------------- facts and programs


@st.composite
def rows(draw, arity: int, max_size: int, domain: int = len(DOMAIN)) -> set[tuple[Value, ...]]:
    """A set of up to ``max_size`` tuples over the first ``domain`` values of DOMAIN (sized first, biased up)."""
    size = min(max(draw(st.integers(0, max_size)), draw(st.integers(0, max_size))), domain**arity)
    cells = st.sampled_from(DOMAIN[:domain])
    return draw(st.sets(st.tuples(*[cells] * arity), min_size=size, max_size=size))


@st.composite
def facts_for(draw, schema: list[Pred]) -> Facts:
    """0-15 facts for every EDB predicate over a (drawn) small part of DOMAIN, sometimes a few for IDB predicates."""
    domain = draw(st.sampled_from((5, 4, 6, 8, 3, 13, 11)))
    facts = {p.name: draw(rows(p.arity, 15, domain)) for p in schema if p.level == 0}
    if draw(st.integers(0, 3)) == 0:
        for p in draw(st.lists(st.sampled_from([p for p in schema if p.level > 0]), unique=True, max_size=2)):
            facts[p.name] = draw(rows(p.arity, 4, domain))
    return facts


@st.composite
def programs_and_facts(draw) -> tuple[Program, Facts]:
    """A random stratified, safe program (1-8 rules; the first ones define each IDB predicate in turn) and facts."""
    count = max(draw(st.integers(1, 8)), draw(st.integers(1, 8)))
    schema = draw(schemas(max_idb=min(6, count - 1)))
    idb = [p for p in schema if p.level > 0]
    heads = idb[:count] + [draw(st.sampled_from(idb)) for _ in range(count - len(idb))]
    program = Program(rules=tuple(draw(rule(schema, head, base=i < len(idb))) for i, head in enumerate(heads)))
    return program, draw(facts_for(schema))


# ---------------------------------------------------------------- updates


def arities(facts: Mapping[str, set], program: Program | None = None) -> dict[str, int]:
    """The arity of every predicate seen in ``facts`` or ``program``."""
    found = {p: len(next(iter(rs))) for p, rs in facts.items() if rs}
    if program is not None:
        for rule in program.rules:
            found[rule.head.predicate] = rule.head.arity
            for lit in rule.body:
                for atom in _atoms_of(lit):
                    found.setdefault(atom.predicate, atom.arity)
    return found


def _atoms_of(lit) -> list[Atom]:
    if isinstance(lit, Atom):
        return [lit]
    if isinstance(lit, Negation):
        return [lit.atom]
    if isinstance(lit, Aggregate):
        return [a for inner in lit.body for a in _atoms_of(inner)]
    return []


def apply_update(facts: Mapping[str, set], add: Mapping[str, set], delete: Mapping[str, set]) -> Facts:
    """The explicit facts after one batch: deletions first, then additions (a batch never does both to one fact)."""
    result = {p: set(rs) - set(delete.get(p, ())) for p, rs in facts.items()}
    for p, rs in add.items():
        result.setdefault(p, set()).update(rs)
    return result


def merge(a: Mapping[str, set], b: Mapping[str, set]) -> Facts:
    """The union of two fact dictionaries."""
    return {p: set(a.get(p, ())) | set(b.get(p, ())) for p in {*a, *b}}


def _nonempty(d: Mapping[str, set]) -> Facts:
    return {p: set(rs) for p, rs in d.items() if rs}


@st.composite
def random_rows(draw, preds: list[str], arity: dict[str, int], domain: list[Value], max_size: int = 4) -> Facts:
    out: Facts = {}
    for _ in range(draw(st.integers(0, max_size))):
        p = draw(st.sampled_from(preds))
        out.setdefault(p, set()).add(draw(st.tuples(*[st.sampled_from(domain)] * arity[p])))
    return out


@st.composite
def existing_rows(draw, state: Facts, max_size: int = 4) -> Facts:
    present = sorted(((p, t) for p, rs in state.items() for t in rs), key=repr)
    out: Facts = {}
    if present:
        for p, t in draw(st.lists(st.sampled_from(present), max_size=max_size)):
            out.setdefault(p, set()).add(t)
    return out


@st.composite
def update_sequences(
    draw, facts: Mapping[str, set], program: Program | None = None, max_batches: int = 5,
    values: tuple[Value, ...] = DOMAIN,
) -> list[Batch]:
    """Lists of ``(add, delete)`` batches (disjoint, each ``{pred: set of value tuples}``) starting from ``facts``.

    Batches mix random additions and deletions of present (and sometimes absent) facts, re-adding what
    the previous batch deleted, deleting everything, and (given ``program``) adding facts of IDB predicates.
    New facts are drawn from ``values`` and the values of ``facts``.
    """
    arity = arities(facts, program)
    domain = list(values) + sorted({v for rs in facts.values() for t in rs for v in t} - set(values), key=repr)
    idb = sorted({r.head.predicate for r in program.rules}) if program is not None else []
    edb = sorted(p for p in arity if p not in idb) or sorted(arity)
    state = {p: set(rs) for p, rs in facts.items()}
    batches: list[Batch] = []
    for _ in range(draw(st.integers(0, max_batches))):
        kind = draw(st.sampled_from(("mixed", "readd", "delete_all", "add_idb")))
        if kind == "readd" and batches and any(batches[-1][1].values()):
            add, delete = {p: set(rs) for p, rs in batches[-1][1].items()}, {}
        elif kind == "delete_all":
            add, delete = {}, {p: set(rs) for p, rs in state.items()}
        elif kind == "add_idb" and idb:
            add, delete = draw(random_rows(idb, arity, domain)), draw(existing_rows(state, 1))
        else:
            add = draw(random_rows(edb, arity, domain)) if edb else {}
            delete = draw(existing_rows(state))
            if edb and draw(st.booleans()):  # maybe delete a fact that is not there
                delete = merge(delete, draw(random_rows(edb, arity, domain, 1)))
        add = {p: rs - delete.get(p, set()) for p, rs in add.items()}
        batches.append((_nonempty(add), _nonempty(delete)))
        state = apply_update(state, add, delete)
    return batches


@st.composite
def programs_facts_and_updates(draw, max_batches: int = 5) -> tuple[Program, Facts, list[Batch]]:
    """``programs_and_facts()`` plus ``update_sequences`` over them."""
    program, facts = draw(programs_and_facts())
    return program, facts, draw(update_sequences(facts, program, max_batches))
