"""The local backend's closure kernels (backends/local/closure.py) against networkx and a naive fixpoint:
raw kernels (every reachability strategy, tiny chunk and memory bounds so every blocking path runs)
and through the backend (``insert`` of TransitiveClosure / ComponentPairs plans, read back)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings, target
from hypothesis import strategies as st

from deltalog.backends.local import closure, dense_closure
from deltalog.backends.local.backend import LocalBackend
from deltalog.plan import ir
from deltalog.syntax.ast import Constant

Edge = tuple[int, int]

SPARSE = 1_000_000_007   # node i becomes i * SPARSE - 3: large, sparse and negative ids


def naive_tc(edges: list[Edge]) -> set[Edge]:
    """The least fixpoint of tc(x,z) :- e(x,z).  tc(x,z) :- tc(x,y), e(y,z)."""
    tc = set(edges)
    while True:
        new = {(x, z) for x, y in tc for y2, z in edges if y == y2} - tc
        if not new:
            return tc
        tc |= new


def nx_tc(edges: list[Edge], sources: list[int] | None) -> set[Edge]:
    g = nx.DiGraph(edges)
    pairs = set(nx.transitive_closure(g, reflexive=False).edges)   # (x, x) only on non-trivial cycles
    return pairs if sources is None else {p for p in pairs if p[0] in set(sources)}


def nx_components(edges: list[Edge], nodes: list[int] | None) -> set[Edge]:
    pairs = set()
    for comp in nx.connected_components(nx.Graph(edges)):
        if nodes is None or comp & set(nodes):
            pairs |= {(x, y) for x in comp for y in comp}
    return pairs


def as_set(x: np.ndarray, y: np.ndarray) -> set[Edge]:
    pairs = list(zip(x.tolist(), y.tolist()))
    assert len(pairs) == len(set(pairs)), "a kernel emitted a pair twice"
    return set(pairs)


def columns(edges: list[Edge]) -> tuple[np.ndarray, np.ndarray]:
    a = np.array(edges, np.int64).reshape(-1, 2)
    return a[:, 0].copy(), a[:, 1].copy()


nodes_strategy = st.integers(0, 14)
graphs = st.lists(st.tuples(nodes_strategy, nodes_strategy), max_size=40)
restriction = st.none() | st.lists(st.integers(0, 18), max_size=5)   # 15..18 never occur in an edge
sparse_ids = st.booleans()


def remap(edges: list[Edge], only: list[int] | None, sparse: bool):
    if not sparse:
        return edges, only
    f = lambda i: i * SPARSE - 3   # noqa: E731
    return [(f(a), f(b)) for a, b in edges], None if only is None else [f(i) for i in only]


CYCLE_AND_TAIL = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (4, 5), (5, 4), (6, 7)]


@pytest.fixture(params=["bitset", "sparse", "bitset-blocked", "dense"])
def method(request, monkeypatch) -> str:
    """Each strategy; "bitset-blocked" shrinks every memory bound so column blocks, level slices and
    unpacking blocks all have many pieces; "dense" is the matrix kernel of small graphs (every graph
    here is small: the others switch it off)."""
    if request.param == "dense":
        return "bitset"
    monkeypatch.setattr(dense_closure, "DENSE_NODES", 0)
    if request.param == "bitset-blocked":
        monkeypatch.setattr(closure, "BITSET_BYTES", 64)
        monkeypatch.setattr(closure, "GATHER_WORDS", 2)
        monkeypatch.setattr(closure, "UNPACK_BITS", 64)
        return "bitset"
    if request.param == "sparse":
        monkeypatch.setattr(closure, "BITSET_BYTES", 64)
    return request.param


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])   # set once
@given(edges=graphs, sources=restriction, sparse=sparse_ids)
@example(edges=CYCLE_AND_TAIL, sources=None, sparse=False)
@example(edges=CYCLE_AND_TAIL, sources=[2, 4, 17], sparse=True)
@example(edges=[(1, 1), (1, 1)], sources=None, sparse=False)
@example(edges=[], sources=None, sparse=False)
def test_transitive_closure_kernel(method, edges, sources, sparse):
    edges, sources = remap(edges, sources, sparse)
    expected = nx_tc(edges, sources)
    target(float(len(expected)))
    src, dst = columns(edges)
    got = as_set(*closure.collect(closure.transitive_closure(
        src, dst, None if sources is None else np.array(sources, np.int64), chunk=3, method=method)))
    assert got == expected
    if sources is None and len(edges) <= 15:
        assert got == naive_tc(edges)


@given(edges=graphs, nodes=restriction, sparse=sparse_ids)
@example(edges=[(i, (i + 1) % 6) for i in range(6)] + [(8, 9)], nodes=[3, 16], sparse=True)
@example(edges=[(2, 2)], nodes=None, sparse=False)
def test_component_pairs_kernel(edges, nodes, sparse):
    edges, nodes = remap(edges, nodes, sparse)
    expected = nx_components(edges, nodes)
    target(float(len(expected)))
    src, dst = columns(edges)
    for small in (dense_closure.DENSE_NODES, 0):   # the dense kernel, then scipy's components
        saved, dense_closure.DENSE_NODES = dense_closure.DENSE_NODES, small
        try:
            got = as_set(*closure.collect(closure.component_pairs(
                src, dst, None if nodes is None else np.array(nodes, np.int64), chunk=4)))
        finally:
            dense_closure.DENSE_NODES = saved
        assert got == expected


def test_explicit_counts(method):
    """Known sizes, so the properties above cannot pass on empty outputs."""
    chain = np.arange(200, dtype=np.int64)
    x, _ = closure.collect(closure.transitive_closure(chain[:-1], chain[1:], method=method))
    assert x.size == 200 * 199 // 2
    ring = np.arange(50, dtype=np.int64)
    x, _ = closure.collect(closure.transitive_closure(ring, np.roll(ring, -1), method=method))
    assert x.size == 50 * 50
    x, _ = closure.collect(closure.component_pairs(ring, np.roll(ring, -1), chunk=7))
    assert x.size == 50 * 50
    src, dst = columns(CYCLE_AND_TAIL)
    assert as_set(*closure.collect(closure.transitive_closure(src, dst, np.array([3, 6]), method=method))) \
        == {(3, 3), (6, 7)}
    assert not list(closure.transitive_closure(src, dst, np.array([7, 99]), method=method))
    assert not list(closure.component_pairs(src, dst, np.array([], np.int64)))


# ---- through the backend -----------------------------------------------------------------------

def backend_with(edges: list[Edge]) -> LocalBackend:
    backend = LocalBackend(chunk_rows=5)
    backend.create_relation(relation="e", arity=2)
    src, dst = columns(edges)
    backend.load(relation="e", table=pl.DataFrame({"a": src, "b": dst}), generation=0)
    return backend


def inserted(backend: LocalBackend, plan: ir.Node) -> set[Edge]:
    backend.create_relation(relation="out", arity=2)
    added = backend.insert(relation="out", plan=plan, generation=1)
    rows = backend.typed_rows(relation="out")
    assert added == len(rows)
    return {(x, y) for (_, x), (_, y) in rows}


def restriction_plan(only: list[int] | None) -> ir.Node | None:
    return None if only is None else ir.Values(("S",), tuple((Constant(i, "int"),) for i in only))


EDGE_SCAN = ir.Scan("e", (ir.Col("X"), ir.Col("Y")))


@given(edges=graphs, sources=restriction, sparse=sparse_ids)
@example(edges=CYCLE_AND_TAIL, sources=[0, 6, 18], sparse=True)
def test_transitive_closure_through_backend(edges, sources, sparse):
    edges, sources = remap(edges, sources, sparse)
    expected = nx_tc(edges, sources)
    target(float(len(expected)))
    plan = ir.TransitiveClosure(EDGE_SCAN, restriction_plan(sources))
    assert inserted(backend_with(edges), plan) == expected


@given(edges=graphs, nodes=restriction, sparse=sparse_ids)
@example(edges=CYCLE_AND_TAIL, nodes=[3, 7, 18], sparse=True)
def test_component_pairs_through_backend(edges, nodes, sparse):
    edges, nodes = remap(edges, nodes, sparse)
    expected = nx_components(edges, nodes)
    target(float(len(expected)))
    plan = ir.ComponentPairs(EDGE_SCAN, restriction_plan(nodes))
    assert inserted(backend_with(edges), plan) == expected


def test_closure_nodes_compose_in_plans():
    """Closure nodes under other nodes and over non-scan inputs: a filtered edge set, the closure
    joined back and evaluated (not only inserted)."""
    backend = backend_with(CYCLE_AND_TAIL)
    edges = ir.Filter(EDGE_SCAN, ir.Compare("!=", ir.Col("X"), ir.Col("Y")))
    tc = ir.TransitiveClosure(edges)
    frame = backend.evaluate(plan=ir.SemiJoin(tc, ir.Values(("X",), ((Constant(4, "int"),),)), ("X",)))
    assert sorted(frame.rows()) == [(4, 4), (4, 5)]
    loopless = [(x, y) for x, y in CYCLE_AND_TAIL if x != y]
    assert (3, 3) not in nx_tc(loopless, None)
    assert inserted(backend, ir.Distinct(ir.Union_((tc, ir.ComponentPairs(edges))))) == \
        nx_tc(loopless, None) | nx_components(loopless, None)


def test_walk_and_transform_see_closure_children():
    from deltalog.plan.walk import replace, transform, walk
    tc = ir.TransitiveClosure(EDGE_SCAN, restriction_plan([1]))
    plan = ir.Distinct(ir.Union_((tc, ir.ComponentPairs(EDGE_SCAN))))
    assert [type(n).__name__ for n in walk(plan)] == \
        ["Distinct", "Union_", "TransitiveClosure", "Scan", "Values", "ComponentPairs", "Scan"]
    renamed = transform(plan, lambda n: replace(n, relation="f") if isinstance(n, ir.Scan) else n)
    assert {n.relation for n in walk(renamed) if isinstance(n, ir.Scan)} == {"f"}
    assert transform(plan, lambda n: n) is plan


# ---- ClosureDifference (backends/local/closure_diff.py) ----------------------------------------------

def expected_difference(edges: list[Edge], other: list[Edge], tails: list[int] | None) -> set[Edge]:
    """nx: the pairs of the closure of ``edges`` not in that of ``other``, for sources reaching a tail."""
    pairs = nx_tc(edges, None) - nx_tc(other, None)
    if tails is None:
        return pairs
    reach = set(tails) | {x for x, z in nx_tc(edges, None) if z in set(tails)}
    return {(x, z) for x, z in pairs if x in reach}


@pytest.fixture(params=["plain", "blocked", "few sources", "few sources, shallow"])
def bounds(request, monkeypatch) -> None:
    """"blocked": column blocks, level slices and unpacking blocks of one word / a few rows, and the
    kernels always restricted to the part of the graph their roots reach (REACHED_PART_MAX). "plain" and
    "blocked" condense the graphs; "few sources" searches pairs from the sources (few_sources.py), and
    "shallow" gives that search up after two levels (the condensed kernel then answers)."""
    from deltalog.backends.local import closure_diff, few_sources, reach
    if request.param.startswith("few sources"):
        if request.param.endswith("shallow"):
            monkeypatch.setattr(reach, "FRONTIER_LEVELS", 2)
        return
    monkeypatch.setattr(few_sources, "PAIR_SPACE", 0)
    if request.param == "blocked":
        monkeypatch.setattr(closure_diff, "REACHED_PART_MAX", 1.0)
        monkeypatch.setattr(closure_diff, "REACHED_PART_MIN_NODES", 0)
        monkeypatch.setattr(closure_diff, "BITSET_BYTES", 64)
        monkeypatch.setattr(closure_diff, "GATHER_WORDS", 2)
        monkeypatch.setattr(closure_diff, "UNPACK_BITS", 64)


def check_difference_kernel(kernel, expected_of, edges, kept, extra, tails, sparse):
    """``kernel`` over ``edges`` against the graph of the ``kept`` edges plus ``extra`` (ids remapped when
    ``sparse``), in chunks of 3 pairs, gives ``expected_of`` those graphs, each pair once."""
    other = [e for e, k in zip(edges, kept) if k] + extra
    edges, tails = remap(edges, tails, sparse)
    other, _ = remap(other, None, sparse)
    expected = expected_of(edges, other, tails)
    target(float(len(expected)))
    (src, dst), (osrc, odst) = columns(edges), columns(other)
    got = as_set(*closure.collect(kernel(
        src, dst, osrc, odst, None if tails is None else np.array(tails, np.int64), chunk=3)))
    assert got == expected


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edges=graphs, kept=st.lists(st.booleans(), min_size=40, max_size=40),
       extra=st.lists(st.tuples(nodes_strategy, nodes_strategy), max_size=4), tails=restriction,
       sparse=sparse_ids)
@example(edges=CYCLE_AND_TAIL, kept=[i != 2 for i in range(40)], extra=[], tails=[2], sparse=False)
@example(edges=CYCLE_AND_TAIL, kept=[True] * 40, extra=[(3, 0), (7, 6)], tails=None, sparse=True)
def test_closure_difference_kernel(bounds, edges, kept, extra, tails, sparse):
    """Deleted and added edges (SCCs split and merge), restricted or not to the tails' ancestors."""
    from deltalog.backends.local.closure_diff import closure_difference
    check_difference_kernel(closure_difference, expected_difference, edges, kept, extra, tails, sparse)


def test_closure_difference_counts():
    """Known sizes: a chain cut in the middle, a ring opened (its SCC splits), a DAG with an edge whose
    tail has many ancestors."""
    from deltalog.backends.local.closure_diff import closure_difference
    chain = np.arange(201, dtype=np.int64)
    keep = chain[:-1] != 100
    x, _ = closure.collect(closure_difference(chain[:-1], chain[1:], chain[:-1][keep], chain[1:][keep],
                                              np.array([100])))
    assert x.size == 101 * 100
    ring = np.arange(50, dtype=np.int64)
    x, _ = closure.collect(closure_difference(ring, np.roll(ring, -1), ring[:-1], ring[1:]))
    assert x.size == 50 * 50 - 50 * 49 // 2
    assert not list(closure_difference(ring, np.roll(ring, -1), ring, np.roll(ring, -1)))
    assert not list(closure_difference(ring, np.roll(ring, -1), ring[:-1], ring[1:], np.array([], np.int64)))
    # every node 0..98 reaches 99, which alone reaches 100
    s = np.concatenate([np.arange(99), [99]]).astype(np.int64)
    d = np.concatenate([np.full(99, 99), [100]]).astype(np.int64)
    x, y = closure.collect(closure_difference(s, d, s[:-1], d[:-1], np.array([99])))
    assert as_set(x, y) == {(i, 100) for i in range(100)}


@pytest.mark.parametrize("difference", ["closure", "component"])
@given(edges=graphs, kept=st.lists(st.booleans(), min_size=40, max_size=40), tails=restriction)
@example(edges=CYCLE_AND_TAIL, kept=[i % 3 != 0 for i in range(40)], tails=[0, 6, 18])
def test_difference_through_backend_and_expanded(difference, edges, kept, tails):
    """The local node and its expansion (by TransitiveClosure or ComponentPairs nodes: what Spark runs)
    agree with networkx."""
    node_type, expected_of = {"closure": (ir.ClosureDifference, expected_difference),
                              "component": (ir.ComponentDifference, expected_component_difference)}[difference]
    backend = backend_with(edges)
    backend.create_relation(relation="f", arity=2)
    other = [e for e, k in zip(edges, kept) if k]
    src, dst = columns(other)
    backend.load(relation="f", table=pl.DataFrame({"a": src, "b": dst}), generation=0)
    changed = None if tails is None else ir.Project(restriction_plan(tails), (("A", ir.Col("S")), ("B", ir.Col("S"))))
    node = node_type(EDGE_SCAN, ir.Scan("f", (ir.Col("P"), ir.Col("Q"))), changed)
    expected = expected_of(edges, other, tails)
    assert inserted(backend, node) == expected
    backend.drop(relation="out")
    assert inserted(backend, node.expanded()) == expected


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edges=graphs, queries=st.lists(st.tuples(st.integers(0, 18), st.integers(0, 18)), max_size=12),
       sparse=sparse_ids)
@example(edges=CYCLE_AND_TAIL, queries=[(0, 0), (3, 3), (4, 4), (6, 6), (2, 3), (3, 2), (17, 1), (6, 7)],
         sparse=True)
def test_reaches_kernel(bounds, edges, queries, sparse):
    from deltalog.backends.local.closure_diff import reaches
    edges, _ = remap(edges, None, sparse)
    queries, _ = remap(queries, None, sparse)
    closed = nx_tc(edges, None)
    (src, dst), (x, z) = columns(edges), columns(queries)
    assert reaches(src, dst, x, z).tolist() == [q in closed for q in queries]


@given(edges=graphs, queries=st.lists(st.tuples(nodes_strategy, nodes_strategy), max_size=12))
@example(edges=CYCLE_AND_TAIL, queries=[(0, 0), (3, 3), (6, 6), (2, 3), (3, 2), (6, 7), (6, 7)])
def test_reaches_through_backend_and_expanded(edges, queries):
    backend = backend_with(edges)
    backend.create_relation(relation="q", arity=2)
    x, z = columns(queries)
    backend.load(relation="q", table=pl.DataFrame({"a": x, "b": z}), generation=0)
    node = ir.Reaches(EDGE_SCAN, ir.Scan("q", (ir.Col("A"), ir.Col("B"))))
    expected = set(queries) & nx_tc(edges, None)
    assert inserted(backend, node) == expected
    backend.drop(relation="out")
    assert inserted(backend, node.expanded()) == expected


@given(edges=graphs, queries=st.lists(st.tuples(st.integers(0, 18), st.integers(0, 18)), max_size=12),
       sparse=sparse_ids, numpy_only=st.booleans())
@example(edges=CYCLE_AND_TAIL, queries=[(0, 0), (3, 3), (4, 4), (6, 6), (2, 3), (3, 2), (17, 17), (6, 7), (7, 6)],
         sparse=True, numpy_only=True)
def test_connects_is_reaches_over_the_edges_both_ways(edges, queries, sparse, numpy_only):
    """``ir.Connects`` (a symmetric-transitive closure's Red): the queried pairs joined by a path of edges read
    either way, (x, x) for a node of some edge; the local kernel (one labelling, NumPy's or scipy's), its
    ``expanded`` plan, and networkx's closure of the edges and their reverses agree."""
    from unittest import mock
    from deltalog.backends.local import components
    edges, _ = remap(edges, None, sparse)
    queries, _ = remap(queries, None, sparse)
    expected = set(queries) & nx_tc(edges + [(b, a) for a, b in edges], None)
    backend = backend_with(edges)
    backend.create_relation(relation="q", arity=2)
    x, z = columns(queries)
    backend.load(relation="q", table=pl.DataFrame({"a": x, "b": z}), generation=0)
    node = ir.Connects(EDGE_SCAN, ir.Scan("q", (ir.Col("A"), ir.Col("B"))))
    with mock.patch.object(components, "scipy_loaded", lambda: not numpy_only):
        assert inserted(backend, node) == expected
    backend.drop(relation="out")
    assert inserted(backend, node.expanded()) == expected


@pytest.mark.parametrize("levels", [0, 1, 3, 64])
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=40),
       st.lists(st.integers(0, 12), max_size=4))
def test_reachable_nodes_match_networkx(levels, edges, roots):
    """The frontier search of reach.py (and scipy's, once ``levels`` levels have not finished it, or when
    scipy is imported already): the roots and every node a path leads to from one, sorted; cycles,
    self-loops, isolated roots."""
    from unittest import mock
    from deltalog.backends.local import reach
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(range(13))
    expected = sorted(set(roots).union(*(nx.descendants(graph, r) for r in roots)))
    src, dst = (np.array([e[i] for e in edges], np.int64) for i in range(2))
    for loaded in (False, True):
        with mock.patch.multiple(reach, FRONTIER_LEVELS=levels, scipy_loaded=lambda: loaded):
            assert reach.reachable(src, dst, 13, np.array(roots, np.int64)).tolist() == expected


# ---- ComponentDifference (backends/local/component_diff.py) -------------------------------------------

def expected_component_difference(edges: list[Edge], other: list[Edge], tails: list[int] | None) -> set[Edge]:
    """nx: the pairs of the components of ``edges`` not in those of ``other``, of the tails' components."""
    return nx_components(edges, tails) - nx_components(other, None)


@given(edges=graphs, kept=st.lists(st.booleans(), min_size=40, max_size=40),
       extra=st.lists(st.tuples(nodes_strategy, nodes_strategy), max_size=4), tails=restriction,
       sparse=sparse_ids)
@example(edges=[(0, 1), (1, 2), (3, 4)], kept=[True, False, True] + [True] * 37, extra=[], tails=[2],
         sparse=False)   # a split leaves 2 without an edge: (2, 2) is lost too
@example(edges=[(0, 1), (2, 3)], kept=[True] * 40, extra=[(1, 5), (5, 2)], tails=None, sparse=True)
def test_component_difference_kernel(edges, kept, extra, tails, sparse):
    """Deleted and added edges (components split and merge, through nodes only the other graph has),
    restricted or not to the tails' components, tiny chunks."""
    from deltalog.backends.local.component_diff import component_difference
    check_difference_kernel(component_difference, expected_component_difference, edges, kept, extra, tails, sparse)


def test_component_difference_counts():
    """A chain of 200 cut in the middle loses 2 * 100 * 100 pairs; cut at its first edge, node 0 loses
    its (0, 0) too; the same graph twice, or no tails, gives nothing."""
    from deltalog.backends.local.component_diff import component_difference
    chain = np.arange(200, dtype=np.int64)
    keep = chain[:-1] != 99
    x, _ = closure.collect(component_difference(chain[:-1], chain[1:], chain[:-1][keep], chain[1:][keep],
                                                np.array([99])))
    assert x.size == 2 * 100 * 100
    x, _ = closure.collect(component_difference(chain[:-1], chain[1:], chain[1:-1], chain[2:], np.array([0])))
    assert x.size == 2 * 199 + 1
    assert not list(component_difference(chain[:-1], chain[1:], chain[1:], chain[:-1]))
    assert not list(component_difference(chain[:-1], chain[1:], chain[1:-1], chain[2:], np.array([], np.int64)))
