"""The Spark executor: each plan node becomes a DataFrame, one small function per node (mirrors local/execute.py).

Every DataFrame a node yields has exactly the node's columns, holding tagged strings (see
codec.py). Joins broadcast a side that the chunk counts say is small, because Spark cannot
know the size of a checkpointed chunk union and would otherwise shuffle both sides. Rows a
labelled node produces are counted with ``DataFrame.observe`` (collected by the job that
materialises the result, so metrics cost no extra job).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce, singledispatch
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, Observation, SparkSession, functions as F
from pyspark.sql.types import StringType, StructField, StructType

from deltalog.plan import ir
from deltalog.backends.spark.aggregate import aggregate
from deltalog.backends.spark.codec import tag_constant
from deltalog.backends.spark.expressions import column, staged
from deltalog.backends.spark.relation import SparkRelation

BROADCAST_ROWS = 2_000_000
UNIT = "_unit"   # the hidden column of a plan with no columns (Spark joins and distincts need one)


@dataclass
class Context:
    """What execution needs: the session, the stored relations and where labelled row counts go."""

    spark: SparkSession
    relations: dict[str, SparkRelation]
    observations: list[tuple[str, Observation]] | None = None
    broadcast_rows: int = BROADCAST_ROWS
    backend: Any = None          # the SparkBackend (closure nodes run jobs and checkpoint: closure.py)
    _empty: dict = field(default_factory=dict)

    def observe(self, frame: DataFrame, label: str | None) -> DataFrame:
        if label is None or self.observations is None:
            return frame
        observation = Observation(f"rows{len(self.observations)}")
        self.observations.append((label, observation))
        return frame.observe(observation, F.count(F.lit(1)).alias("rows"))

    def empty(self, names: tuple[str, ...]) -> DataFrame:
        """An empty DataFrame with these columns."""
        names = names or (UNIT,)
        if names not in self._empty:
            schema = StructType([StructField(n, StringType()) for n in names])
            self._empty[names] = self.spark.createDataFrame([], schema)
        return self._empty[names]


def frame(node: ir.Node, ctx: Context) -> DataFrame:
    """The rows of a plan as a DataFrame with the node's columns (or the hidden unit column if none)."""
    return translate(node, ctx)


def names_of(node: ir.Node) -> list[str]:
    return list(node.columns) or [UNIT]


@singledispatch
def translate(node: ir.Node, ctx: Context) -> DataFrame:
    raise TypeError(f"the Spark backend cannot execute {type(node).__name__}")


# ---- leaves ---------------------------------------------------------------------------------------

@translate.register
def _scan(node: ir.Scan, ctx: Context) -> DataFrame:
    relation = ctx.relations[node.relation]
    rows = relation.frame(node.since, node.until, visible=node.visible, deleted=node.deleted)
    if rows is None:
        return ctx.empty(node.columns)
    named: dict[str, str] = {}
    for position, term in enumerate(node.terms):
        stored = F.col(f"c{position}")
        if isinstance(term, ir.Lit):
            rows = rows.where(stored == tag_constant(term.constant.kind, term.constant.value))
        elif term.name in named:
            rows = rows.where(stored == F.col(named[term.name]))
        else:
            named[term.name] = f"c{position}"
    out = [F.col(c).alias(n) for n, c in named.items()] or [F.lit("").alias(UNIT)]
    return ctx.observe(rows.select(*out), node.label)


@translate.register
def _values(node: ir.Values, ctx: Context) -> DataFrame:
    if not node.rows:
        return ctx.empty(node.columns)
    # from Arrow, Spark keeps small driver-side data in the plan (a LocalRelation): no job, no lineage
    return ctx.spark.createDataFrame(values_table(node, names_of(node)))


def values_table(node: ir.Values, names: list[str]) -> pa.Table:
    """The facts of a Values node as tagged text columns ``names`` (a nullary fact is one empty cell)."""
    rows = [tuple(tag_constant(c.kind, c.value) for c in row) or ("",) for row in node.rows]
    columns = list(zip(*rows)) if rows else [()] * len(names)
    return pa.table({n: pa.array(col, pa.string()) for n, col in zip(names, columns)})


# ---- joins ----------------------------------------------------------------------------------------

def estimate(node: ir.Node, ctx: Context) -> int | None:
    """An upper bound on a plan's rows from chunk counts, where one is known without a job."""
    if isinstance(node, ir.Scan):
        return ctx.relations[node.relation].count(node.since, node.until, node.visible, node.deleted)
    if isinstance(node, ir.Values):
        return len(node.rows)
    if isinstance(node, (ir.Filter, ir.Project, ir.Distinct, ir.Bind, ir.SemiJoin, ir.AntiJoin, ir.Aggregate)):
        return estimate(node.children()[0], ctx)
    return None


def input_size(node: ir.Node, ctx: Context) -> int | None:
    """The rows a plan reads (its leaves), a proxy for how big its work is (joins may produce more)."""
    if isinstance(node, (ir.Scan, ir.Values)):
        return estimate(node, ctx)
    if isinstance(node, (ir.TransitiveClosure, ir.ComponentPairs, ir.ClosureDifference, ir.ComponentDifference,
                         ir.Reaches)):
        return None                                  # the output may be quadratic in the input
    sizes = [input_size(child, ctx) for child in node.children()]
    known = [size for size in sizes if size is not None]
    return sum(known) if len(known) == len(sizes) else None


def unique_rows(node: ir.Node) -> bool:
    """Whether a plan's rows are distinct by construction (the insert then needs no ``distinct`` shuffle)."""
    if isinstance(node, (ir.TransitiveClosure, ir.ComponentPairs, ir.ClosureDifference, ir.ComponentDifference)):
        return True
    if isinstance(node, ir.Project):
        kept = [t.name for _, t in node.outputs if isinstance(t, ir.Col)]
        return len(kept) == len(node.outputs) and set(kept) == set(node.input.columns) and unique_rows(node.input)
    return False


def small(node: ir.Node, frame_: DataFrame, ctx: Context) -> DataFrame:
    """The frame with a broadcast hint when the node is known to be small."""
    rows = estimate(node, ctx)
    return F.broadcast(frame_) if rows is not None and rows <= ctx.broadcast_rows else frame_


def _join_how(left: DataFrame, right: DataFrame, on: tuple[str, ...], how: str) -> DataFrame:
    if on:
        return left.join(right, list(on), how)
    if how == "inner":   # a side without columns carries the unit column: keep at most one
        return left.crossJoin(right.drop(UNIT) if UNIT in left.columns else right)
    return left.join(right.select(F.lit(1).alias("_one")), F.lit(True), how)


@translate.register
def _join(node: ir.Join, ctx: Context) -> DataFrame:
    left = translate(node.left, ctx)
    right = small(node.right, translate(node.right, ctx), ctx)
    joined = _join_how(left, right, node.on, "inner")
    return ctx.observe(joined.select(*[column(n) for n in names_of(node)]), node.label)


def _exists(node, ctx: Context, how: str) -> DataFrame:
    left = translate(node.left, ctx)
    right = translate(node.right, ctx).select(*[column(c) for c in node.on] or [F.lit(1).alias("_one")])
    return _join_how(left, small(node.right, right.distinct(), ctx), node.on, how)


@translate.register
def _semijoin(node: ir.SemiJoin, ctx: Context) -> DataFrame:
    return _exists(node, ctx, "left_semi")


@translate.register
def _antijoin(node: ir.AntiJoin, ctx: Context) -> DataFrame:
    return _exists(node, ctx, "left_anti")


# ---- row-wise operators ---------------------------------------------------------------------------

@translate.register
def _filter(node: ir.Filter, ctx: Context) -> DataFrame:
    temps: list[str] = []
    rows, holds = staged(node.condition, translate(node.input, ctx), temps)
    rows = rows.where(holds)
    return rows.drop(*temps) if temps else rows


@translate.register
def _bind(node: ir.Bind, ctx: Context) -> DataFrame:
    rows, computed = staged(node.expr, translate(node.input, ctx), [])
    rows = rows.withColumn(node.column, computed)
    return rows.where(column(node.column).isNotNull()).select(*[column(n) for n in names_of(node)])


@translate.register
def _project(node: ir.Project, ctx: Context) -> DataFrame:
    outputs = [(column(t.name) if isinstance(t, ir.Col) else F.lit(tag_constant(t.constant.kind, t.constant.value)))
               .alias(name) for name, t in node.outputs] or [F.lit("").alias(UNIT)]
    return ctx.observe(translate(node.input, ctx).select(*outputs), node.label)


@translate.register
def _union(node: ir.Union_, ctx: Context) -> DataFrame:
    names = names_of(node)
    parts = [translate(child, ctx).select(*[column(n) for n in names]) for child in node.inputs]
    return reduce(DataFrame.unionAll, parts)


@translate.register
def _distinct(node: ir.Distinct, ctx: Context) -> DataFrame:
    return translate(node.input, ctx).distinct()


@translate.register
def _difference(node: ir.Difference, ctx: Context) -> DataFrame:
    right = small(node.right, translate(node.right, ctx).distinct(), ctx)
    return translate(node.left, ctx).join(right, names_of(node), "left_anti")


@translate.register
def _witnessed(node: ir.Witnessed, ctx: Context) -> DataFrame:
    return translate(node.input, ctx)   # every witness: a superset of what the node asks for


@translate.register
def _aggregate(node: ir.Aggregate, ctx: Context) -> DataFrame:
    return aggregate(translate(node.input, ctx), node.group_by, node.function, node.argument, node.output)


from deltalog.backends.spark import closure  # noqa: E402,F401  (registers TransitiveClosure, ComponentPairs)
