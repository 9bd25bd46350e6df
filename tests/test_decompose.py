"""Hypertree decompositions (000 section 2): golden widths, validity on random bodies, exactness
against every elimination ordering of small bodies, and the ``deltalog plan`` command."""

from __future__ import annotations

import subprocess
import sys
from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from deltalog.analysis import analyse
from deltalog.analysis.decompose import Decomposition, decompose
from deltalog.analysis.elimination import bags_from_order, cover_function, primal_graph
from deltalog.analysis.hypergraph import rule_decomposition
from deltalog.syntax import parse

EXP_ADD = ("value(E, V, S) :- add(E, L, R), value(L, V1, S), value(R, V2, S), scope(S, E), inset(S, V1), "
           "inset(S, V2), plus(V1, V2, V), inset(S, V), depth(E, L, R).")


def width_of(rule_text: str) -> Decomposition:
    return rule_decomposition(analyse(parse(rule_text)).rules[0])


def test_golden_widths():
    assert width_of("t(X) :- e(X, Y), e(Y, Z), e(Z, X).").width == 2
    assert width_of("t(X) :- e(X, Y), e(Y, Z), e(Z, W), e(W, X).").width == 2
    assert width_of("t(X) :- e(A, B), e(B, C), e(C, D), e(D, E), e(E, F), e(F, X).").width == 1
    assert width_of("pc(X, Y) :- cw(X, Z1), ca(X, Z2), pc(Z1, Y), pc(Z2, Y).").width == 2
    assert width_of("q(A) :- e(A, B), e(A, C), e(A, D), e(B, C), e(B, D), e(C, D).").width == 2   # 4-clique
    assert width_of(EXP_ADD).width == 2
    assert not width_of("t(X) :- e(X, Y), f(Y, Z).").complex


def test_pc_rule_matches_000_section_3():
    """000 section 3: two nodes, χ = {x, y} plus each branch's join variable, λ = {CW, PC} and {CA, PC}."""
    d = width_of("pc(X, Y) :- cw(X, Z1), ca(X, Z2), pc(Z1, Y), pc(Z2, Y).")
    assert sorted(sorted(n.cover) for n in d.nodes) == [[0, 2], [1, 3]]
    assert all({"X", "Y"} <= n.chi for n in d.nodes)


def test_negation_and_comparison_get_a_node_holding_their_variables():
    d = width_of("t(A) :- e(A, B), e(B, C), not f(A, C), A != C.")
    (home,) = [n for n in d.nodes if n.constraints]
    assert {"A", "C"} <= home.chi and len(home.constraints) == 2


hypergraphs = st.lists(st.frozensets(st.sampled_from("ABCDEFG"), min_size=1, max_size=3), min_size=1, max_size=7)


def check_valid(edges: list[frozenset[str]], d: Decomposition) -> None:
    chis = [n.chi for n in d.nodes]
    variables = frozenset().union(*edges)
    assert frozenset().union(*chis) == variables
    for p, node in enumerate(d.nodes):   # λ covers χ; λ has width atoms at most
        assert node.chi <= frozenset().union(*(edges[i] for i in node.cover))
        assert len(node.cover) <= d.width
    enforced = {i for n in d.nodes for i in n.cover if edges[i] <= n.chi} | {i for n in d.nodes for i in n.filters}
    assert enforced == set(range(len(edges)))
    for n in d.nodes:
        assert all(edges[i] <= n.chi for i in n.filters)
    parent = {c: p for p, n in enumerate(d.nodes) for c in n.children}
    assert len(parent) == len(d.nodes) - 1 and d.root not in parent   # a tree
    for v in variables:   # the nodes holding v are connected: exactly one of them has its parent outside
        holding = [p for p, chi in enumerate(chis) if v in chi]
        tops = [p for p in holding if p == d.root or v not in chis[parent[p]]]
        assert len(tops) == 1


@settings(max_examples=150, deadline=None)
@given(hypergraphs)
def test_random_bodies_decompose_validly(edges):
    check_valid(edges, decompose(edges))


@settings(max_examples=60, deadline=None)
@given(hypergraphs.filter(lambda es: len(frozenset().union(*es)) <= 6))
def test_exact_width_is_the_least_over_all_orderings(edges):
    variables = sorted(frozenset().union(*edges))
    adjacency = primal_graph(variables, list(edges))
    cover = cover_function(tuple(edges))
    least = min(max(cover(bag)[0] for bag in bags_from_order(list(order), adjacency)[0])
                for order in permutations(variables))
    d = decompose(edges)
    assert d.exact and d.width == least


def test_large_bodies_fall_back_to_the_heuristic():
    ring = [frozenset({f"V{i}", f"V{(i + 1) % 30}"}) for i in range(30)]
    d = decompose(ring)
    assert not d.exact and d.width == 2
    check_valid(ring, d)


def test_plan_command_prints_decompositions_and_dot(tmp_path):
    program = tmp_path / "p.dl"
    program.write_text("pc(X, Y) :- cw(X, Z1), ca(X, Z2), pc(Z1, Y), pc(Z2, Y).\npc(X, Y) :- base(X, Y).\n")
    dot = tmp_path / "d.dot"
    out = subprocess.run([sys.executable, "-m", "deltalog", "plan", str(program), "--dot", str(dot)],
                         capture_output=True, text=True, check=True).stdout
    assert "complex, width 2 (exact)" in out and "λ=[cw(X, Z1), pc(Z1, Y)]" in out
    assert "plan (--hd off: standard):" in out
    assert dot.read_text().startswith("digraph decompositions {") and "width 2" in dot.read_text()


@settings(max_examples=100, deadline=None)
@given(hypergraphs)
def test_heuristic_orderings_decompose_validly_and_never_beat_the_exact_width(edges):
    import deltalog.analysis.elimination as module
    exact = decompose(edges)
    saved, module.EXACT_VARIABLES = module.EXACT_VARIABLES, 0
    try:
        heuristic = decompose(edges)
    finally:
        module.EXACT_VARIABLES = saved
    check_valid(edges, heuristic)
    assert not heuristic.exact and heuristic.width >= exact.width
