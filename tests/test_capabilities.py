"""Backend capabilities are declared Protocols (backends/base.py), and callers decide by them, not by names:
saving needs ``Persistent``, offload needs ``Offloading``, DataFrames need ``FrameLoading``, and run-time
type checks work on any backend (fast on ``EncodedColumns``)."""

from __future__ import annotations

import pytest

from deltalog.algorithms.offload import OffloadPolicy, default_policy
from deltalog.api import Reasoner
from deltalog.backends.base import (Backend, ChoosesRepresentation, EncodedColumns, FrameLoading, Offloading,
                                    Persistent)
from deltalog.backends.local.backend import LocalBackend
from deltalog.errors import TypeCheckError, UsageError
from deltalog.store import StoreError

TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"


class Delegating:
    """A backend that forwards every call to a LocalBackend, except the attributes listed in ``hidden``
    (as a backend without those capabilities would lack them)."""

    hidden: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._inner = LocalBackend()
        self.name = "delegating"

    def __getattr__(self, attribute):
        if attribute in type(self).hidden or attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(self._inner, attribute)


class Plain(Delegating):
    """Only the Backend Protocol: no dictionary, ids, persistence or representations."""

    hidden = ("dictionary", "id_columns", "relations_state", "from_parts", "representation")


class Remote(Delegating):
    """A backend whose rounds cost a fixed overhead: it declares ``Offloading``."""

    round_overhead_seconds = 0.5


def test_the_local_backend_declares_its_capabilities():
    local = LocalBackend()
    assert isinstance(local, Backend)
    assert all(isinstance(local, c) for c in (EncodedColumns, Persistent, ChoosesRepresentation))
    assert not isinstance(local, FrameLoading) and not isinstance(local, Offloading)
    plain = Plain()
    assert isinstance(plain, Backend) and not any(
        isinstance(plain, c) for c in (EncodedColumns, Persistent, ChoosesRepresentation, FrameLoading, Offloading))


def test_saving_needs_a_persistent_backend_and_says_so_before_materialising(tmp_path):
    reasoner = Reasoner(TC + "edge(1, 2).", backend=Plain())
    with pytest.raises(StoreError, match="saving a store needs the local backend; the delegating backend"):
        reasoner.save(tmp_path / "store")
    assert not reasoner._materialised and not (tmp_path / "store").exists()


def test_offload_is_decided_by_the_capability(monkeypatch):
    monkeypatch.setenv("DELTALOG_OFFLOAD_ROWS", "1000")   # the suite turns the default policy off
    assert default_policy(LocalBackend()) is None and default_policy(Plain()) is None
    assert isinstance(default_policy(Remote()), OffloadPolicy)
    policy = OffloadPolicy(max_rows=1_000)
    # seminaive rounds (a stratum a closure module evaluates whole stays on the backend)
    reasoner = Reasoner(TC + "edge(1, 2). edge(2, 3). edge(3, 4).", backend=Remote(), offload=policy,
                        modules="none")
    assert reasoner.materialise().derived == 6 and policy.offloaded == [0] and policy.rows_out == 6
    kept = OffloadPolicy(max_rows=1_000)
    Reasoner(TC + "edge(1, 2).", backend=Plain(), offload=kept).materialise()
    assert kept.offloaded == [], "a backend that does not declare Offloading keeps its strata"


def test_type_checks_work_without_encoded_columns():
    for backend in (Plain(), LocalBackend()):
        reasoner = Reasoner("@decl p(a: int).\np(X) :- q(X).", backend=backend)
        reasoner.load("q", [(1,), ("a",)])
        with pytest.raises(TypeCheckError, match=r"derived the string 'a' into p\.a"):
            reasoner.materialise()


def test_dataframes_need_a_frame_loading_backend():
    reasoner = Reasoner(TC)
    with pytest.raises(UsageError, match="DataFrames of facts need a backend that loads them"):
        reasoner.load_frames({"edge": object()})


@pytest.mark.spark
def test_spark_declares_frames_and_offload_and_refuses_to_save(spark, tmp_path):
    from deltalog.backends.spark.backend import SparkBackend
    backend = SparkBackend(spark)
    assert isinstance(backend, FrameLoading) and isinstance(backend, Offloading)
    assert not isinstance(backend, Persistent) and not isinstance(backend, EncodedColumns)
    reasoner = Reasoner(TC + "edge(1, 2).", backend=backend)
    with pytest.raises(StoreError, match="saving a store needs the local backend; the spark backend"):
        reasoner.save(tmp_path / "store")
