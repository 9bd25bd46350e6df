"""Moving values between Spark columns and tagged text on the executors (the Spark backend's physical form).

The tagged form itself (and its Polars conversions) lives in ``deltalog.backends.tagged``;
here are the Spark-side conversions: native Spark types and untyped text cells to tagged
text (typed by their form as docs/semantics.md says), and tagged text to output text.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, functions as F
from pyspark.sql.types import BooleanType, DataType, DecimalType, FloatType, DoubleType, IntegralType

from deltalog.backends.tagged import (  # noqa: F401  (re-exported for the backend's modules)
    KIND_OF, PREFIX, decode_table, format_float, tag_constant, tag_table, typed_rows, untag,
)
from deltalog.backends.spark.expressions import FLOAT_RE, INT_RE, body, column, kind, tag_double, tag_long


def tag_cells(text: Column) -> Column:
    """Text cells typed by their form: an int (beyond 64 bits: a float), a float, an IRI ``<...>``, else a string."""
    n = F.when(text.rlike(INT_RE), text.try_cast("long"))
    return F.when(n.isNotNull(), tag_long(n)) \
        .when(text.rlike(FLOAT_RE), _read_double(text.try_cast("double"))) \
        .when(text.startswith("<") & text.endswith(">") & (F.length(text) >= 2),
              F.concat(F.lit("r"), F.substr(text, F.lit(2), F.length(text) - 2))) \
        .otherwise(F.concat(F.lit("s"), text))


def _read_double(d: Column) -> Column:
    """A float read from text: like parse_cell, a literal too large for a double reads as an infinity."""
    return F.when(d == float("inf"), F.lit("finf")).when(d == float("-inf"), F.lit("f-inf")).otherwise(tag_double(d))


def tag_native(value: Column, dtype: DataType) -> Column:
    """A Spark column of any type as tagged text: integers, floats and text as the local readers type them."""
    if isinstance(dtype, IntegralType):
        return tag_long(value.cast("long"))
    if isinstance(dtype, (FloatType, DoubleType)):
        return tag_double(value.cast("double"))
    if isinstance(dtype, DecimalType) and dtype.scale == 0:
        return tag_cells(value.cast("string"))
    if isinstance(dtype, BooleanType):
        return F.concat(F.lit("s"), F.when(value, "true").otherwise("false"))
    return tag_cells(value.cast("string"))


def tag_frame(frame: DataFrame) -> DataFrame:
    """A Spark DataFrame of values (any column types) as tagged columns c0..ck."""
    return frame.select(*[tag_native(column(f.name), f.dataType).alias(f"c{i}")
                          for i, f in enumerate(frame.schema.fields)])


def text_of(v: Column) -> Column:
    """The output text of a tagged value: ints digits, floats repr, strings raw, IRIs in brackets."""
    return F.when(kind(v) == "r", F.concat(F.lit("<"), body(v), F.lit(">"))).otherwise(body(v))


def text_frame(tagged: DataFrame, names: list[str]) -> DataFrame:
    """Tagged columns as output text (what TSV and CSV files hold)."""
    return tagged.select(*[text_of(F.col(c)).alias(n) for c, n in zip(tagged.columns, names)])


def typed_frame(tagged: DataFrame, names: list[str]) -> DataFrame:
    """Tagged columns as values, like ``decode_table``: a column of only ints is a long column, of only
    floats a double column, else text forms (one small aggregate job decides, for all columns at once)."""
    if not names:
        return tagged
    checks = [F.bool_and(kind(F.col(c)) == k).alias(f"{c}_{k}") for c in tagged.columns for k in "if"]
    found = tagged.agg(*checks).first()
    columns = []
    for c, n in zip(tagged.columns, names):
        if found[f"{c}_i"]:
            columns.append(body(F.col(c)).cast("long").alias(n))
        elif found[f"{c}_f"]:
            columns.append(body(F.col(c)).cast("double").alias(n))
        else:
            columns.append(text_of(F.col(c)).alias(n))
    return tagged.select(*columns)
