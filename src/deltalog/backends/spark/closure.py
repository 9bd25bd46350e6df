"""TransitiveClosure and ComponentPairs on Spark (plan/ir.py): the closure modules' nodes, without rule instances.
ClosureDifference and Reaches run as their expansions into TransitiveClosure nodes, ComponentDifference into
ComponentPairs nodes.

Three ways, chosen per node by ``choose`` (docs/spark.md, "Closures", has the measurements):

- ``driver`` (closure_in_memory.py): the distinct edges come to the driver through Arrow, the closure is
  computed there by the embedded backend's kernels and the pairs go back as bounded Arrow partitions. Taken when
  the edges hold at most ``closure_driver_rows`` rows (the offload bound, ``--offload-rows``; 0 turns it off)
  and the result does too (past it, the executor path takes over).
- ``executors`` (closure_in_memory.py): the edges come to the driver as above and are broadcast; each task runs
  the same kernel for a slice of the source nodes, so the result never passes through the driver. Taken when the
  edges hold at most ``closure_broadcast_rows`` rows.
- ``joins`` (closure_joins.py): for graphs too big for one machine. TC by squaring (Ioannidis' "smart" closure),
  components by min-label propagation with pointer jumping, every round checkpointed.

Every value is a tagged string and every path computes sets of the same strings, so the results are those of
the embedded backend, byte for byte.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

from pyspark.sql import DataFrame

from deltalog.plan import ir
from deltalog.backends.spark.closure_in_memory import cp_in_memory, tc_in_memory
from deltalog.backends.spark.closure_inputs import spark_backend
from deltalog.backends.spark.closure_joins import cp_joins, tc_joins
from deltalog.backends.spark.execute import Context, input_size, translate

DEFAULT_DRIVER_ROWS = 2_000_000      # the offload bound's default (algorithms/offload.py)
STRATEGIES = ("driver", "executors", "joins")


@dataclass
class ClosureRun:
    """What one closure node did (``SparkBackend.closure_log``): for tests and benchmarks."""

    node: str
    strategy: str
    edges: int | None = None
    pairs: int | None = None
    rounds: int = 0
    jobs: int = 0
    seconds: float = 0.0
    round_seconds: list[float] = field(default_factory=list)


def driver_rows_default() -> int:
    return int(os.environ.get("DELTALOG_OFFLOAD_ROWS", DEFAULT_DRIVER_ROWS))


def choose(ctx: Context, edges: ir.Node) -> str:
    """The strategy for a closure over ``edges`` (before any job): forced, or by the edges' size."""
    backend = spark_backend(ctx)
    if backend.closure_strategy:
        return backend.closure_strategy
    rows = input_size(edges, ctx)
    if rows is not None and rows <= max(backend.closure_driver_rows, backend.closure_broadcast_rows):
        return "driver" if rows <= backend.closure_driver_rows else "executors"
    return "joins"


def _logged(ctx: Context, kind: str, edges: ir.Node, by_joins: Callable[[ClosureRun], DataFrame],
            in_memory: Callable[[ClosureRun], DataFrame]) -> DataFrame:
    """Run a closure node by the path ``choose`` picks, recording it in ``SparkBackend.closure_log``."""
    backend = spark_backend(ctx)
    started, jobs = time.perf_counter(), backend.actions
    run = ClosureRun(kind, choose(ctx, edges))
    result = by_joins(run) if run.strategy == "joins" else in_memory(run)
    run.seconds, run.jobs = time.perf_counter() - started, backend.actions - jobs
    backend.closure_log.append(run)
    return result


@translate.register
def _transitive_closure(node: ir.TransitiveClosure, ctx: Context) -> DataFrame:
    return _logged(ctx, "TransitiveClosure", node.edges, lambda run: tc_joins(node, ctx, run),
                   lambda run: tc_in_memory(node, ctx, run))


@translate.register
def _component_pairs(node: ir.ComponentPairs, ctx: Context) -> DataFrame:
    return _logged(ctx, "ComponentPairs", node.edges, lambda run: cp_joins(node, ctx, run),
                   lambda run: cp_in_memory(node, ctx, run))


@translate.register
def _closure_difference(node: ir.ClosureDifference, ctx: Context) -> DataFrame:
    """By the equivalent plan of TransitiveClosure nodes (``ir.ClosureDifference.expanded``): each closure
    then takes the path ``choose`` picks for it."""
    return translate(node.expanded(), ctx)


@translate.register
def _component_difference(node: ir.ComponentDifference, ctx: Context) -> DataFrame:
    """By the equivalent plan of ComponentPairs nodes (``ir.ComponentDifference.expanded``)."""
    return translate(node.expanded(), ctx)


@translate.register
def _reaches(node: ir.Reaches, ctx: Context) -> DataFrame:
    """By a semi-join with a ``TransitiveClosure`` from the pairs' sources (``ir.Reaches.expanded``)."""
    return translate(node.expanded(), ctx)
