"""The closure nodes' driver and executor paths (closure.py chooses): the distinct edges come to the driver
through Arrow as node ids, and the embedded backend's kernels (backends/local/closure.py: SCC condensation and
reachability bitsets; clique pairs of weak components) compute the closure.

- ``driver``: the kernel runs on the driver and the pairs go back as bounded Arrow partitions (transfer.py),
  while they stay within ``closure_driver_rows``; past it, the executor path takes over.
- ``executors``: the graph (ids and their tagged names) is broadcast and each task runs the same kernel for a
  random slice of the source nodes (closure_tasks.py), so the result is made on the executors and never passes
  through the driver: one Spark job, whatever the depth. ComponentPairs ships the (node, component) labels
  computed on the driver instead and self-joins them on the label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame

from deltalog.plan import ir
from deltalog.backends.local import closure as kernels
from deltalog.backends.spark.closure_inputs import edge_frame, one_column, spark_backend
from deltalog.backends.spark.closure_joins import cliques
from deltalog.backends.spark.closure_tasks import pair_batches
from deltalog.backends.spark.transfer import arrow_frame

if TYPE_CHECKING:
    from deltalog.backends.spark.closure import ClosureRun
    from deltalog.backends.spark.execute import Context

TASKS_PER_CORE = 2                   # the executor path's tasks (slices of the sources)


def tc_in_memory(node: ir.TransitiveClosure, ctx: Context, run: ClosureRun) -> DataFrame:
    """The driver and executor paths: the edges collected, the closure computed by the embedded backend's kernel."""
    def on_executors(src: np.ndarray, dst: np.ndarray, names: pa.Array, sources: np.ndarray | None) -> DataFrame:
        work = np.unique(src) if sources is None else sources
        return _on_executors(ctx, ("tc", src, dst, names), work, node.columns)
    return _in_memory(node, node.sources, ctx, run, kernels.transitive_closure, on_executors)


def cp_in_memory(node: ir.ComponentPairs, ctx: Context, run: ClosureRun) -> DataFrame:
    """Driver: the kernel's clique pairs. Executors: the (node, component) labels computed here, shipped back and
    self-joined on the label by Spark."""
    def on_executors(src: np.ndarray, dst: np.ndarray, names: pa.Array, chosen: np.ndarray | None) -> DataFrame:
        labels = component_labels(src, dst, len(names))
        keep = np.ones(labels.size, dtype=bool) if chosen is None else np.isin(labels, labels[chosen])
        table = pa.table({"v": names.filter(pa.array(keep)), "l": pa.array(labels[keep])})
        return cliques(node, ctx, arrow_frame(ctx.spark, table), restricted=True)
    return _in_memory(node, node.nodes, ctx, run, kernels.component_pairs, on_executors)


def _in_memory(node: ir.TransitiveClosure | ir.ComponentPairs, restriction: ir.Node | None, ctx: Context,
               run: ClosureRun, kernel: Callable[[np.ndarray, np.ndarray, np.ndarray | None], Any],
               on_executors: Callable[[np.ndarray, np.ndarray, pa.Array, np.ndarray | None], DataFrame]) -> DataFrame:
    """The edges collected (as ids, with the restriction's ids: ``_collected``; no graph, no pairs), then the
    driver path (``kernel`` of them, ``_driver_first``), else ``on_executors`` of them."""
    backend = spark_backend(ctx)
    graph = _collected(node.edges, restriction, ctx, run)
    if graph is None:
        return ctx.empty(node.columns)
    src, dst, names, only = graph
    done = _driver_first(ctx, run, backend, names, node.columns, lambda: kernel(src, dst, only))
    return done if done is not None else on_executors(src, dst, names, only)


def _driver_first(ctx: Context, run: ClosureRun, backend, names: pa.Array, columns: tuple[str, ...],
                  compute: Callable[[], Any]) -> DataFrame | None:
    """The driver path's frame when the run chose the driver and the kernel's result (``compute()``) is
    small enough to send from there; else None, and a run that chose the driver moves to the executors
    (a big result is made where it will live)."""
    if run.strategy != "driver":
        return None
    found = _on_driver(compute(), run, backend)
    if found is not None:
        return _driver_frame(ctx, names, found, columns)
    run.strategy = "executors"
    return None


def component_labels(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """The weakly connected component of each node 0..n-1."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    graph = csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    return connected_components(graph, directed=True, connection="weak")[1].astype(np.int64)


# ---- the graph on the driver ----------------------------------------------------------------------

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


def _collected(edges: ir.Node, restriction: ir.Node | None, ctx: Context, run: ClosureRun
               ) -> tuple[np.ndarray, np.ndarray, pa.Array, np.ndarray | None] | None:
    """The edges on the driver as ids (source, target, the id's tagged names) and the restriction's ids;
    None when the result is empty (no edges, or a restriction to nodes no edge has)."""
    backend = spark_backend(ctx)
    table = _collect(edge_frame(edges, ctx), backend)
    run.edges = table.num_rows
    if table.num_rows == 0:
        return None
    src, dst, names = _ids(table)
    only = None if restriction is None else _node_ids(_collect(one_column(restriction, ctx), backend), names)
    if only is not None and only.size == 0:
        return None
    return src, dst, names, only


# ---- where the pairs are made ---------------------------------------------------------------------

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


def _on_executors(ctx: Context, task: tuple, work: np.ndarray, columns: tuple[str, ...]) -> DataFrame:
    """The pairs listed by tasks, each for a random slice of the source nodes ``work``: the graph (node ids and
    their tagged names) is broadcast, the result is made on the executors and never passes the driver."""
    sc = ctx.spark.sparkContext
    parts = max(1, min(work.size, sc.defaultParallelism * TASKS_PER_CORE))
    slices = np.array_split(np.random.default_rng(0).permutation(work), parts)
    shared = sc.broadcast((task, slices))
    schema = f"`{columns[0]}` string, `{columns[1]}` string"

    def list_pairs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        graph, work_slices = shared.value     # names only closure_tasks.py: what a worker imports to run it
        for batch in batches:
            for part in batch.column(0).to_pylist():
                yield from pair_batches(graph, work_slices[part], columns)

    carriers = ctx.spark.createDataFrame(sc.parallelize([(i,) for i in range(parts)], parts), "part int")
    return carriers.mapInArrow(list_pairs, schema)
