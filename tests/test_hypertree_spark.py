"""Spark parity of the Yannakakis plans (plan/hypertree.py): hd=all on the Spark executor (no offload)
equals hd=off on the local backend, for materialisation and a DRed update (issue 14)."""

from __future__ import annotations

import pytest

from deltalog.api import Reasoner
from deltalog.backends.spark.backend import SparkBackend

pytestmark = pytest.mark.spark

PROGRAM = """\
t(X, Y, Z) :- e(X, Y), e(Y, Z), e(Z, X), X < Y.
s(X, Z) :- e(X, Y), e(Y, Z), e(Z, W), e(W, X), not f(X, V).
pc(X, Y) :- base(X, Y).
pc(X, Y) :- cw(X, Z1), ca(X, Z2), pc(Z1, Y), pc(Z2, Y).
"""
FACTS = {
    "e": [(1, 2), (2, 3), (3, 1), (3, 4), (4, 1), (2, 4), (4, 5), (5, 2)],
    "f": [(5, 0)],
    "cw": [("a", "b1"), ("a", "b2"), ("n", "a")],
    "ca": [("a", "c1"), ("n", "m")],
    "base": [("b1", "d"), ("b2", "e"), ("c1", "d"), ("m", "d")],
}


def state(reasoner: Reasoner) -> dict[str, set]:
    return {p: reasoner.backend.typed_rows(relation=p) for p in ("t", "s", "pc")}


def run(backend, hd: str) -> list[dict[str, set]]:
    reasoner = Reasoner(PROGRAM, backend=backend, offload=None, hd=hd)
    for predicate, rows in FACTS.items():
        reasoner.load(predicate, rows)
    reasoner.materialise()
    states = [state(reasoner)]
    reasoner.update(delete={"e": [(3, 1)], "ca": [("n", "m")]}, add={"e": [(3, 5)]}, algorithm="dred")
    states.append(state(reasoner))
    return states


def test_hd_all_on_spark_equals_hd_off_locally(spark):
    assert run(SparkBackend(spark), "all") == run("local", "off")
