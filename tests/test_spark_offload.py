"""The driver offload policy: small strata run on the embedded backend, so deep recursion over little
data costs a handful of Spark jobs instead of one per round; large ones stay on Spark."""

from __future__ import annotations

import pytest

from deltalog.algorithms.offload import OffloadPolicy, read_predicates
from deltalog.api import Reasoner
from deltalog.backends.spark.backend import SparkBackend

pytestmark = pytest.mark.spark
TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"


def test_a_chain_of_2000_is_one_transfer_not_2000_spark_rounds(spark):
    backend = SparkBackend(spark)
    policy = OffloadPolicy(max_rows=10_000)
    reasoner = Reasoner(TC, backend=backend, offload=policy, modules="none")
    reasoner.load("edge", [(i, i + 1) for i in range(2000)])
    jobs = backend.actions
    summary = reasoner.materialise()
    assert summary.derived == 2_001_000 and policy.offloaded == [0]
    assert summary.stats.strata[0].rounds >= 1999            # the rounds happened, on the driver
    assert backend.actions - jobs <= 3                        # export edge, import path (+1 count fallback)
    assert policy.rows_in == 2000 and policy.rows_out == 2_001_000
    assert backend.count(relation="path") == 2_001_000


def test_strata_over_the_limit_stay_on_spark(spark):
    backend = SparkBackend(spark)
    policy = OffloadPolicy(max_rows=3)
    reasoner = Reasoner(TC + "n(X) :- path(X, _).", backend=backend, offload=policy, modules="none")
    reasoner.load("edge", [(1, 2), (2, 3), (3, 4), (4, 5)])
    jobs = backend.actions
    reasoner.materialise()
    assert policy.offloaded == []
    assert backend.actions - jobs >= 4                       # one insert per round, at least
    assert sorted(reasoner.relation("n")["c0"].to_list()) == [1, 2, 3, 4]


def test_offloaded_strata_read_negated_and_aggregated_predicates(spark):
    program = TC + "far(X, N) :- N = count : { path(X, Y) }, not stop(X).\n"
    policy = OffloadPolicy()
    reasoner = Reasoner(program + "stop(2).", backend=SparkBackend(spark), offload=policy, modules="none")
    reasoner.load("edge", [(1, 2), (2, 3), (3, 4)])
    reasoner.materialise()
    assert policy.offloaded == [0, 1]
    assert sorted(reasoner.relation("far").rows()) == [(1, 3), (3, 1)]
    assert read_predicates(reasoner.analysed.strata[1]) == {"far", "path", "stop"}


def test_strata_of_closure_modules_stay_on_the_backend(spark):
    """Their closure node picks the driver or the executors by the result's size (backends/spark/closure.py)."""
    backend = SparkBackend(spark)
    policy = OffloadPolicy(max_rows=10_000)
    reasoner = Reasoner(TC, backend=backend, offload=policy)
    reasoner.load("edge", [(i, i + 1) for i in range(300)])
    jobs = backend.actions
    assert reasoner.materialise().derived == 300 * 301 // 2
    assert policy.offloaded == [] and backend.closure_log[-1].node == "TransitiveClosure"
    assert backend.actions - jobs <= 6                        # no round per level


def test_the_embedded_backend_never_offloads():
    policy = OffloadPolicy()
    reasoner = Reasoner(TC + "edge(1, 2).", backend="local", offload=policy)
    reasoner.materialise()
    assert policy.offloaded == []
