"""TransitiveClosure and ComponentPairs on Spark (backends/spark/closure.py): every strategy (driver, executors,
joins) with and without sources/nodes, on cycles, self-loops, duplicate edges, chains and mixed value kinds,
against networkx; the result rows are the tagged strings of the embedded backend, byte for byte."""

from __future__ import annotations

import networkx as nx
import pyarrow as pa
import pytest

from deltalog.backends.spark.backend import SparkBackend
from deltalog.backends.spark.closure import choose
from deltalog.plan import ir

pytestmark = pytest.mark.spark
STRATEGIES = ("driver", "executors", "joins")


def graph() -> list[tuple[str, str]]:
    """Tagged edges: a chain of 6, a 3-cycle with a tail into it, a self-loop, duplicates, a small random
    part with ints, floats, strings and IRIs, and two nodes whose texts differ only by kind."""
    edges = [(f"i{i}", f"i{i + 1}") for i in range(100, 106)]
    edges += [("sa", "sb"), ("sb", "sc"), ("sc", "sa"), ("sz", "sa"), ("sc", "sd")]
    edges += [("rhttp://x", "rhttp://x"), ("rhttp://x", "i7"), ("sa", "sb"), ("sa", "sb")]
    edges += [("i1", "s1"), ("s1", "f1.5"), ("f1.5", "i1"), ("i7", "f-0.25"), ("f-0.25", "i8")]
    import random
    rng = random.Random(7)
    pool = [f"i{n}" for n in range(20, 35)] + ["sé", "s ", "i-3"]
    edges += [(rng.choice(pool), rng.choice(pool)) for _ in range(30)]
    return edges


def closure_of(edges, sources=None) -> set[tuple[str, str]]:
    g = nx.DiGraph(edges)
    out = set()
    for x in g.nodes:
        if sources is not None and x not in sources:
            continue
        reach = nx.descendants(g, x)
        out |= {(x, z) for z in reach}
        if g.has_edge(x, x) or any(x in nx.descendants(g, y) | {y} for y in g.successors(x)):
            out.add((x, x))
    return out


def components_of(edges, nodes=None) -> set[tuple[str, str]]:
    g = nx.Graph(edges)
    return {(a, b) for comp in nx.connected_components(g) if nodes is None or comp & set(nodes)
            for a in comp for b in comp}


@pytest.fixture(scope="module")
def backend(spark):
    made = SparkBackend(spark)
    made.create_relation(relation="e", arity=2)
    edges = graph()
    made.import_rows(relation="e", table=pa.table({"c0": [a for a, _ in edges], "c1": [b for _, b in edges]}),
                     generation=0)
    made.create_relation(relation="s", arity=1)
    made.import_rows(relation="s", table=pa.table({"c0": ["sz", "i105", "i1", "sé", "s-missing"]}), generation=0)
    return made


def result(backend, plan, strategy) -> set[tuple[str, str]]:
    backend.closure_strategy = strategy
    target = f"out{len(backend.relations())}"
    backend.create_relation(relation=target, arity=2)
    try:
        backend.insert(relation=target, plan=plan, generation=1)
    finally:
        backend.closure_strategy = None
    rows = backend.export_rows(relation=target)
    found = list(zip(rows.column("c0").to_pylist(), rows.column("c1").to_pylist()))
    assert len(found) == len(set(found))
    return set(found)


EDGES = ir.Scan("e", (ir.Col("X"), ir.Col("Y")))
SOURCES = ir.Scan("s", (ir.Col("S"),))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_transitive_closure(backend, strategy):
    assert result(backend, ir.TransitiveClosure(EDGES), strategy) == closure_of(graph())
    assert backend.closure_log[-1].strategy == strategy
    expected = closure_of(graph(), {"sz", "i105", "i1", "sé"})
    assert result(backend, ir.TransitiveClosure(EDGES, sources=SOURCES), strategy) == expected


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_component_pairs(backend, strategy):
    assert result(backend, ir.ComponentPairs(EDGES), strategy) == components_of(graph())
    expected = components_of(graph(), {"sz", "i105", "i1", "sé"})
    assert result(backend, ir.ComponentPairs(EDGES, nodes=SOURCES), strategy) == expected


def test_closures_inside_larger_plans_and_empty_inputs(backend):
    swapped = ir.Project(ir.TransitiveClosure(ir.Project(EDGES, (("A", ir.Col("Y")), ("B", ir.Col("X"))))),
                         (("c0", ir.Col("B")), ("c1", ir.Col("A"))))
    assert result(backend, swapped, None) == {(z, x) for x, z in closure_of([(b, a) for a, b in graph()])}
    backend.create_relation(relation="none", arity=2)
    empty = ir.Scan("none", (ir.Col("X"), ir.Col("Y")))
    for strategy in STRATEGIES:
        assert result(backend, ir.TransitiveClosure(empty), strategy) == set()
        assert result(backend, ir.ComponentPairs(empty), strategy) == set()
    no_sources = ir.Values(("S",), ())
    assert result(backend, ir.TransitiveClosure(EDGES, sources=no_sources), "driver") == set()
    frame = backend.evaluate(plan=ir.TransitiveClosure(ir.Values(("X", "Y"), (
        (ir.Constant(1, "int"), ir.Constant(2, "int")), (ir.Constant(2, "int"), ir.Constant(1, "int"))))))
    assert sorted(frame.rows()) == [(1, 1), (1, 2), (2, 1), (2, 2)]


def test_the_strategy_follows_the_bounds(backend):
    saved = backend.closure_driver_rows, backend.closure_broadcast_rows
    try:
        backend.closure_driver_rows = 2_000_000                      # the offload bound's default
        assert choose(backend._context(), EDGES) == "driver"
        backend.closure_driver_rows = 0                              # offload off: on the executors
        assert choose(backend._context(), EDGES) == "executors"
        backend.closure_broadcast_rows = 10
        assert choose(backend._context(), EDGES) == "joins"
        backend.closure_driver_rows = 1000
        result(backend, ir.TransitiveClosure(EDGES), None)
        assert backend.closure_log[-1].strategy == "driver"
        backend.closure_driver_rows = 60                             # edges fit, the closure does not
        result(backend, ir.TransitiveClosure(EDGES), None)
        assert backend.closure_log[-1].strategy == "executors"
    finally:
        backend.closure_driver_rows, backend.closure_broadcast_rows = saved


def test_deep_chains_take_logarithmic_rounds(spark):
    made = SparkBackend(spark)
    made.create_relation(relation="e", arity=2)
    n = 120
    made.import_rows(relation="e", table=pa.table({"c0": [f"i{i}" for i in range(n)],
                                                   "c1": [f"i{i + 1}" for i in range(n)]}), generation=0)
    for strategy in ("executors", "joins"):
        made.closure_strategy = strategy
        made.create_relation(relation=strategy, arity=2)
        jobs = made.actions
        assert made.insert(relation=strategy, plan=ir.TransitiveClosure(EDGES), generation=1) == n * (n + 1) // 2
        run = made.closure_log[-1]
        assert run.strategy == strategy and run.rounds <= 9                # log2(121) + 2
        if strategy == "executors":
            assert made.actions - jobs <= 3                                # collect the edges, insert
    made.closure_strategy = "joins"
    made.create_relation(relation="cp", arity=2)
    assert made.insert(relation="cp", plan=ir.ComponentPairs(EDGES), generation=1) == (n + 1) ** 2
    assert made.closure_log[-1].rounds <= 18    # pointer jumping: about 2 log2(n)


@pytest.mark.parametrize("algorithm", ["remat"])   # dredc (sources) passes too, in ~2 minutes of small jobs
def test_closure_modules_materialise_and_maintain_on_spark(spark, algorithm):
    """Whole programs: the closure modules' plans give the embedded backend's rows."""
    program = ("p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), p(Y, Z).\n"
               "s(X, Y) :- e(X, Y).\ns(X, Y) :- s(Y, X).\ns(X, Z) :- s(X, Y), s(Y, Z).\n")
    local, on_spark = rows_after_an_update(spark, program, ("p", "s"), algorithm=algorithm,
                                           delete={"e": [(3, 1), (6, 7)]}, add={"e": [(7, 9), (4, 5)]})
    assert local == on_spark


def rows_after_an_update(spark, program: str, predicates: tuple[str, ...], **update) -> list[dict]:
    """Per backend (embedded, Spark): the rows of ``predicates`` after materialising ``program`` over a small
    graph ``e`` with cycles, a self-loop and two components, then ``Reasoner.update(**update)``."""
    from deltalog.api import Reasoner
    edges = [(1, 2), (2, 3), (3, 1), (3, 4), (5, 6), (6, 7), (8, 8)]
    results = []
    for backend in ("local", SparkBackend(spark)):
        reasoner = Reasoner(program, backend=backend, offload=None)
        reasoner.load("e", edges)
        reasoner.materialise()
        reasoner.update(**update)
        results.append({p: sorted(reasoner.relation(p).rows()) for p in predicates})
    return results


@pytest.mark.parametrize("algorithm", ["dred", "dredc"])
def test_a_linear_closure_over_a_step_of_its_own_stratum_on_spark(spark, algorithm):
    """The linear module over a step its stratum derives from R (stop 22): Add's closure differences, Del
    against the grounded steps and Red on Spark give the embedded backend's rows and the naive reference."""
    from deltalog.api import Reasoner
    program = ("q(X, Y) :- e(X, Y).\nq(X, Y) :- r(X, Y), X != 1.\nr(X, Y) :- q(X, Y).\n"
               "r(X, Z) :- r(X, Y), q(Y, Z).\nn(X, N) :- r(X, _), N = count Y : { r(X, Y) }.\n")
    edges = [(0, 1), (2, 0), (3, 4), (4, 3), (1, 5), (5, 6), (6, 2)]
    results = []
    for backend in ("local", SparkBackend(spark)):
        reasoner = Reasoner(program, backend=backend, offload=None)
        assert "linear-transitive r over q" in " ".join(c.describe() for s in reasoner.analysed.strata
                                                          for c in s.modules)
        reasoner.load("e", edges)
        reasoner.materialise()
        reasoner.update(delete={"e": [(0, 1), (2, 0), (6, 2)]}, add={"e": [(6, 3)]}, algorithm=algorithm)
        results.append({p: sorted(reasoner.relation(p).rows()) for p in ("q", "r", "n")})
    fresh = Reasoner(program, modules="none")
    fresh.load("e", [(3, 4), (4, 3), (1, 5), (5, 6), (6, 3)])
    fresh.materialise()
    assert results[0] == results[1] == {p: sorted(fresh.relation(p).rows()) for p in ("q", "r", "n")}


def test_closure_difference_and_reaches(backend):
    """The maintenance nodes (003 section 4) run as their expansions into TransitiveClosure nodes."""
    kept = [e for i, e in enumerate(graph()) if i % 4 != 1]
    backend.create_relation(relation="kept", arity=2)
    backend.import_rows(relation="kept", table=pa.table({"c0": [a for a, _ in kept], "c1": [b for _, b in kept]}),
                        generation=0)
    other = ir.Scan("kept", (ir.Col("A"), ir.Col("B")))
    lost = closure_of(graph()) - closure_of(kept)
    assert lost and result(backend, ir.ClosureDifference(EDGES, other), "driver") == lost
    tails = {"sz", "i105", "i1", "sé", "s-missing"}
    reaching = tails | {x for x, z in closure_of(graph()) if z in tails}
    changed = ir.Project(SOURCES, (("P", ir.Col("S")), ("Q", ir.Col("S"))))
    assert result(backend, ir.ClosureDifference(EDGES, other, changed), "driver") == \
        {p for p in lost if p[0] in reaching}
    queries = sorted(closure_of(kept))[:6] + [("sd", "sa"), ("i1", "i1"), ("sz", "s-missing")]
    backend.create_relation(relation="q", arity=2)
    backend.import_rows(relation="q", table=pa.table({"c0": [a for a, _ in queries], "c1": [b for _, b in queries]}),
                        generation=0)
    asked = ir.Scan("q", (ir.Col("X"), ir.Col("Y")))
    assert result(backend, ir.Reaches(other, asked), "driver") == set(queries) & closure_of(kept)


def test_component_difference(backend):
    """ComponentDifference runs as its expansion into ComponentPairs nodes: the pairs the kept edges'
    components split apart, all of them and those of the components holding the changed facts' tails."""
    kept = [e for i, e in enumerate(graph()) if i % 4 != 1]
    backend.create_relation(relation="kept_cd", arity=2)
    backend.import_rows(relation="kept_cd",
                        table=pa.table({"c0": [a for a, _ in kept], "c1": [b for _, b in kept]}), generation=0)
    other = ir.Scan("kept_cd", (ir.Col("A"), ir.Col("B")))
    lost = components_of(graph()) - components_of(kept)
    assert lost and result(backend, ir.ComponentDifference(EDGES, other), "driver") == lost
    tails = {"sz", "i105", "i1", "sé", "s-missing"}
    changed = ir.Project(SOURCES, (("P", ir.Col("S")), ("Q", ir.Col("S"))))
    assert result(backend, ir.ComponentDifference(EDGES, other, changed), "driver") == \
        components_of(graph(), tails) - components_of(kept)


def test_a_symmetric_transitive_red_on_spark(spark):
    """DRed on an STC module asks ``ir.Connects`` of the deleted pairs (Red); Spark runs its ``expanded()``
    form (``Reaches`` over the facts and their reverses): the same rows as the embedded backend."""
    program = "s(X, Y) :- e(X, Y).\ns(X, Y) :- s(Y, X).\ns(X, Z) :- s(X, Y), s(Y, Z).\n"
    local, on_spark = rows_after_an_update(spark, program, ("s",), delete={"e": [(3, 1), (6, 7), (8, 8)]},
                                           algorithm="dred")
    assert local == on_spark
