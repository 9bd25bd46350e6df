"""Delta plans of rules of one positive atom and nothing else (``p(Y) :- q(X, Y)``) are built without the
plan cache (reasoning/instances.one_atom_plan): the same plan the planner makes, and no cache entry asked."""

from __future__ import annotations

from hypothesis import given, strategies as st

from deltalog.analysis.program import analyse
from deltalog.api import Reasoner
from deltalog.plan.query import View
from deltalog.plan.rule_rewrites import NegationsIn, StartAt
from deltalog.plan.rules import rule_plan
from deltalog.reasoning.instances import one_atom, one_atom_plan
from deltalog.syntax import parse
from test_plan_cache import Sizes

VARIABLES = ["X", "Y", "Z"]


@st.composite
def one_atom_rules(draw) -> str:
    """``h(...) :- b(...)`` with body terms from three variables and a constant, the head from the body's."""
    body = draw(st.lists(st.sampled_from(VARIABLES + ["k"]), min_size=1, max_size=4))
    variables = [t for t in body if t != "k"] or ["k"]
    head = draw(st.lists(st.sampled_from(variables + ["c"]), min_size=1, max_size=3))
    if all(t in ("k", "c") for t in body + head):
        head, body = ["X"], body + ["X"]
    return f"h({', '.join(head)}) :- b({', '.join(body)})."


@given(one_atom_rules(), st.sampled_from([View(), View(0, 7, deleted=(7, None)), View(3, 4), View(0, 5, visible=4)]))
def test_the_plan_is_the_planners(rule, view):
    (info,) = analyse(parse(rule)).strata[-1].nonrecursive
    assert one_atom(info)
    stats = Sizes({"b": 1000})
    planned = rule_plan(info, [view], stats, NegationsIn(()), StartAt(0), label="rule:x")
    assert one_atom_plan(info, view, "rule:x") == planned


def test_an_update_of_renaming_rules_asks_no_plan_of_the_cache():
    r = Reasoner("person(X) :- student(X).\nperson(Y) :- member(X, Y).\nstudent(X) :- undergraduate(X).\n"
                 "undergraduate(s). undergraduate(t). member(d, s). member(d, u).")
    r.materialise()
    cache = r.reasoning.plan_cache
    before = cache.hits, cache.misses
    result = r.update(delete={"undergraduate": [("s",), ("t",)], "member": [("d", "u")]}, algorithm="dred")
    assert (cache.hits, cache.misses) == before
    assert set(result.removed["person"].rows()) == {("t",), ("u",)}
    r.update(add={"undergraduate": [("t",)]}, algorithm="dred")
    assert (cache.hits, cache.misses) == before
    assert set(r.relation("person").rows()) == {("s",), ("t",)}
