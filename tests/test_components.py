"""Graph components without scipy (backends/local/components.py) against networkx and scipy."""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import given, settings, strategies as st

from deltalog.backends.local import components

edges_strategy = st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30)


def columns(edges):
    return (np.array([a for a, _ in edges], np.int64), np.array([b for _, b in edges], np.int64))


@given(edges=edges_strategy)
def test_dag_labels_exactly_for_graphs_without_cycles(edges):
    graph = nx.DiGraph([(a, b) for a, b in edges if a != b])
    graph.add_nodes_from(range(12))
    labels = components.dag_labels(*columns(edges), 12)
    if nx.is_directed_acyclic_graph(graph):
        assert labels is not None and labels.tolist() == list(range(12))
    else:
        assert labels is None


@given(edges=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30),
       chains=st.lists(st.integers(1, 11), max_size=3), limit=st.one_of(st.none(), st.integers(1, 12)))
def test_sink_levels_are_the_heights(edges, chains, limit):
    """Level k holds the nodes whose longest path to a sink has k edges (those on or into a cycle:
    none), up to ``limit`` levels; paths (chains of one node a level) are walked in Python ints."""
    edges = [(a, b) for a, b in edges if a != b] + [(i, i + 1) for k in chains for i in range(12 - k - 1, 11)]
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(range(12))
    stuck = {v for c in nx.strongly_connected_components(graph) if len(c) > 1 for v in c}
    stuck |= {v for v in graph if any(u in stuck for u in nx.descendants(graph, v))}
    height: dict[int, int] = {}
    for v in reversed(list(nx.topological_sort(graph.subgraph(set(graph) - stuck)))):
        height[v] = max((height[u] + 1 for u in graph.successors(v)), default=0)
    expected = [sorted(v for v, h in height.items() if h == k) for k in range(max(height.values(), default=-1) + 1)]
    levels = components.sink_levels(*columns(edges), 12, limit=limit)
    assert [sorted(level.tolist()) for level in levels] == expected[:limit]


def test_a_chain_deeper_than_the_budget_is_left_to_scipy(monkeypatch):
    monkeypatch.setattr(components, "DAG_CHECK_LEVELS", 10)
    s = np.arange(20, dtype=np.int64)
    assert components.dag_labels(s, s + 1, 21) is None
    assert components.dag_labels(s[:5], s[:5] + 1, 21) is not None   # 6 levels, 16 isolated nodes


@given(edges=edges_strategy, scipy=st.booleans())
def test_weak_components_match_networkx_and_scipy_numbering(edges, scipy):
    if scipy:   # the fallback path, forced
        saved, components.WEAK_ROUNDS = components.WEAK_ROUNDS, 0
    try:
        ncomp, label = components.weak_components(*columns(edges), 12)
    finally:
        if scipy:
            components.WEAK_ROUNDS = saved
    graph = nx.Graph(edges)
    graph.add_nodes_from(range(12))
    expected = sorted(nx.connected_components(graph), key=min)   # scipy numbers components by smallest node
    assert ncomp == len(expected)
    assert [set(np.flatnonzero(label == k).tolist()) for k in range(ncomp)] == expected


def test_weak_components_of_a_long_shuffled_path():
    n = 100_000
    order = np.random.default_rng(3).permutation(n)
    ncomp, label = components.weak_components(order[:-1], order[1:], n + 2)
    assert ncomp == 3 and (label[:n] == label[order[0]]).all() and label[n] != label[n + 1]


@settings(deadline=None)
@given(st.integers(1, 3000), st.integers(0, 3000), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_weak_components_in_numpy_match_networkx_on_larger_graphs(n, m, paths, seed):
    """The NumPy labelling (scipy not imported) on random graphs with long shuffled paths (deep trees: many
    hooking rounds, edges inside a tree dropped from later rounds): scipy's numbering, networkx's
    components."""
    from unittest import mock
    rng = np.random.default_rng(seed)
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    for _ in range(paths):
        order = rng.permutation(n)[: rng.integers(1, n + 1)]
        s, d = np.concatenate([s, order[:-1]]), np.concatenate([d, order[1:]])
    with mock.patch.object(components, "scipy_loaded", lambda: False):
        ncomp, label = components.weak_components(s.astype(np.int64), d.astype(np.int64), n)
    graph = nx.Graph(zip(s.tolist(), d.tolist()))
    graph.add_nodes_from(range(n))
    expected = sorted(nx.connected_components(graph), key=min)
    assert ncomp == len(expected)
    assert [set(np.flatnonzero(label == k).tolist()) for k in range(ncomp)] == expected
