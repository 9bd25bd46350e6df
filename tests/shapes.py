"""Hypothesis strategies for the shapes strategies.py rarely draws, each aimed at a fast path:

- ``recursive_renaming_programs``: one recursive stratum of predicates that rename lower atoms
  (``q(X, Y) :- e(Y, X)``) and rules reading one such predicate over head variables beside lower atoms
  (``p(X, Y) :- q(X, Y), f(X, Y)``): DRed's unfolded checks (algorithms/unfolding.py, lowerbound.py);
  with closures, negation and aggregates above them.
- ``dense_chain_programs``: two-atom chains over 50-400 facts of 8-30 values, large enough for the
  bitset chains and witness checks (backends/local/compose.py) and for indexes of many runs.
- ``long_update_sequences``: 6-20 batches, deleting and re-adding the same facts, so that relations are
  compacted (half their rows dead, algorithms/maintain.py) and indexes renumbered between updates.
"""

from __future__ import annotations

from hypothesis import strategies as st

from deltalog.syntax.ast import Aggregate, Atom, Comparison, Constant, Negation, Variable
from deltalog.syntax.statements import Program, Rule
from strategies import DOMAIN, Batch, Facts, Pred, apply_update, existing_rows, rows, update_sequences

X, Y, Z, W = (Variable(n) for n in "XYZW")
EDB = (Pred("e", 2, 0), Pred("f", 2, 0), Pred("g", 1, 0))
IDB = (Pred("p", 2, 1), Pred("q", 2, 1), Pred("r", 1, 1), Pred("t", 2, 1))


def head_vars(arity: int) -> list[Variable]:
    return [X, Y][:arity]


@st.composite
def renaming_rule(draw, head: Pred) -> Rule:
    """``head(X, Y) :- b(...)`` with the head's variables in some order among fresh ones, ``_`` and rarely a
    constant or a repeated variable (those are not renamings: the check must tell them apart)."""
    body_pred = draw(st.sampled_from([p for p in EDB if p.arity >= head.arity]))
    terms: list = draw(st.permutations(head_vars(head.arity) + [Variable("U")] * (body_pred.arity - head.arity)))
    if head.arity < body_pred.arity and draw(st.booleans()):
        terms = [Variable("_", anonymous=True) if t.name == "U" else t for t in terms]
    if draw(st.integers(0, 5)) == 0:
        terms[draw(st.integers(0, len(terms) - 1))] = Constant(draw(st.integers(0, 3)), "int")
    head_terms = tuple(head_vars(head.arity))
    if head.arity == 2 and draw(st.integers(0, 7)) == 0:
        head_terms = (X, X)
    body = tuple(t for t in terms)
    if not {v.name for v in head_terms} <= {t.name for t in body if isinstance(t, Variable)}:
        body = tuple(head_vars(head.arity)) + body[head.arity:]
    return Rule(Atom(head.name, head_terms), (Atom(body_pred.name, body),))


@st.composite
def unfoldable_rule(draw, head: Pred) -> Rule:
    """``head(X, Y) :- own(<head variables>), lower atoms`` (a permutation of the head's variables in own's
    atom); the lower atoms bind every head variable, or there are none and own reads them all."""
    choices = [p for p in IDB if p.name != head.name and p.arity <= head.arity]
    if not choices:
        return draw(renaming_rule(head))
    own = draw(st.sampled_from(choices))
    own_terms = tuple(draw(st.permutations(head_vars(head.arity)))[:own.arity])
    body: list = [Atom(own.name, own_terms)]
    if own.arity < head.arity or draw(st.booleans()):
        lower = draw(st.sampled_from([p for p in EDB if p.arity == 2] if head.arity == 2 else list(EDB)))
        terms = draw(st.permutations(head_vars(head.arity) + [Z] * (lower.arity - head.arity)))
        body.append(Atom(lower.name, tuple(terms)))
        if draw(st.integers(0, 3)) == 0:
            body.append(Atom("g", (draw(st.sampled_from(head_vars(head.arity))),)))
    if draw(st.integers(0, 5)) == 0:
        body.append(Comparison("!=", X, Constant(draw(st.integers(0, 3)), "int")))   # not unfoldable: a filter
    return Rule(Atom(head.name, tuple(head_vars(head.arity))), tuple(draw(st.permutations(body))))


@st.composite
def feedback_rule(draw, head: Pred) -> Rule:
    """A rule closing the cycle: ``head`` from another recursive predicate (maybe transitively)."""
    other = draw(st.sampled_from([p for p in IDB if p.arity == 2]))
    if head.arity == 1:
        return Rule(Atom(head.name, (X,)), (Atom(other.name, (X, Y)), Atom("e", (Y, Z))))
    if draw(st.booleans()):
        return Rule(Atom(head.name, (X, Z)), (Atom(head.name, (X, Y)), Atom(other.name, (Y, Z))))
    return Rule(Atom(head.name, (X, Y)), (Atom(other.name, (Y, X)), Atom("f", (X, Z))))


@st.composite
def upper_rule(draw) -> Rule:
    """A rule of a higher stratum over the recursive one: negation, count/min, or a filter."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return Rule(Atom("s", (X,)), (Atom("g", (X,)), Negation(Atom(draw(st.sampled_from(["p", "q"])), (X, X)))))
    if kind == 1:
        function = draw(st.sampled_from(["count", "min", "max", "sum"]))
        return Rule(Atom("n", (X, Variable("N"))),
                    (Aggregate(Variable("N"), function, Y, (Atom(draw(st.sampled_from(["p", "t"])), (X, Y)),)),))
    if kind == 2:
        return Rule(Atom("u", (X, Y)), (Atom("p", (X, Y)), Negation(Atom("r", (Y,))), Comparison("<", X, Y)))
    return Rule(Atom("s", (X,)), (Atom("r", (X,)), Negation(Atom("q", (X, Variable("_", anonymous=True))))))


@st.composite
def recursive_renaming_programs(draw) -> Program:
    rules: list[Rule] = []
    for head in IDB:
        rules += [draw(renaming_rule(head)) for _ in range(draw(st.integers(0, 2)))]
        rules += [draw(unfoldable_rule(head)) for _ in range(draw(st.integers(0, 2)))]
        if draw(st.integers(0, 2)) == 0:
            rules.append(draw(feedback_rule(head)))
    rules += [draw(upper_rule()) for _ in range(draw(st.integers(0, 2)))]
    return Program(rules=tuple(rules or [Rule(Atom("r", (X,)), (Atom("g", (X,)),))]))


@st.composite
def recursive_renaming_cases(draw, max_batches: int = 6) -> tuple[Program, Facts, list[Batch]]:
    program = draw(recursive_renaming_programs())
    domain = draw(st.sampled_from((3, 4, 5, 6)))
    facts = {p.name: draw(rows(p.arity, 12, domain)) for p in EDB}
    if draw(st.integers(0, 3)) == 0:   # explicit facts of recursive predicates
        facts["q"] = draw(rows(2, 3, domain))
        facts["r"] = draw(rows(1, 2, domain))
    return program, facts, draw(update_sequences(facts, program, max_batches))


# ---------------------------------------------------------------- dense chains

CHAINS = (
    "c(A, B) :- l(A, K), m(K, B).",
    "c(A, B) :- l(A, K), m(K, B), !n(K, B).",
    "c(A, B) :- l(A, K), m(K, B). d(A, B) :- c(A, K), m(K, B), !n(A, B).",
    "c(A, B) :- l(A, B). c(A, B) :- c(A, K), m(K, B).",
    "c(A, B) :- l(A, B). c(A, B) :- l(A, K), c(K, B), A != B.",
    "c(A, B) :- l(A, K), m(K, B). k(A, N) :- N = count B : { c(A, B) }.",
    "o(A) :- l(A, K), m(K, B), n(A, B).",
    "c(B, A) :- l(A, K), m(K, B), A < B. z(A) :- l(A, _), !c(A, _).",
)


@st.composite
def dense_chain_cases(draw, max_batches: int = 5) -> tuple[Program, Facts, list[Batch]]:
    """A two-atom chain program over 50-400 facts of 8-30 ints and its updates (some of 20-60 facts)."""
    from deltalog.syntax.parser import parse
    program = parse(" ".join(draw(st.lists(st.sampled_from(CHAINS), min_size=1, max_size=2, unique=True))))
    values = draw(st.integers(8, 30))
    pairs = st.tuples(st.integers(0, values - 1), st.integers(0, values - 1)).map(
        lambda t: (("int", t[0]), ("int", t[1])))
    facts = {p: draw(st.sets(pairs, min_size=size // 2, max_size=size))
             for p, size in (("l", draw(st.integers(20, 200))), ("m", draw(st.integers(20, 200))),
                             ("n", draw(st.integers(0, 60))))}
    batches: list[Batch] = []
    state = {p: set(rs) for p, rs in facts.items()}
    for _ in range(draw(st.integers(1, max_batches))):
        delete = draw(existing_rows(state, draw(st.sampled_from((2, 30, 80)))))
        add = {p: draw(st.sets(pairs, max_size=draw(st.sampled_from((2, 20, 60))))) - delete.get(p, set())
               for p in draw(st.lists(st.sampled_from(("l", "m", "n")), unique=True, max_size=2))}
        if draw(st.integers(0, 3)) == 0 and batches:   # re-add what the previous batch deleted
            add = {p: set(rs) - delete.get(p, set()) for p, rs in batches[-1][1].items()}
        batches.append(({p: rs for p, rs in add.items() if rs}, {p: rs for p, rs in delete.items() if rs}))
        state = apply_update(state, add, delete)
    return program, facts, batches


# ---------------------------------------------------------------- long update sequences


@st.composite
def long_update_sequences(draw, facts: Facts, program: Program) -> list[Batch]:
    """6-20 batches: update_sequences' kinds, and deleting then re-adding the same facts (their rows die,
    relations are compacted when half their rows are dead, and the re-added facts get new rows)."""
    batches: list[Batch] = []
    state = {p: set(rs) for p, rs in facts.items()}
    while len(batches) < draw(st.integers(6, 20)):
        if draw(st.booleans()):
            chunk = draw(update_sequences(state, program, max_batches=3))
        else:
            gone = draw(existing_rows(state, 8))
            chunk = [({}, gone), (gone, {})] if draw(st.booleans()) else [({}, gone), ({}, {}), (gone, {})]
        for add, delete in chunk:
            batches.append((add, delete))
            state = apply_update(state, add, delete)
    return batches


assert DOMAIN
