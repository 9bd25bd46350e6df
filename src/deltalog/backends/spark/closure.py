"""TransitiveClosure and ComponentPairs on Spark (plan/ir.py): the closure modules' nodes, without rule instances.

Three ways, chosen per node by ``choose`` (docs/spark.md, "Closures", has the measurements):

- ``driver``: the distinct edges come to the driver through Arrow, the closure is computed there
  (closure_kernel.py: SCC condensation and reachability bitsets; components by scipy) and the pairs go back as
  bounded Arrow partitions (transfer.py). Taken when the edges and the result hold at most
  ``closure_driver_rows`` rows (the offload bound, ``--offload-rows``; 0 turns it off).
- ``executors``: the edges come to the driver as above, but only the condensed reachability (k^2/8 bytes of
  bitsets for k components) is broadcast; each task lists the pairs of a slice of the sources, balanced by
  their counts, so the result is made on the executors and never passes through the driver. One Spark job.
  ComponentPairs ships the (node, component) labels instead and self-joins them on the label. Taken when the
  edges hold at most ``closure_broadcast_rows`` rows and the bitsets fit.
- ``joins``: for graphs too big for one machine. TC by squaring (Ioannidis' "smart" closure): with P the pairs
  joined by a path of 1..2^i edges and Q those of exactly 2^i edges, P ∪= Q ⋈ P and Q = Q ⋈ Q until Q ⋈ P adds
  nothing (or Q is empty): O(log depth) rounds, each delta checkpointed. Components by min-label propagation
  with pointer jumping (a node takes the least label of itself, its neighbours and its label's label), every
  round checkpointed, changes counted by the same job; then pairs by a self-join on the label.

Every value is a tagged string and every path computes sets of the same strings, so the results are those of
the embedded backend, byte for byte.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame, functions as F

from deltalog.plan import ir
from deltalog.backends.spark import closure_kernel as kernel
from deltalog.backends.spark.execute import Context, input_size, translate
from deltalog.backends.spark.transfer import arrow_frame

DEFAULT_DRIVER_ROWS = 2_000_000      # the offload bound's default (algorithms/offload.py)
BATCH_ROWS = 1 << 20                 # pairs per Arrow batch an executor yields
PAIRS_PER_TASK = 4_000_000           # the executor path's tasks: at least one per this many pairs
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


# ---- shared pieces --------------------------------------------------------------------------------

def _edge_frame(node: ir.Node, ctx: Context) -> DataFrame:
    """The distinct edges as columns s, d."""
    a, b = node.columns
    return translate(node, ctx).select(F.col(f"`{a}`").alias("s"), F.col(f"`{b}`").alias("d")).distinct()


def _one_column(node: ir.Node, ctx: Context) -> DataFrame:
    (name,) = node.columns
    return translate(node, ctx).select(F.col(f"`{name}`").alias("v")).distinct()


def _backend(ctx: Context):
    if ctx.backend is None:
        raise TypeError("closure nodes need a SparkBackend in the execution context")
    return ctx.backend


def _collect(frame: DataFrame, backend) -> pa.Table:
    backend.actions += 1
    return frame.toArrow()


def _ids(edges: pa.Table) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Edges as node ids, and the tagged name of each id."""
    both = pa.chunked_array(edges.column("s").chunks + edges.column("d").chunks).combine_chunks()
    encoded = pc.dictionary_encode(both)
    ids = np.asarray(encoded.indices, dtype=np.int64)
    m = edges.num_rows
    return ids[:m], ids[m:], encoded.dictionary


def _node_ids(values: pa.Table, names: pa.Array) -> np.ndarray:
    """The ids of the given values that are nodes of the graph."""
    found = pc.drop_null(pc.index_in(values.column("v"), value_set=names))
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int64)


def _pairs_table(names: pa.Array, xs: np.ndarray, ys: np.ndarray, columns: tuple[str, ...]) -> pa.Table:
    return pa.table({columns[0]: names.take(pa.array(xs)), columns[1]: names.take(pa.array(ys))})


def _named(pairs: DataFrame, columns: tuple[str, ...]) -> DataFrame:
    return pairs.select(F.col("s").alias(columns[0]), F.col("d").alias(columns[1]))


def choose(ctx: Context, edges: ir.Node) -> str:
    """The strategy for a closure over ``edges`` (before any job): forced, or by the edges' size."""
    backend = _backend(ctx)
    if backend.closure_strategy:
        return backend.closure_strategy
    rows = input_size(edges, ctx)
    if rows is not None and rows <= max(backend.closure_driver_rows, backend.closure_broadcast_rows):
        return "driver" if rows <= backend.closure_driver_rows else "executors"
    return "joins"


# ---- TransitiveClosure ----------------------------------------------------------------------------

@translate.register
def _transitive_closure(node: ir.TransitiveClosure, ctx: Context) -> DataFrame:
    backend = _backend(ctx)
    started, jobs = time.perf_counter(), backend.actions
    strategy = choose(ctx, node.edges)
    run = ClosureRun("TransitiveClosure", strategy)
    if strategy == "joins":
        result = _tc_joins(node, ctx, run)
    else:
        result = _tc_in_memory(node, ctx, run)
    run.seconds, run.jobs = time.perf_counter() - started, backend.actions - jobs
    backend.closure_log.append(run)
    return result


def _tc_in_memory(node: ir.TransitiveClosure, ctx: Context, run: ClosureRun) -> DataFrame:
    """The driver and executor paths: the edges collected, the condensed closure computed on the driver."""
    backend = _backend(ctx)
    edges = _collect(_edge_frame(node.edges, ctx), backend)
    run.edges = edges.num_rows
    if edges.num_rows == 0:
        return ctx.empty(node.columns)
    src, dst, names = _ids(edges)
    reach = kernel.prepare(src, dst, len(names))
    if reach is None:                                   # too many components for the bitsets
        run.strategy = "joins"
        return _tc_joins(node, ctx, run)
    sources = None if node.sources is None else _node_ids(_collect(_one_column(node.sources, ctx), backend), names)
    nodes = np.unique(src) if sources is None else np.unique(sources)
    counts = reach.counts(nodes)
    run.pairs = int(counts.sum())
    if run.strategy == "driver" and run.pairs > backend.closure_driver_rows and not backend.closure_strategy:
        run.strategy = "executors"                      # a big result is made where it will live
    if run.pairs == 0:
        return ctx.empty(node.columns)
    if run.strategy == "driver":
        xs, ys = reach.pairs_array(nodes)
        return arrow_frame(ctx.spark, _pairs_table(names, xs, ys, node.columns))
    return _on_executors(ctx, reach, names, nodes, counts, node.columns)


def _on_executors(ctx: Context, reach: kernel.Reachability, names: pa.Array, nodes: np.ndarray,
                  counts: np.ndarray, columns: tuple[str, ...]) -> DataFrame:
    """The pairs of ``nodes`` listed by tasks, each for a slice of them holding about the same number of pairs."""
    sc = ctx.spark.sparkContext
    total = int(counts.sum())
    if total == 0:
        return ctx.empty(columns)
    parts = max(sc.defaultParallelism, -(-total // PAIRS_PER_TASK))
    order = nodes[np.argsort(reach.comp[nodes], kind="stable")]      # a slice touches few components
    cumulative = np.cumsum(counts[np.argsort(reach.comp[nodes], kind="stable")])
    cuts = np.searchsorted(cumulative, np.arange(1, parts) * total / parts)
    slices = np.split(order, cuts)
    shared = sc.broadcast((reach, names, slices))
    schema = f"`{columns[0]}` string, `{columns[1]}` string"

    def list_pairs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        closure, node_names, work = shared.value
        for batch in batches:
            for part in batch.column(0).to_pylist():
                for xs, ys in closure.pairs(work[part]):
                    for lo in range(0, xs.size, BATCH_ROWS):
                        yield pa.RecordBatch.from_arrays(
                            [node_names.take(pa.array(xs[lo:lo + BATCH_ROWS])),
                             node_names.take(pa.array(ys[lo:lo + BATCH_ROWS]))], names=list(columns))

    carriers = ctx.spark.createDataFrame(sc.parallelize([(i,) for i in range(len(slices))], len(slices)), "part int")
    return carriers.mapInArrow(list_pairs, schema)


def _tc_joins(node: ir.TransitiveClosure, ctx: Context, run: ClosureRun) -> DataFrame:
    """Squaring: P = paths of 1..2^i edges, Q = paths of exactly 2^i; P ∪= Q ⋈ P, Q = Q ⋈ Q."""
    from deltalog.backends.spark.store import counted
    backend = _backend(ctx)
    edges, run.edges = counted(backend, _edge_frame(node.edges, ctx))
    chunks, total = [edges], run.edges
    power, power_rows = edges, run.edges
    while power_rows:
        begun = time.perf_counter()
        run.rounds += 1
        path = _union(chunks)
        step = power.select("s", F.col("d").alias("m")).join(path.select(F.col("s").alias("m"), "d"), "m")
        fresh, added = counted(backend, step.select("s", "d").distinct().join(path, ["s", "d"], "left_anti"))
        if added == 0:
            run.round_seconds.append(time.perf_counter() - begun)
            break
        chunks.append(fresh)
        total += added
        if len(chunks) > 8:                                  # keep the union shallow
            merged, _ = counted(backend, _union(chunks))
            chunks = [merged]
        squared = power.select("s", F.col("d").alias("m")).join(power.select(F.col("s").alias("m"), "d"), "m")
        power, power_rows = counted(backend, squared.select("s", "d").distinct())
        run.round_seconds.append(time.perf_counter() - begun)
    path = _union(chunks)
    if node.sources is not None:
        path = path.join(F.broadcast(_one_column(node.sources, ctx).withColumnRenamed("v", "s")), "s", "left_semi")
    run.pairs = total if node.sources is None else None
    return _named(path, node.columns)


def _union(frames: list[DataFrame]) -> DataFrame:
    out = frames[0]
    for more in frames[1:]:
        out = out.unionAll(more)
    return out


# ---- ComponentPairs -------------------------------------------------------------------------------

@translate.register
def _component_pairs(node: ir.ComponentPairs, ctx: Context) -> DataFrame:
    backend = _backend(ctx)
    started, jobs = time.perf_counter(), backend.actions
    strategy = choose(ctx, node.edges)
    run = ClosureRun("ComponentPairs", strategy)
    if strategy == "joins":
        labels = _labels_by_propagation(node, ctx, run)
        result = _cliques(node, ctx, labels)
    else:
        result = _cp_in_memory(node, ctx, run)
    run.seconds, run.jobs = time.perf_counter() - started, backend.actions - jobs
    backend.closure_log.append(run)
    return result


def _cp_in_memory(node: ir.ComponentPairs, ctx: Context, run: ClosureRun) -> DataFrame:
    backend = _backend(ctx)
    edges = _collect(_edge_frame(node.edges, ctx), backend)
    run.edges = edges.num_rows
    if edges.num_rows == 0:
        return ctx.empty(node.columns)
    src, dst, names = _ids(edges)
    labels = kernel.component_labels(src, dst, len(names))
    chosen = None if node.nodes is None else _node_ids(_collect(_one_column(node.nodes, ctx), backend), names)
    sizes = np.bincount(labels, minlength=int(labels.max()) + 1 if labels.size else 0)
    kept = sizes if chosen is None else sizes[np.unique(labels[chosen])]
    run.pairs = int((kept.astype(np.int64) ** 2).sum())
    if run.strategy == "driver" and run.pairs > backend.closure_driver_rows and not backend.closure_strategy:
        run.strategy = "executors"
    if run.pairs == 0:
        return ctx.empty(node.columns)
    if run.strategy == "driver":
        xs, ys = kernel.clique_pairs(labels, chosen)
        return arrow_frame(ctx.spark, _pairs_table(names, xs, ys, node.columns))
    keep = np.ones(labels.size, dtype=bool) if chosen is None else np.isin(labels, labels[chosen])
    table = pa.table({"v": names.filter(pa.array(keep)), "l": pa.array(labels[keep])})
    return _cliques(node, ctx, arrow_frame(ctx.spark, table), restricted=True)


def _cliques(node: ir.ComponentPairs, ctx: Context, labels: DataFrame, restricted: bool = False) -> DataFrame:
    """Pairs of nodes with the same label (labels: columns v, l), only components of ``node.nodes`` if given."""
    if node.nodes is not None and not restricted:
        wanted = labels.join(_one_column(node.nodes, ctx), "v", "left_semi").select("l").distinct()
        labels = labels.join(F.broadcast(wanted), "l", "left_semi")
    left = labels.select(F.col("v").alias(node.columns[0]), "l")
    right = labels.select(F.col("v").alias(node.columns[1]), "l")
    return left.join(right, "l").select(*[F.col(f"`{c}`") for c in node.columns])


def _labels_by_propagation(node: ir.ComponentPairs, ctx: Context, run: ClosureRun) -> DataFrame:
    """(v, l): the least node of v's component, by min-label propagation with pointer jumping."""
    from deltalog.backends.spark.store import counted
    backend = _backend(ctx)
    edges = _edge_frame(node.edges, ctx)
    links, run.edges = counted(backend, edges.unionAll(edges.select(F.col("d").alias("s"), F.col("s").alias("d")))
                               .distinct())
    labels, _ = counted(backend, links.groupBy("s").agg(F.least(F.col("s"), F.min("d")).alias("l"))
                        .withColumnRenamed("s", "v"))
    while True:
        begun = time.perf_counter()
        run.rounds += 1
        neighbours = links.join(labels.withColumnRenamed("v", "d"), "d").select(F.col("s").alias("v"), "l")
        jumped = labels.join(labels.select(F.col("v").alias("l"), F.col("l").alias("ll")), "l") \
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
