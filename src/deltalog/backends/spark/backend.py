"""The Spark backend: relations as lists of checkpointed chunks of tagged strings, plans as DataFrames."""

from __future__ import annotations

from typing import Any, MutableMapping

import polars as pl
import pyarrow as pa
from pyspark.sql import DataFrame, functions as F

from deltalog.backends.base import FrameLoading, Offloading
from deltalog.errors import InputError
from deltalog.io.int_columns import ColumnTable, as_polars
from deltalog.plan.ir import Node, Values
from deltalog.backends.spark import store
from deltalog.backends.spark.codec import decode_table, tag_frame, tag_table, text_frame, typed_frame, typed_rows
from deltalog.backends.spark.errors import translated
from deltalog.backends.spark.execute import (BROADCAST_ROWS, Context, frame, input_size, names_of, unique_rows,
                                             values_table)
from deltalog.backends.spark.expressions import column
from deltalog.backends.spark.relation import SparkRelation
from deltalog.backends.spark.checkpoints import choose as choose_checkpoints
from deltalog.backends.spark.executors import prepare as prepare_executors
from deltalog.backends.spark.session import created_by_deltalog, get_session, with_required_settings
from deltalog.backends.spark.transfer import arrow_frame
from deltalog.backends.spark.closure import driver_rows_default as closure_driver_rows


@with_required_settings
class SparkBackend(FrameLoading, Offloading):
    """Runs plans as PySpark DataFrame operations.

    ``spark``: a session to work in (the user's: deltalog applies the SQL settings it needs around each
    call and restores them); else one is started (``session.get_session``). ``checkpoint``: ``local``,
    ``reliable``, or None to choose by master (``checkpoints.choose``); ``checkpoint_near``: a location
    (the output) next to which a checkpoint directory may be made. ``close()`` removes what it wrote.
    """

    name = "spark"
    round_overhead_seconds = 1.0   # a checkpointed job per round, however few its rows

    def __init__(self, spark=None, *, master: str | None = None, checkpoint: str | None = None,
                 checkpoint_dir: str | None = None, driver_memory: str | None = None,
                 checkpoint_near: str | None = None, quiet: bool = False) -> None:
        self.spark = spark or get_session(master=master, driver_memory=driver_memory, quiet=quiet)
        self.own_settings = spark is None and created_by_deltalog(self.spark)
        with translated():
            prepare_executors(self.spark)
        self.checkpoints = choose_checkpoints(self.spark, mode=checkpoint, directory=checkpoint_dir,
                                              near=checkpoint_near, owns_session=self.own_settings)
        self.checkpoint_mode = self.checkpoints.mode
        self._relations: dict[str, SparkRelation] = {}
        self._distinct: dict[tuple[str, tuple[int, ...]], tuple[int, int]] = {}
        self.broadcast_rows = BROADCAST_ROWS
        self.actions = 0   # Spark jobs this backend asked for (checkpoints, collects): what a round costs
        # closure nodes (closure.py): the driver path's bound (the offload bound), the executor path's, a forced
        # strategy ("driver", "executors", "joins"; None: chosen by size) and what each node did
        self.closure_driver_rows = closure_driver_rows()
        self.closure_broadcast_rows = BROADCAST_ROWS
        self.closure_strategy: str | None = None
        self.closure_log: list = []

    def close(self) -> None:
        """Remove the checkpoint files this backend created (its relations are unusable afterwards)."""
        self.checkpoints.close(self.spark)
        self._relations.clear()

    # ---- relations -------------------------------------------------------------------------------

    def create_relation(self, *, relation: str, arity: int) -> None:
        existing = self._relations.get(relation)
        if existing is None:
            self._relations[relation] = SparkRelation(relation, arity)
        elif existing.arity != arity:
            raise InputError(f"relation {relation} has arity {existing.arity}, not {arity}")

    def relations(self) -> dict[str, int]:
        return {name: r.arity for name, r in self._relations.items()}

    def relation(self, relation: str) -> SparkRelation:
        return self._relations[relation]

    def _context(self, metrics: MutableMapping[str, int] | None = None) -> Context:
        return Context(self.spark, self._relations, [] if metrics is not None else None, self.broadcast_rows,
                       backend=self)

    def checkpoint(self, rows: DataFrame) -> DataFrame:
        """Materialise and cut the lineage (one Spark job), so later plans do not recompute it."""
        self.actions += 1
        with translated():
            return rows.localCheckpoint(eager=True) if self.checkpoint_mode == "local" else rows.checkpoint(eager=True)

    def _head_rows(self, plan: Node, target: SparkRelation, ctx: Context) -> DataFrame:
        """The plan's rows as the relation's columns c0..ck (arity 0: one hidden empty column)."""
        rows = frame(plan, ctx)
        if target.arity == 0:
            return rows.select(F.lit("").alias("c0"))
        return rows.select(*[column(n).alias(f"c{i}") for i, n in enumerate(names_of(plan))])

    def insert(self, *, relation: str, plan: Node, generation: int,
               metrics: MutableMapping[str, int] | None = None, revive_since: int | None = None) -> int:
        target = self._relations[relation]
        if isinstance(plan, Values) and len(plan.columns) == target.arity:   # facts: the driver has them
            table = values_table(plan, target.names)
            return self.import_rows(relation=relation, table=table, generation=generation)
        ctx = self._context(metrics)
        added = store.insert(self, target, self._head_rows(plan, target, ctx), generation, revive_since,
                             input_size(plan, ctx), unique=unique_rows(plan))
        store.collect_metrics(ctx, metrics)
        return added

    def delete(self, *, relation: str, plan: Node, generation: int,
               metrics: MutableMapping[str, int] | None = None) -> int:
        target = self._relations[relation]
        ctx = self._context(metrics)
        removed = store.delete(self, target, self._head_rows(plan, target, ctx), generation)
        store.collect_metrics(ctx, metrics)
        return removed

    def rename(self, *, relation: str, to: str) -> None:
        if to in self._relations:
            raise InputError(f"relation {to} exists already")
        stored = self._relations.pop(relation)
        stored.name = to
        self._relations[to] = stored
        self._distinct = {k: v for k, v in self._distinct.items() if k[0] not in (relation, to)}

    def drop(self, *, relation: str) -> None:
        self._relations.pop(relation, None)
        self._distinct = {k: v for k, v in self._distinct.items() if k[0] != relation}

    def clear(self, *, relation: str) -> None:
        target = self._relations[relation]
        self._relations[relation] = SparkRelation(relation, target.arity)
        self._distinct = {k: v for k, v in self._distinct.items() if k[0] != relation}

    def rollback(self, *, relation: str, generation: int) -> None:
        store.rollback(self, self._relations[relation], generation)

    def compact(self, *, relation: str) -> None:
        store.drop_deleted(self, self._relations[relation])

    def deleted_rows(self, *, relation: str) -> int:
        return sum(sum(d.per_key.values()) for d in self._relations[relation].deletions)

    def count(self, *, relation: str, since: int = 0, until: int | None = None,
              visible: int | None = None, deleted: tuple[int, int | None] | None = None) -> int:
        target = self._relations[relation]
        known = target.count(since, until, visible, deleted)
        if known is not None:
            return known
        self.actions += 1
        with translated():
            frame = target.frame(since, until, visible=visible, deleted=deleted)
            assert frame is not None   # the count is unknown only for a window that cuts a chunk, so it has rows
            return frame.count()

    def distinct(self, *, relation: str, positions: tuple[int, ...]) -> int | None:
        """Approximate distinct keys, recomputed only when the relation has doubled (planning must stay cheap)."""
        rows = self.count(relation=relation)
        if rows == 0:
            return 0
        cached = self._distinct.get((relation, positions))
        if cached is not None and cached[0] * 2 > rows and rows * 2 > cached[0]:
            return cached[1]
        live = self._relations[relation].frame()
        assert live is not None   # it has rows
        self.actions += 1
        with translated():
            first = live.select(F.approx_count_distinct(F.concat_ws("\t", *[f"c{p}" for p in positions]))).first()
            assert first is not None   # a global aggregate has one row
            found = first[0]
        self._distinct[(relation, positions)] = (rows, int(found))
        return int(found)

    # ---- moving data in and out ------------------------------------------------------------------

    def load(self, *, relation: str, table: pl.DataFrame | ColumnTable, generation: int) -> int:
        height = table.height   # a ColumnTable of no columns has rows its Polars frame cannot hold
        table = as_polars(table)
        target = self._relations[relation]
        if table.width != target.arity and not (target.arity == 0 and table.width <= 1):
            raise InputError(f"{relation} has arity {target.arity}, but the data has {table.width} columns")
        if height == 0:
            return 0
        tagged = tag_table(table) if target.arity else pl.DataFrame({"c0": [""] * height})
        return self.import_rows(relation=relation, table=tagged.to_arrow(), generation=generation)

    def load_frame(self, *, relation: str, data: DataFrame, generation: int, tagged: bool = False) -> int:
        """Store a Spark DataFrame of values (any column types, typed on the executors; ``tagged``: columns
        already tagged, as the Spark readers give them)."""
        target = self._relations[relation]
        if len(data.columns) != target.arity:
            raise InputError(f"{relation} has arity {target.arity}, but the DataFrame has {len(data.columns)} columns")
        rows = data.toDF(*target.names[: target.arity]) if tagged else tag_frame(data)
        if target.arity == 0:
            rows = data.select(F.lit("").alias("c0"))
        with translated():
            return store.insert(self, target, rows, generation, None)

    def import_rows(self, *, relation: str, table: pa.Table, generation: int) -> int:
        """Store rows given as tagged text (columns c0..ck; arity 0: one column of empty strings)."""
        target = self._relations[relation]
        if table.num_rows == 0:
            return 0
        table = table.rename_columns(target.names)
        if not target.chunks and table.num_rows <= store.LOCAL_ROWS:   # small and new: dedup here, no job
            unique = table.group_by(target.names).aggregate([]).select(target.names)
            target.add_chunk(self.spark.createDataFrame(unique), unique.num_rows, generation)
            return unique.num_rows
        with translated():
            rows = arrow_frame(self.spark, table)
        return store.insert(self, target, rows, generation, None, table.num_rows)

    def export_rows(self, *, relation: str, since: int = 0, until: int | None = None) -> pa.Table:
        """The live rows of a relation in a generation window as tagged text (arity 0: one empty-string column)."""
        target = self._relations[relation]
        rows = target.frame(since, until)
        if rows is None:
            return pa.table({n: pa.array([], pa.string()) for n in target.names})
        return self.to_arrow(rows)

    def to_arrow(self, rows: DataFrame) -> pa.Table:
        self.actions += 1
        with translated():
            return rows.toArrow()

    def frame(self, *, relation: str) -> DataFrame | None:
        """The live rows of a relation as a Spark DataFrame of tagged columns c0..ck (None if empty)."""
        return self._relations[relation].frame()

    def output_frame(self, *, relation: str, typed: bool = True) -> DataFrame:
        """A relation as a Spark DataFrame c0..ck of values (typed columns, see ``typed_frame``) or output text."""
        target = self._relations[relation]
        rows = target.frame()
        if rows is None:
            return self.spark.createDataFrame([], ", ".join(f"{n} string" for n in target.names[: target.arity]) or
                                              "present boolean")
        if target.arity == 0:
            return rows.select(F.lit(True).alias("present")).limit(1)
        self.actions += typed
        return typed_frame(rows, target.names) if typed else text_frame(rows, target.names)

    def write_datasets(self, *, relations: list[str], out: str, format: str) -> None:
        """Write relations with the executors, atomically (see ``io.write_datasets``)."""
        from deltalog.backends.spark.io import write_datasets
        typed = format == "parquet"
        frames = {r: self.output_frame(relation=r, typed=typed) for r in relations}
        self.actions += len(frames)
        write_datasets(self.spark, frames, str(out), format=format)

    def evaluate(self, *, plan: Node) -> pl.DataFrame:
        rows = self.to_arrow(frame(plan, self._context()))
        if not plan.columns:
            return pl.DataFrame({"present": [True] * min(rows.num_rows, 1)})
        return decode_table(rows, list(plan.columns))

    def read(self, *, relation: str) -> pl.DataFrame:
        target = self._relations[relation]
        rows = self.export_rows(relation=relation)
        if target.arity == 0:
            return pl.DataFrame({"present": [True] * min(rows.num_rows, 1)})
        return decode_table(rows, target.names)

    def typed_rows(self, *, relation: str) -> set[tuple[tuple[str, object], ...]]:
        target = self._relations[relation]
        rows = self.export_rows(relation=relation)
        if target.arity == 0:
            return {()} if rows.num_rows else set()
        return typed_rows(rows)

    def memory_bytes(self) -> int:
        """Bytes Spark's block manager holds for checkpointed chunks (memory and disk)."""
        infos = self.spark.sparkContext._jsc.sc().getRDDStorageInfo()
        return sum(int(i.memSize()) + int(i.diskSize()) for i in infos)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "master": self.spark.sparkContext.master, "spark": self.spark.version,
                "checkpoint": self.checkpoint_mode, "spark_actions": self.actions}
