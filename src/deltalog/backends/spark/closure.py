"""TransitiveClosure and ComponentPairs on Spark (plan/ir.py): the closure modules' nodes, without rule instances.
ClosureDifference and Reaches run as their expansions into TransitiveClosure nodes.

Three ways, chosen per node by ``choose`` (docs/spark.md, "Closures", has the measurements):

- ``driver``: the distinct edges come to the driver through Arrow, the closure is computed there by the
  embedded backend's kernels (backends/local/closure.py: SCC condensation and reachability bitsets; clique
  pairs of weak components) and the pairs go back as bounded Arrow partitions (transfer.py). Taken when the
  edges hold at most ``closure_driver_rows`` rows (the offload bound, ``--offload-rows``; 0 turns it off) and
  the result does too (past it, the executor path takes over).
- ``executors``: the edges come to the driver as above and are broadcast as id arrays with their tagged
  names; each task runs the same kernel for a random slice of the source nodes, so the result is made on the
  executors and never passes through the driver: one Spark job, whatever the depth. ComponentPairs ships the
  (node, component) labels computed on the driver instead and self-joins them on the label. Taken when the
  edges hold at most ``closure_broadcast_rows`` rows.
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
from typing import Callable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame, functions as F

from deltalog.plan import ir
from deltalog.backends.local import closure as kernels
from deltalog.backends.spark.execute import Context, input_size, translate
from deltalog.backends.spark.relation import fresh
from deltalog.backends.spark.transfer import arrow_frame

DEFAULT_DRIVER_ROWS = 2_000_000      # the offload bound's default (algorithms/offload.py)
BATCH_ROWS = 1 << 20                 # pairs per Arrow batch an executor yields
TASKS_PER_CORE = 2                   # the executor path's tasks (slices of the sources)
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
    return _logged(ctx, "TransitiveClosure", node.edges, lambda run: _tc_joins(node, ctx, run),
                   lambda run: _tc_in_memory(node, ctx, run))


def _logged(ctx: Context, kind: str, edges: ir.Node, by_joins: Callable[[ClosureRun], DataFrame],
            in_memory: Callable[[ClosureRun], DataFrame]) -> DataFrame:
    """Run a closure node by the path ``choose`` picks, recording it in ``SparkBackend.closure_log``."""
    backend = _backend(ctx)
    started, jobs = time.perf_counter(), backend.actions
    run = ClosureRun(kind, choose(ctx, edges))
    result = by_joins(run) if run.strategy == "joins" else in_memory(run)
    run.seconds, run.jobs = time.perf_counter() - started, backend.actions - jobs
    backend.closure_log.append(run)
    return result


def _collected(edges: ir.Node, restriction: ir.Node | None, ctx: Context, run: ClosureRun
               ) -> tuple[np.ndarray, np.ndarray, pa.Array, np.ndarray | None] | None:
    """The edges on the driver as ids (source, target, the id's tagged names) and the restriction's ids;
    None when the result is empty (no edges, or a restriction to nodes no edge has)."""
    backend = _backend(ctx)
    table = _collect(_edge_frame(edges, ctx), backend)
    run.edges = table.num_rows
    if table.num_rows == 0:
        return None
    src, dst, names = _ids(table)
    only = None if restriction is None else _node_ids(_collect(_one_column(restriction, ctx), backend), names)
    if only is not None and only.size == 0:
        return None
    return src, dst, names, only


def _tc_in_memory(node: ir.TransitiveClosure, ctx: Context, run: ClosureRun) -> DataFrame:
    """The driver and executor paths: the edges collected, the closure computed by the embedded backend's kernel."""
    backend = _backend(ctx)
    graph = _collected(node.edges, node.sources, ctx, run)
    if graph is None:
        return ctx.empty(node.columns)
    src, dst, names, sources = graph
    if run.strategy == "driver":
        found = _on_driver(kernels.transitive_closure(src, dst, sources), run, backend)
        if found is not None:
            return _driver_frame(ctx, names, found, node.columns)
        run.strategy = "executors"                      # a big result is made where it will live
    work = np.unique(src) if sources is None else sources
    return _on_executors(ctx, ("tc", src, dst, names), work, node.columns)


def _on_driver(chunks, run: ClosureRun, backend) -> list | None:
    """The kernel's chunks of pairs, or None once they exceed the driver bound (unless the driver is forced)."""
    found, total = [], 0
    for xs, ys in chunks:
        total += xs.size
        if total > backend.closure_driver_rows and backend.closure_strategy != "driver":
            return None
        found.append((xs, ys))
    run.pairs = total
    return found


def _driver_frame(ctx: Context, names: pa.Array, found: list, columns: tuple[str, ...]) -> DataFrame:
    if not found:
        return ctx.empty(columns)
    xs, ys = np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
    table = pa.table({columns[0]: names.take(pa.array(xs)), columns[1]: names.take(pa.array(ys))})
    return arrow_frame(ctx.spark, table)


def _listed(task: tuple, sources: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """On an executor: the kernel's pairs for ``sources`` (the broadcast task says which closure)."""
    kind, src, dst = task[:3]
    if kind == "tc":
        return kernels.transitive_closure(src, dst, sources, chunk=BATCH_ROWS)
    return kernels.component_pairs(src, dst, sources, chunk=BATCH_ROWS)


def _on_executors(ctx: Context, task: tuple, work: np.ndarray, columns: tuple[str, ...]) -> DataFrame:
    """The pairs listed by tasks, each for a random slice of the source nodes ``work``: the graph (node ids and
    their tagged names) is broadcast, the result is made on the executors and never passes the driver."""
    sc = ctx.spark.sparkContext
    parts = max(1, min(work.size, sc.defaultParallelism * TASKS_PER_CORE))
    slices = np.array_split(np.random.default_rng(0).permutation(work), parts)
    shared = sc.broadcast((task, slices))
    schema = f"`{columns[0]}` string, `{columns[1]}` string"

    def list_pairs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        graph, work_slices = shared.value
        node_names = graph[3]
        for batch in batches:
            for part in batch.column(0).to_pylist():
                for xs, ys in _listed(graph, work_slices[part]):
                    yield pa.RecordBatch.from_arrays([node_names.take(pa.array(xs)), node_names.take(pa.array(ys))],
                                                     names=list(columns))

    carriers = ctx.spark.createDataFrame(sc.parallelize([(i,) for i in range(parts)], parts), "part int")
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
        path = path.join(F.broadcast(_one_column(node.sources, ctx).withColumnRenamed("v", "s")), "s", "left_semi")
    run.pairs = total if node.sources is None else None
    return _named(path, node.columns)


def _union(frames: list[DataFrame]) -> DataFrame:
    """The union of checkpointed frames, each under new attribute ids (a plan may read one twice: relation.fresh)."""
    frames = [fresh(f) for f in frames]
    out = frames[0]
    for more in frames[1:]:
        out = out.unionAll(more)
    return out


# ---- ClosureDifference ----------------------------------------------------------------------------

@translate.register
def _closure_difference(node: ir.ClosureDifference, ctx: Context) -> DataFrame:
    """By the equivalent plan of TransitiveClosure nodes (``ir.ClosureDifference.expanded``): each closure
    then takes the path ``choose`` picks for it."""
    return translate(node.expanded(), ctx)


@translate.register
def _reaches(node: ir.Reaches, ctx: Context) -> DataFrame:
    """By a semi-join with a ``TransitiveClosure`` from the pairs' sources (``ir.Reaches.expanded``)."""
    return translate(node.expanded(), ctx)


# ---- ComponentPairs -------------------------------------------------------------------------------

@translate.register
def _component_pairs(node: ir.ComponentPairs, ctx: Context) -> DataFrame:
    return _logged(ctx, "ComponentPairs", node.edges,
                   lambda run: _cliques(node, ctx, _labels_by_propagation(node, ctx, run)),
                   lambda run: _cp_in_memory(node, ctx, run))


def _cp_in_memory(node: ir.ComponentPairs, ctx: Context, run: ClosureRun) -> DataFrame:
    """Driver: the kernel's clique pairs. Executors: the (node, component) labels computed here, shipped back and
    self-joined on the label by Spark."""
    backend = _backend(ctx)
    graph = _collected(node.edges, node.nodes, ctx, run)
    if graph is None:
        return ctx.empty(node.columns)
    src, dst, names, chosen = graph
    if run.strategy == "driver":
        found = _on_driver(kernels.component_pairs(src, dst, chosen), run, backend)
        if found is not None:
            return _driver_frame(ctx, names, found, node.columns)
        run.strategy = "executors"
    labels = component_labels(src, dst, len(names))
    keep = np.ones(labels.size, dtype=bool) if chosen is None else np.isin(labels, labels[chosen])
    table = pa.table({"v": names.filter(pa.array(keep)), "l": pa.array(labels[keep])})
    return _cliques(node, ctx, arrow_frame(ctx.spark, table), restricted=True)


def component_labels(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """The weakly connected component of each node 0..n-1."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    graph = csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    return connected_components(graph, directed=True, connection="weak")[1].astype(np.int64)


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
