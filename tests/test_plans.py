"""Golden plans: the planner's decisions, pinned by the IR's printed form.

Each case is a rule, the views its atoms read and fixed statistics; the expected text is what
``print(plan)`` shows. A planner change that alters one of these must say why in its commit.
Statistics are fake and fixed (``FixedStats``), so the plans do not depend on a backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from deltalog.analysis.program import analyse
from deltalog.api import Reasoner
from deltalog.plan import ir
from deltalog.plan.greedy import GreedyPlanner, atom_source
from deltalog.plan.query import BodyQuery, InView, Planner, start_at
from deltalog.plan.rule_rewrites import HeadIn, KeepInstances, MatchNegation, StartAt
from deltalog.plan.rules import (FULL, View, body_query, head_projection, instance_counts, instance_variables,
                                 plan_body, rule_plan)
from deltalog.plan.walk import walk
from deltalog.syntax import parse, parse_file


@dataclass
class FixedStats:
    """Rows per relation (a window starting after generation 0 is a delta of ``delta`` rows);
    every bound column divides the rows by ``selectivity``."""

    sizes: dict[str, int]
    delta: int = 10
    selectivity: int = 10
    asked: list[str] = field(default_factory=list)

    def rows(self, relation, since, until, visible=None, deleted=None) -> int:
        return self.delta if since > 0 or deleted is not None else self.sizes.get(relation, 1000)

    def distinct(self, relation, positions) -> int:
        return max(1, self.sizes.get(relation, 1000) // self.selectivity ** (len(positions) - 1) // self.selectivity)


def rule(text: str, index: int = 0):
    return analyse(parse(text)).rules[index]


def plan_text(plan) -> str:
    return str(plan).strip()


PC = "pc(X, Y) :- cw(X, Z1), ca(X, Z2), pc(Z1, Y), pc(Z2, Y)."
PC_STATS = FixedStats({"cw": 1000, "ca": 1000, "pc": 100_000})


def test_pc_rule_group_becomes_a_semijoin():
    """Delta pc(Z1, Y) first; ca(X, Z2), pc(Z2, Y) share only Z2, needed nowhere else: evaluated on
    their own and semi-joined on (X, Y) instead of expanding every binding through them."""
    info = rule(PC)
    windows = [FULL, FULL, (5, 6), (0, 6)]
    assert plan_text(rule_plan(info, windows, PC_STATS, StartAt(2))) == """\
Project[c0=X, c1=Y]
  SemiJoin[X, Y]
    Join[Z1]
      Scan pc(Z1, Y) gen[5:6)
      Scan cw(X, Z1) gen[0:)
    Distinct
      Project[X=X, Y=Y]
        Join[Z2]
          Scan ca(X, Z2) gen[0:)
          Scan pc(Z2, Y) gen[0:6)"""


def test_pc_rule_counting_instances_keeps_every_join():
    """Counting derivations needs one row per rule instance: the group is joined, not semi-joined
    (only the last atom, all of its variables bound, is an existence check)."""
    info = rule(PC)
    windows = [FULL, FULL, (5, 6), (0, 6)]
    assert plan_text(rule_plan(info, windows, PC_STATS, StartAt(2), KeepInstances())) == """\
Project[c0=X, c1=Y]
  SemiJoin[Y, Z2]
    Join[X]
      Join[Z1]
        Scan pc(Z1, Y) gen[5:6)
        Scan cw(X, Z1) gen[0:)
      Scan ca(X, Z2) gen[0:)
    Scan pc(Z2, Y) gen[0:6)"""


TC = "path(X, Z) :- path(X, Y), path(Y, Z)."


@pytest.mark.parametrize("delta, windows, expected", [
    (0, [(5, 6), (0, 6)], """\
Project[c0=X, c1=Z]
  Join[Y]
    Scan path(X, Y) gen[5:6)
    Scan path(Y, Z) gen[0:6)"""),
    (1, [(0, 5), (5, 6)], """\
Project[c0=X, c1=Z]
  Join[Y]
    Scan path(Y, Z) gen[5:6)
    Scan path(X, Y) gen[0:5)"""),
], ids=["delta-left", "delta-right"])
def test_seminaive_variants_start_at_the_delta(delta, windows, expected):
    """000 equation (7): variant i reads atom i in the delta, earlier atoms old, later ones full;
    the pipeline starts at the delta atom whatever the sizes say."""
    stats = FixedStats({"path": 10}, delta=1000)   # the delta is not the smallest: first= still wins
    assert plan_text(rule_plan(rule(TC), windows, stats, StartAt(delta))) == expected


def test_without_a_delta_the_smallest_atom_starts():
    info = rule("q(X, Z) :- big(X, Y), small(Y, Z).")
    stats = FixedStats({"big": 100_000, "small": 50})
    assert plan_text(rule_plan(info, [FULL, FULL], stats)) == """\
Project[c0=X, c1=Z]
  Join[Y]
    Scan small(Y, Z) gen[0:)
    Scan big(X, Y) gen[0:)"""


def test_negation_is_placed_as_soon_as_its_variables_are_bound():
    """not g(Z) needs only Z: anti-joined right after f binds it, before the third join."""
    info = rule("q(X, W) :- e(X, Y), f(Y, Z), h(Z, W), not g(Z).")
    stats = FixedStats({"e": 10, "f": 1000, "h": 100_000, "g": 100})
    assert plan_text(rule_plan(info, [FULL] * 3, stats)) == """\
Project[c0=X, c1=W]
  Join[Z]
    Project[X=X, Z=Z]
      AntiJoin[Z]
        Join[Y]
          Scan e(X, Y) gen[0:)
          Scan f(Y, Z) gen[0:)
        Scan g(Z) gen[0:)
    Scan h(Z, W) gen[0:)"""


def test_negation_matched_positively_starts_the_pipeline():
    """001 (157): instances that stop firing because a(X) was added start at the added a-facts;
    the negated atom is read in its own view."""
    info = rule("t(X, Y) :- r(X, Y), not a(X).")
    stats = FixedStats({"r": 1000, "a": 100})
    plan = rule_plan(info, [View(visible=3)], stats, MatchNegation(0, View(4, 5)))
    assert plan_text(plan) == """\
Project[c0=X, c1=Y]
  Join[X]
    Scan a(X) gen[4:5)
    Scan r(X, Y) gen[0:) visible@3"""


def test_negation_with_a_local_variable_is_rechecked():
    """not a(X, _): one added a(X, V) does not decide "no such fact": matched with V renamed
    apart, then anti-joined again in the recheck view."""
    info = rule("t(X, Y) :- r(X, Y), not a(X, _).")
    stats = FixedStats({"r": 1000, "a": 100})
    plan = rule_plan(info, [FULL], stats, MatchNegation(0, View(4, 5), recheck=View(until=4)))
    assert plan_text(plan) == """\
Project[c0=X, c1=Y]
  Join[X]
    AntiJoin[X]
      Distinct
        Project[X=X]
          Scan a(X, _0#matched) gen[4:5)
      Scan a(X, _0) gen[0:4)
    Scan r(X, Y) gen[0:)"""


def test_filters_and_binds_follow_their_variables():
    """A < B once both items are joined; D = abs(PA - PB) then, and D > 10 right after the bind."""
    info = rule("gap(A, B, D) :- item(A, PA), price(B, PB), A < B, D = abs(PA - PB), D > 10.")
    stats = FixedStats({"item": 100, "price": 1000})
    assert plan_text(rule_plan(info, [FULL, FULL], stats)) == """\
Project[c0=A, c1=B, c2=D]
  Filter[D > 10]
    Bind[D = abs((PA - PB))]
      Filter[A < B]
        Join[]
          Scan item(A, PA) gen[0:)
          Scan price(B, PB) gen[0:)"""


def test_filter_on_the_start_atom_comes_before_any_join():
    info = rule("cheap(N, S) :- item(N, P), stock(N, S), P < 1.")
    stats = FixedStats({"item": 100, "stock": 1000})
    assert plan_text(rule_plan(info, [FULL, FULL], stats)) == """\
Project[c0=N, c1=S]
  Join[N]
    Project[N=N]
      Filter[P < 1]
        Scan item(N, P) gen[0:)
    Scan stock(N, S) gen[0:)"""


TRIANGLE = "tri(X, Y, Z) :- e(X, Y), e(Y, Z), e(Z, X)."


def test_triangle_closes_the_cycle_with_a_semijoin():
    """A cyclic body: left-deep, the third edge has all its variables bound: an existence check."""
    stats = FixedStats({"e": 1000})
    assert plan_text(rule_plan(rule(TRIANGLE), [FULL] * 3, stats)) == """\
Project[c0=X, c1=Y, c2=Z]
  SemiJoin[X, Z]
    Join[Y]
      Scan e(X, Y) gen[0:)
      Scan e(Y, Z) gen[0:)
    Scan e(Z, X) gen[0:)"""


def test_triangle_instance_counts():
    """Per head tuple, the number of rule instances (distinct bindings of every variable)."""
    stats = FixedStats({"e": 1000})
    assert plan_text(instance_counts(rule(TRIANGLE), [(5, 6), (0, 6), (0, 6)], stats, StartAt(0))) == """\
Project[c0=X, c1=Y, c2=Z, n=n]
  Aggregate[X, Y, Z; n = count()]
    Project[X=c0, Y=c1, Z=c2]
      Distinct
        Project[c0=X, c1=Y, c2=Z]
          SemiJoin[X, Z]
            Join[Y]
              Scan e(X, Y) gen[5:6)
              Scan e(Y, Z) gen[0:6)
            Scan e(Z, X) gen[0:6)"""


def test_head_bound_by_a_view_starts_the_pipeline():
    """One-step rederivation: bodies evaluated for all deleted head facts at once; the body,
    whose Y the head does not need, is checked as one group."""
    info = rule("path(X, Z) :- path(X, Y), edge(Y, Z).")
    stats = FixedStats({"path": 1000, "edge": 100})
    plan = rule_plan(info, [View(visible=3)] * 2, stats, HeadIn(View(deleted=(3, 4))))
    assert plan_text(plan) == """\
Project[c0=X, c1=Z]
  SemiJoin[X, Z]
    Scan path(X, Z) gen[0:) deleted[3:4)
    Distinct
      Project[X=X, Z=Z]
        Join[Y]
          Scan edge(Y, Z) gen[0:) visible@3
          Scan path(X, Y) gen[0:) visible@3"""


def test_aggregate_body_is_a_subplan():
    """The aggregate (one row per group, estimated 1) starts; group(G) only checks it."""
    info = rule("total(G, T) :- group(G), T = sum S : { score(G, P, S) }.")
    stats = FixedStats({"group": 10, "score": 1000})
    assert plan_text(rule_plan(info, [FULL], stats)) == """\
Project[c0=G, c1=T]
  SemiJoin[G]
    Aggregate[G; T = sum(S)]
      Distinct
        Project[G=G, P=P, S=S]
          Scan score(G, P, S) gen[0:)
    Scan group(G) gen[0:)"""


# ---- the planner seam ------------------------------------------------------------------------------

class RecordingPlanner(Planner):
    """A plug-in planner: records the queries it is asked, plans them greedily."""

    def __init__(self) -> None:
        self.queries: list[BodyQuery] = []
        self.greedy = GreedyPlanner()

    def plan(self, query: BodyQuery, stats) -> ir.Node:
        self.queries.append(query)
        return self.greedy.plan(query, stats)


def test_a_reasoning_plans_with_its_own_planner():
    reasoner = Reasoner("edge(1, 2). edge(2, 3). edge(3, 4).\n"
                        "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).", modules="none")
    reasoner.reasoning.planner = planner = RecordingPlanner()
    reasoner.materialise()
    assert len(reasoner.relation("path")) == 6
    assert any(q.first is not None for q in planner.queries)   # the seminaive rounds start at the delta


def test_rule_plan_is_the_body_query_planned_and_projected():
    info = rule(PC)
    query = start_at(body_query(info, [FULL, FULL, (5, 6), (0, 6)]), 2)
    assert str(query) == """\
body cw(X, Z1) gen[0:)
body ca(X, Z2) gen[0:)
body pc(Z1, Y) gen[5:6) (first)
body pc(Z2, Y) gen[0:6)
needed X, Y"""
    direct = head_projection(plan_body(query, PC_STATS), info.head)
    assert direct == rule_plan(info, [FULL, FULL, (5, 6), (0, 6)], PC_STATS, StartAt(2))


def test_instance_variables_are_every_binding_variable():
    assert instance_variables(rule("q(X) :- e(X, Y), Z = Y + 1, not f(X, W).")) == ("X", "Y", "Z")
    assert instance_variables(rule("n(G, C) :- g(G), C = count : { s(G, P) }.")) == ("C", "G")


PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*/program.dl"))


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.parent.name for p in PROGRAMS])
def test_every_seminaive_variant_starts_at_its_delta(program):
    """Whatever the sizes, the leftmost scan of a variant's plan reads the delta window."""
    stats = FixedStats({}, delta=10**6)   # the delta is the largest relation
    for info in analyse(parse_file(program)).rules:
        n = len(info.positive)
        for i in range(n):
            windows = [(0, 5) if j < i else (5, 6) if j == i else (0, 6) for j in range(n)]
            leftmost = next(s for s in walk(rule_plan(info, windows, stats, StartAt(i))) if isinstance(s, ir.Scan))
            assert (leftmost.relation, leftmost.since, leftmost.until) == (info.positive[i].predicate, 5, 6)


class SmallestFirst(GreedyPlanner):
    """The example of docs/design.md, "Planner seam"."""

    def plan(self, query, stats):
        if query.first is None and query.sources:
            sizes = [atom_source(s.atom, s.view, stats).rows if isinstance(s, InView) else 1
                     for s in query.sources]
            query = replace(query, first=sizes.index(min(sizes)))
        return super().plan(query, stats)


def test_the_design_doc_planner_plugs_in():
    program = (Path(__file__).parent / "programs" / "example1_stratified_negation" / "program.dl").read_text()
    facts = "r(1, 2). r(2, 3). s(3, 4). a(3). b(1).\n"
    plain, custom = Reasoner(facts + program), Reasoner(facts + program)
    custom.reasoning.planner = SmallestFirst()
    plain.materialise(), custom.materialise()
    for p in ("t", "b"):
        assert sorted(custom.relation(p).rows()) == sorted(plain.relation(p).rows())


def test_a_plan_node_type_without_columns_is_refused():
    from dataclasses import dataclass

    with pytest.raises(TypeError, match="Headless does not define its columns"):
        @dataclass(frozen=True)
        class Headless(ir.Node):
            label: str = ""
