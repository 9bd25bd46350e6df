"""The Yannakakis planner (plan/hypertree.py, 000 sections 2 and 4) and the combined mode (000 section 5).

Golden plans pin the decomposition-based plans of the triangle, the PC rule and a 4-cycle; Hypothesis
compares hd=all, hd=off and the naive reference on random programs with cyclic and long bodies
(triangles, 4-cycles, chains of 6+ atoms, PC-like rules, negation, comparisons), for materialisation
and every maintenance algorithm.
"""

from __future__ import annotations

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from deltalog.api import Reasoner
from deltalog.plan.combined import rule_path, rule_paths
from deltalog.plan.hypertree import YannakakisPlanner
from deltalog.plan.rule_rewrites import KeepInstances, StartAt
from deltalog.plan.rules import FULL, rule_plan
from deltalog.syntax.ast import Atom, Comparison, Constant, Negation, Variable
from deltalog.syntax.statements import Program, Rule
from reference import naive_materialise
from strategies import DOMAIN, apply_update, rows, update_sequences
from test_differential import nonempty, with_facts
from test_maintenance import engine_state, python_rows
from test_plans import PC, FixedStats, rule


class HdStats(FixedStats):
    planner = YannakakisPlanner()


def hd_plan(text: str, windows, *rewrites, sizes=None) -> str:
    stats = HdStats(sizes or {"e": 1000, "cw": 1000, "ca": 1000, "pc": 100_000})
    return str(rule_plan(rule(text), windows, stats, *rewrites)).strip()


def test_triangle_is_one_node():
    """Width 2, one bag {X, Y, Z}: the in-node join of two atoms, the third a semi-join filter."""
    assert hd_plan("t(X, Y, Z) :- e(X, Y), e(Y, Z), e(Z, X).", [(5, 6), FULL, FULL], StartAt(0)) == """\
Project[c0=X, c1=Y, c2=Z]
  SemiJoin[X, Z]
    Join[Y]
      Scan e(X, Y) gen[5:6)
      Scan e(Y, Z) gen[0:)
    Scan e(Z, X) gen[0:)"""


def test_pc_rule_starts_at_the_delta_node():
    """000 section 3: two nodes over {X, Y} (Z1, Z2 projected away inside their nodes); the tree is rooted
    at the node of the delta pc(Z1, Y), whose rows seed the other node (the top-down pass from p_i of
    000 Algorithm 4), and the two node relations are joined on (X, Y)."""
    assert hd_plan(PC, [FULL, FULL, (5, 6), (0, 6)], StartAt(2)) == """\
Project[c0=X, c1=Y]
  Join[X, Y]
    Distinct
      Project[X=X, Y=Y]
        Join[Z1]
          Scan pc(Z1, Y) gen[5:6)
          Scan cw(X, Z1) gen[0:)
    Distinct
      Project[X=X, Y=Y]
        SemiJoin[Y, Z2]
          Join[X]
            Distinct
              Project[X=X, Y=Y]
                Join[Z1]
                  Scan pc(Z1, Y) gen[5:6)
                  Scan cw(X, Z1) gen[0:)
            Scan ca(X, Z2) gen[0:)
          Scan pc(Z2, Y) gen[0:6)"""


def test_four_cycle_reduces_then_joins():
    """A 4-cycle has width 2: bags {W, X, Y} (the delta's) and {W, Y, Z}; Y and W separate them."""
    text = "s(X, Z) :- e(X, Y), e(Y, Z), e(Z, W), e(W, X)."
    assert hd_plan(text, [(5, 6), FULL, FULL, FULL], StartAt(0)) == """\
Project[c0=X, c1=Z]
  Distinct
    Project[X=X, Z=Z]
      Join[W, Y]
        Distinct
          Project[W=W, X=X, Y=Y]
            Join[X]
              Scan e(X, Y) gen[5:6)
              Scan e(W, X) gen[0:)
        Distinct
          Project[W=W, Y=Y, Z=Z]
            SemiJoin[W, Z]
              Join[Y]
                Distinct
                  Project[W=W, Y=Y]
                    Distinct
                      Project[W=W, X=X, Y=Y]
                        Join[X]
                          Scan e(X, Y) gen[5:6)
                          Scan e(W, X) gen[0:)
                Scan e(Y, Z) gen[0:)
              Scan e(Z, W) gen[0:)"""


def test_counting_instances_fall_back_to_greedy():
    """One row per rule instance (Counting, DRed/C) forbids projections: the greedy plan is used."""
    text = "s(X, Z) :- e(X, Y), e(Y, Z), e(Z, W), e(W, X)."
    windows = [(5, 6), FULL, FULL, FULL]
    greedy = str(rule_plan(rule(text), windows, FixedStats({"e": 1000}), StartAt(0), KeepInstances()))
    assert hd_plan(text, windows, StartAt(0), KeepInstances()) == greedy.strip()


def test_negation_with_a_local_variable_and_a_comparison_go_to_a_node():
    text = "s(X, Z) :- e(X, Y), e(Y, Z), e(Z, W), e(W, X), not f(X, V), X != Z."
    plan = hd_plan(text, [FULL] * 4)
    assert "AntiJoin[X]" in plan and "Filter[X != Z]" in plan


def test_modes_choose_per_rule():
    program = Reasoner("t(X, Y, Z) :- e(X, Y), e(Y, Z), e(Z, X).\np(X, Z) :- e(X, Y), e(Y, Z).\n"
                       "q(X) :- e(X, X).", hd="auto")
    assert sorted(program.rule_paths.values()) == ["hd", "standard", "standard"]
    assert sorted(rule_paths(program.analysed, "all").values()) == ["hd", "hd", "standard"]
    assert set(rule_paths(program.analysed, "off").values()) == {"standard"}
    assert rule_path(rule(PC), "auto") == "hd"


def test_stats_count_the_rows_of_each_node():
    # the 4-cycle decomposes into node 0 {Y, Z, W} = e(Y, Z), e(Z, W) and node 1 {W, X, Y} = e(X, Y),
    # e(W, X), seeded from node 0's (W, Y) pairs (the top-down pass pushed into the in-node join)
    edges = "e(1, 2). e(2, 3). e(3, 4). e(4, 1). e(2, 5). e(5, 6)."
    reasoner = Reasoner(edges + "\nsq(X, Z) :- e(X, Y), e(Y, Z), e(Z, W), e(W, X).", hd="all")
    reasoner.materialise()
    (stats,) = reasoner.reasoning.stats.rules.values()
    assert sorted(stats.nodes) == [0, 1]
    # node 0: the six paths y -> z -> w (1-2-3, 2-3-4, 3-4-1, 4-1-2, 1-2-5, 2-5-6); node 1: those
    # closed by x -> y and w -> x, the four rotations of the cycle 1-2-3-4
    assert stats.nodes == {0: 6, 1: 4}
    assert stats.derived == 4
    off = Reasoner(edges + "\nsq(X, Z) :- e(X, Y), e(Y, Z), e(Z, W), e(W, X).", hd="off")
    off.materialise()
    assert all(not s.nodes for s in off.reasoning.stats.rules.values())


def test_the_candidate_decomposition_estimated_cheapest_on_the_data_is_evaluated(monkeypatch):
    """A 4-cycle has two decompositions of width 2: bags {S, T, X} + {S, T, Y} (pairs sharing a course,
    pairs sharing an advisor) or {S, X, Y} + {T, X, Y} (each student's courses with their advisor).
    With many students per advisor the first's root (pairs sharing an advisor) is quadratic, the
    second's node relations linear."""
    import numpy as np
    import polars as pl

    import deltalog.plan.hypertree as hypertree
    rng = np.random.default_rng(0)
    students = 300
    takes = pl.DataFrame({"c0": np.repeat(np.arange(students), 2),
                          "c1": rng.integers(0, 400, students * 2)}).unique()
    advisor = pl.DataFrame({"c0": np.arange(students), "c1": rng.integers(0, 3, students)})
    rule = "cs(S, T) :- t(S, X), t(T, X), a(S, Y), a(T, Y)."

    def node_rows(decompositions) -> tuple[int, int]:
        monkeypatch.setattr(hypertree, "body_decompositions", decompositions)
        reasoner = Reasoner(rule, hd="all")
        reasoner.load("t", takes)
        reasoner.load("a", advisor)
        reasoner.materialise()
        (stats,) = reasoner.reasoning.stats.rules.values()
        return sum(stats.nodes.values()), stats.derived

    every = hypertree.body_decompositions
    assert len(every((frozenset("SX"), frozenset("TX"), frozenset("SY"), frozenset("TY")), (),
                     frozenset("ST"))) == 2
    first_rows, first_derived = node_rows(lambda *shape: every(*shape)[:1])
    second_rows, second_derived = node_rows(lambda *shape: every(*shape)[1:2])
    chosen_rows, chosen_derived = node_rows(every)
    assert first_derived == second_derived == chosen_derived
    assert second_rows * 10 < first_rows   # the data-blind first candidate is the quadratic one
    assert chosen_rows == second_rows


def test_unknown_mode_is_refused():
    from deltalog.errors import UsageError
    with pytest.raises(UsageError):
        Reasoner("p(X) :- e(X).", hd="sometimes")


# ---- Hypothesis: random cyclic and long bodies ---------------------------------------------------

EDB = {"e": 2, "f": 2, "g": 1, "h": 3}
V = [Variable(n) for n in "ABCDEFGHIJ"]


def cycle(preds, names):
    return [Atom(p, (names[i], names[(i + 1) % len(names)])) for i, p in enumerate(preds)]


@st.composite
def body(draw, binary: list[str]):
    shape = draw(st.sampled_from(("triangle", "square", "chain", "pc", "ternary")))
    pick = st.sampled_from(binary)
    if shape == "triangle":
        atoms = cycle([draw(pick) for _ in range(3)], V[:3])
    elif shape == "square":
        atoms = cycle([draw(pick) for _ in range(4)], V[:4])
    elif shape == "chain":
        n = draw(st.integers(6, 7))
        atoms = [Atom(draw(pick), (V[i], V[i + 1])) for i in range(n)]
    elif shape == "pc":
        atoms = [Atom(draw(pick), (V[0], V[2])), Atom(draw(pick), (V[0], V[3])),
                 Atom(draw(pick), (V[2], V[1])), Atom(draw(pick), (V[3], V[1]))]
    else:   # a ternary atom closing a cycle, with a repeated variable or a constant somewhere
        atoms = cycle([draw(pick) for _ in range(3)], V[:3]) + [Atom("h", (V[0], V[2], V[3]))]
        if draw(st.booleans()):
            atoms.append(Atom(draw(pick), (V[3], draw(st.sampled_from((V[3], Constant(1, "int")))))))
    used = sorted({t.name for a in atoms for t in a.terms if isinstance(t, Variable)})
    extra = []
    if draw(st.booleans()):
        x, y = draw(st.sampled_from(used)), draw(st.sampled_from(used))
        extra.append(Comparison(draw(st.sampled_from(("!=", "<", "<="))), Variable(x), Variable(y)))
    if draw(st.booleans()):
        x = draw(st.sampled_from(used))
        local = draw(st.booleans())
        other = Variable("Z") if local else Variable(draw(st.sampled_from(used)))
        extra.append(Negation(Atom("f", (Variable(x), other))))
    if draw(st.booleans()):
        extra.append(Negation(Atom("g", (Variable(draw(st.sampled_from(used))),))))
    head_vars = draw(st.lists(st.sampled_from(used), min_size=2, max_size=2))
    return atoms + extra, head_vars


@st.composite
def cyclic_programs(draw):
    """1-3 rules over e/f/g/h; p binary (recursive when a body uses it), q above p (may negate it)."""
    rules = []
    for _ in range(draw(st.integers(1, 3))):
        head = draw(st.sampled_from(("p", "q")))
        binary = ["e", "f", "p"] if head == "p" else ["e", "p", "q"]
        literals, head_vars = draw(body(binary))
        if head == "q" and draw(st.booleans()):
            literals.append(Negation(Atom("p", (Variable(head_vars[0]), Variable(head_vars[1])))))
        rules.append(Rule(Atom(head, tuple(Variable(v) for v in head_vars)), tuple(literals)))
    rules.append(Rule(Atom("p", (V[0], V[1])), (Atom("e", (V[0], V[1])),)))
    program = Program(rules=tuple(rules))
    domain = len(DOMAIN) - 2
    facts = {p: draw(rows(arity, 12 if arity == 2 else 5, domain)) for p, arity in EDB.items()}
    return program, facts


def state(program, facts, hd, algorithm=None, batches=()):
    reasoner = Reasoner(with_facts(program, facts), hd=hd)
    reasoner.materialise()
    for add, delete in batches:
        reasoner.update(add={p: python_rows(r) for p, r in add.items() if r},
                        delete={p: python_rows(r) for p, r in delete.items() if r}, algorithm=algorithm)
    return engine_state(reasoner, [p for p in ("p", "q") if p in reasoner.analysed.arities])


@settings(max_examples=80, deadline=None)
@given(cyclic_programs())
def test_materialisation_hd_all_equals_off_and_naive(case):
    program, facts = case
    note(str(with_facts(program, facts)))
    expected = nonempty({p: naive_materialise(program, facts).get(p, set()) for p in ("p", "q")})
    assert state(program, facts, "all") == expected
    assert state(program, facts, "off") == expected


@pytest.mark.parametrize("algorithm", ["dred", "dredc", "counting", "fbf", "auto"])
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_maintenance_hd_all_equals_naive(algorithm, data):
    program, facts = data.draw(cyclic_programs())
    batches = data.draw(update_sequences(facts, program, 3))
    note(str(with_facts(program, facts)))
    final = facts
    for add, delete in batches:
        final = apply_update(final, add, delete)
    expected = nonempty({p: naive_materialise(program, final).get(p, set()) for p in ("p", "q")})
    assert state(program, facts, "all", algorithm, batches) == expected
