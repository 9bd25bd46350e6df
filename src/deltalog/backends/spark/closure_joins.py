"""The closure nodes' ``joins`` path (closure.py chooses it for graphs too big for one machine): closures by
rounds of Spark joins, every round checkpointed.

TC by squaring (Ioannidis' "smart" closure): with P the pairs joined by a path of 1..2^i edges and Q those of
exactly 2^i edges, P ∪= Q ⋈ P and Q = Q ⋈ Q until Q ⋈ P adds nothing (or Q is empty): O(log depth) rounds,
each delta checkpointed. Components by min-label propagation with pointer jumping (a node takes the least label
of itself, its neighbours and its label's label), changes counted by the same job as the checkpoint; then
pairs by a self-join on the label (``cliques``, which the executor path shares).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pyspark.sql import DataFrame, functions as F

from deltalog.plan import ir
from deltalog.backends.spark.closure_inputs import edge_frame, named, one_column, spark_backend
from deltalog.backends.spark.relation import fresh

if TYPE_CHECKING:
    from deltalog.backends.spark.closure import ClosureRun
    from deltalog.backends.spark.execute import Context


def tc_joins(node: ir.TransitiveClosure, ctx: Context, run: ClosureRun) -> DataFrame:
    """Squaring: P = paths of 1..2^i edges, Q = paths of exactly 2^i; P ∪= Q ⋈ P, Q = Q ⋈ Q."""
    from deltalog.backends.spark.store import counted
    backend = spark_backend(ctx)
    edges, run.edges = counted(backend, edge_frame(node.edges, ctx))
    chunks, total = [edges], run.edges
    power, power_rows = edges, run.edges
    while power_rows:
        begun = time.perf_counter()
        run.rounds += 1
        step = power.select("s", F.col("d").alias("m")).join(_union(chunks).select(F.col("s").alias("m"), "d"), "m")
        new, added = counted(backend, step.select("s", "d").distinct().join(_union(chunks), ["s", "d"], "left_anti"))
        if added == 0:
            run.round_seconds.append(time.perf_counter() - begun)
            break
        chunks.append(new)
        total += added
        if len(chunks) > 8:                                  # keep the union shallow
            merged, _ = counted(backend, _union(chunks))
            chunks = [merged]
        squared = power.select("s", F.col("d").alias("m")).join(fresh(power).select(F.col("s").alias("m"), "d"), "m")
        power, power_rows = counted(backend, squared.select("s", "d").distinct())
        run.round_seconds.append(time.perf_counter() - begun)
    path = _union(chunks)
    if node.sources is not None:
        path = path.join(F.broadcast(one_column(node.sources, ctx).withColumnRenamed("v", "s")), "s", "left_semi")
    run.pairs = total if node.sources is None else None
    return named(path, node.columns)


def _union(frames: list[DataFrame]) -> DataFrame:
    """The union of checkpointed frames, each under new attribute ids (a plan may read one twice: relation.fresh)."""
    frames = [fresh(f) for f in frames]
    out = frames[0]
    for more in frames[1:]:
        out = out.unionAll(more)
    return out


def cp_joins(node: ir.ComponentPairs, ctx: Context, run: ClosureRun) -> DataFrame:
    """Component pairs by label propagation, then the self-join on the label."""
    return cliques(node, ctx, _labels_by_propagation(node, ctx, run))


def cliques(node: ir.ComponentPairs, ctx: Context, labels: DataFrame, restricted: bool = False) -> DataFrame:
    """Pairs of nodes with the same label (labels: columns v, l), only components of ``node.nodes`` if given."""
    if node.nodes is not None and not restricted:
        wanted = labels.join(one_column(node.nodes, ctx), "v", "left_semi").select("l").distinct()
        labels = labels.join(F.broadcast(wanted), "l", "left_semi")
    left = labels.select(F.col("v").alias(node.columns[0]), "l")
    right = labels.select(F.col("v").alias(node.columns[1]), "l")
    return left.join(right, "l").select(*[F.col(f"`{c}`") for c in node.columns])


def _labels_by_propagation(node: ir.ComponentPairs, ctx: Context, run: ClosureRun) -> DataFrame:
    """(v, l): the least node of v's component, by min-label propagation with pointer jumping."""
    from deltalog.backends.spark.store import counted
    backend = spark_backend(ctx)
    edges = edge_frame(node.edges, ctx)
    links, run.edges = counted(backend, edges.unionAll(edges.select(F.col("d").alias("s"), F.col("s").alias("d")))
                               .distinct())
    labels, _ = counted(backend, links.groupBy("s").agg(F.least(F.col("s"), F.min("d")).alias("l"))
                        .withColumnRenamed("s", "v"))
    while True:
        begun = time.perf_counter()
        run.rounds += 1
        neighbours = links.join(fresh(labels).withColumnRenamed("v", "d"), "d").select(F.col("s").alias("v"), "l")
        jumped = labels.join(fresh(labels).select(F.col("v").alias("l"), F.col("l").alias("ll")), "l") \
            .select("v", F.col("ll").alias("l"))
        own = labels.select("v", "l", F.col("l").alias("old"))
        candidates = own.unionAll(neighbours.withColumn("old", F.lit(None).cast("string"))) \
            .unionAll(jumped.withColumn("old", F.lit(None).cast("string")))
        updated = candidates.groupBy("v").agg(F.min("l").alias("l"), F.min("old").alias("old"))
        labels, moved = _changed(backend, updated)
        labels = labels.select("v", "l")
        run.round_seconds.append(time.perf_counter() - begun)
        if moved == 0:
            return labels


def _changed(backend, rows: DataFrame) -> tuple[DataFrame, int]:
    """Checkpoint new labels (v, l, old) and count the changed ones in the same job (an observed sum)."""
    from pyspark.sql import Observation
    from deltalog.backends.spark.store import observed
    observation = Observation()
    flagged = rows.observe(observation, F.sum(F.when(F.col("l") != F.col("old"), 1).otherwise(0)).alias("rows"))
    stored = backend.checkpoint(flagged)
    found = observed(observation)
    if found is None:
        backend.actions += 1
        found = stored.where(F.col("l") != F.col("old")).count()
    return stored, found
