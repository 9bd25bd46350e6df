"""Rule plans reused across rounds and updates (plan/cache.py): same plans, same results, fewer plannings."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from deltalog.analysis.program import analyse
from deltalog.api import Reasoner
from deltalog.plan.cache import SMALL_ROWS, PlanCache, shape_of
from deltalog.plan.rules import View, rule_plan
from deltalog.plan.rule_rewrites import MatchNegation, StartAt
from deltalog.syntax import parse
from hypothesis import given
from hypothesis import strategies as st

TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n"


@dataclass
class Sizes:
    """Rows per relation; a window after generation 0 holds ``delta`` rows. Counts the questions."""

    sizes: dict[str, int]
    delta: int = 10
    asked: list[str] = field(default_factory=list)
    plan_cache: PlanCache = field(default_factory=PlanCache)

    def rows(self, relation, since, until, visible=None, deleted=None) -> int:
        self.asked.append(relation)
        return self.delta if since > 0 or deleted is not None else self.sizes[relation]

    def distinct(self, relation, positions) -> int:
        return max(1, self.sizes[relation] // 10)


def recursive_rule():
    return analyse(parse(TC)).strata[-1].recursive[0]


def test_shapes_rename_generations_and_keep_literals():
    def shape(*groups):
        return shape_of(groups)[0]

    assert shape([(0, 5), (5, 6), (0, 6)]) == shape([(0, 9), (9, 10), (0, 10)])
    assert shape_of([[(0, 5), (5, 6), (0, 6)]])[1] == (5, 6)
    assert shape([(5, 6)]) != shape([(5, 5)])            # an empty window is another shape
    assert shape([(0, 5)]) != shape([(1, 5)])            # 0 is a literal, not a generation
    assert shape(View(until=4, visible=3)) == shape(View(until=8, visible=7))
    assert shape(View(relation="a")) != shape(View(relation="b"))


def test_a_reused_plan_is_the_plan_planned_afresh():
    rule = recursive_rule()
    stats = Sizes({"path": 1000, "edge": 100})
    first = rule_plan(rule, [(5, 6), (0, 6)], stats, StartAt(0))
    again = rule_plan(rule, [(41, 42), (0, 42)], stats, StartAt(0))
    fresh = rule_plan(rule, [(41, 42), (0, 42)], Sizes({"path": 1000, "edge": 100}), StartAt(0))
    assert str(again) == str(fresh) and str(again) != str(first)
    assert (stats.plan_cache.hits, stats.plan_cache.misses) == (1, 1)


def test_rewrites_are_keyed_by_value_and_the_views_they_read_by_shape():
    """A rewrite's own values (which negated atom is matched) tell variants apart; the views it reads are
    keyed like the atoms' views, by shape, and the reused plan reads the new call's generations."""
    rule = analyse(parse("t(X, Y) :- r(X, Y), not a(X), not b(Y).")).strata[-1].rules[0]
    sizes = {"r": 1000, "a": 100, "b": 100}
    stats = Sizes(sizes)
    rule_plan(rule, [(0, 6)], stats, MatchNegation(0, View(5, 6)))
    again = rule_plan(rule, [(0, 9)], stats, MatchNegation(0, View(8, 9)))
    other = rule_plan(rule, [(0, 9)], stats, MatchNegation(1, View(8, 9)))
    assert str(again) == str(rule_plan(rule, [(0, 9)], Sizes(sizes), MatchNegation(0, View(8, 9))))
    assert "Scan a(X) gen[8:9)" in str(again) and "Scan b(Y) gen[8:9)" in str(other)
    assert (stats.plan_cache.hits, stats.plan_cache.misses) == (1, 2)


def test_plans_are_redone_when_a_size_moves_by_more_than_a_factor_of_two():
    rule = recursive_rule()
    stats = Sizes({"path": 100_000, "edge": 10_000}, delta=1000)
    rule_plan(rule, [(5, 6), (0, 6)], stats, StartAt(0))
    stats.delta = 1900                    # within a factor of 2 of 1000
    rule_plan(rule, [(6, 7), (0, 7)], stats, StartAt(0))
    stats.delta = 2100                    # past it
    rule_plan(rule, [(7, 8), (0, 8)], stats, StartAt(0))
    assert (stats.plan_cache.hits, stats.plan_cache.misses) == (1, 2)


def test_sizes_under_small_rows_are_all_alike():
    rule = recursive_rule()
    stats = Sizes({"path": 100_000, "edge": 10_000}, delta=3)
    rule_plan(rule, [(5, 6), (0, 6)], stats, StartAt(0))
    stats.delta = SMALL_ROWS - 1          # 170x the delta it was planned for, but still small
    rule_plan(rule, [(6, 7), (0, 7)], stats, StartAt(0))
    stats.delta = 2 * SMALL_ROWS + 1      # past a factor of 2 of SMALL_ROWS
    rule_plan(rule, [(7, 8), (0, 8)], stats, StartAt(0))
    assert (stats.plan_cache.hits, stats.plan_cache.misses) == (1, 2)


def test_materialisation_and_updates_agree_with_planning_every_time():
    edges = pl.DataFrame({"c0": list(range(60)) + [5], "c1": list(range(1, 61)) + [2]})

    def run(cached: bool):
        reasoner = Reasoner(TC, modules="none", offload=None)
        if not cached:
            reasoner.reasoning.plan_cache = None
        reasoner.load_tables({"edge": edges})
        reasoner.materialise()
        reasoner.update(delete={"edge": [(10, 11)]})
        reasoner.update(add={"edge": [(10, 11), (60, 0)]})
        return reasoner.relation("path").sort("c0", "c1"), reasoner.reasoning.plan_cache

    cached, cache = run(True)
    uncached, _ = run(False)
    assert cached.equals(uncached)
    assert cache is not None and cache.hits > 5 * cache.misses


_lone_bodies = st.sampled_from(["t(X) :- r(X, Y).", "t(X, Y) :- r(X, Y).", "t(Y) :- r(X, Y), X != Y.",
                                "t(X) :- r(X, Y), not a(Y).", "t(X) :- r(X, X)."])


@given(_lone_bodies, st.lists(st.integers(1, 50), min_size=1, max_size=5, unique=True),
       st.integers(0, 100_000), st.integers(0, 100_000))
def test_a_lone_source_is_planned_and_reused_without_asking_its_size(text, generations, rows, delta):
    """A body of one atom (filters and negations aside) has no join to order: its plan asks no statistic, so
    every reuse in new generations asks none either, and each is the plan planned afresh in them."""
    rule = analyse(parse(text)).strata[-1].rules[0]
    stats = Sizes({"r": rows, "a": rows}, delta=delta)
    for g in generations:
        plan = rule_plan(rule, [(g, g + 1)], stats, StartAt(0), label="rule:t")
        assert plan == rule_plan(rule, [(g, g + 1)], Sizes({"r": rows, "a": rows}, delta=delta, plan_cache=None),
                                 StartAt(0), label="rule:t")
    assert stats.asked == []
    assert (stats.plan_cache.hits, stats.plan_cache.misses) == (len(generations) - 1, 1)
