"""The closure nodes' inputs as Spark frames, shared by the three paths of closure.py (driver, executors, joins):
distinct edges as columns s, d, a restriction as one column v, and the backend the node runs for.

None of the closure path modules imports execute.py at its top: execute.py imports closure.py (to register
the nodes), which imports them, so a path module imported first (a Python worker unpickling a task, a test)
would otherwise meet closure.py half-initialised."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import DataFrame, functions as F

from deltalog.plan import ir

if TYPE_CHECKING:
    from deltalog.backends.spark.execute import Context


def edge_frame(node: ir.Node, ctx: Context) -> DataFrame:
    """The distinct edges as columns s, d."""
    from deltalog.backends.spark.execute import translate
    a, b = node.columns
    return translate(node, ctx).select(F.col(f"`{a}`").alias("s"), F.col(f"`{b}`").alias("d")).distinct()


def one_column(node: ir.Node, ctx: Context) -> DataFrame:
    """The distinct values of a one-column node as column v."""
    from deltalog.backends.spark.execute import translate
    (name,) = node.columns
    return translate(node, ctx).select(F.col(f"`{name}`").alias("v")).distinct()


def spark_backend(ctx: Context):
    if ctx.backend is None:
        raise TypeError("closure nodes need a SparkBackend in the execution context")
    return ctx.backend


def named(pairs: DataFrame, columns: tuple[str, ...]) -> DataFrame:
    """Pairs s, d under the node's column names."""
    return pairs.select(F.col("s").alias(columns[0]), F.col("d").alias(columns[1]))
