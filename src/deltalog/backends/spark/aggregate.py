"""Group-by aggregation on Spark: count, min and max natively; sum, avg and median through the local
backend's own kernels per group, so float sums add up in exactly the same order (byte-identical outputs).

min and max order values by the total order of docs/semantics.md with a struct key
(rank, number, kind, int, text); float sums depend on the order of additions, which the
semantics leave open, so instead of re-deriving numpy's summation the groups are handed
(Arrow, pandas) to the local aggregate functions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame, functions as F
from pyspark.sql.types import StringType, StructField, StructType

from deltalog.backends.local import aggregate as local
from deltalog.backends.local.decoded import Vals
from deltalog.storage.values import FLOAT, INT, IRI, KIND_NAMES, LITERAL, STRING
from deltalog.backends.spark.codec import PREFIX, format_float
from deltalog.backends.spark.expressions import as_double, as_long, body, column, kind_code, rank, residual

KIND_CODES = {"i": INT, "f": FLOAT, "s": STRING, "r": IRI, "l": LITERAL}


def aggregate(rows: DataFrame, group_by: tuple[str, ...], function: str, argument: str | None,
              output: str) -> DataFrame:
    """One row per group of the distinct input rows: the group columns and the aggregate's tagged value."""
    rows = rows.distinct()
    if function == "count":
        counted = rows.groupBy(*[column(g) for g in group_by]).agg(F.count(F.lit(1)).alias("_n"))
        return counted.where(F.col("_n") > 0).select(*[column(g) for g in group_by],
                                                      F.concat(F.lit("i"), F.col("_n").cast("string")).alias(output))
    assert argument is not None, function   # only count takes no argument
    if function in ("min", "max"):
        return _extreme(rows, group_by, function, argument, output)
    return _by_local_kernel(rows, group_by, function, argument, output)


def order_key(v) -> "F.Column":
    """A struct sorting values by the total order, an int before an equal float."""
    number = F.coalesce(as_double(v), F.lit(0.0))
    integer = F.coalesce(as_long(v), F.lit(0))
    text = F.when(rank(v) > 0, body(v)).otherwise(F.lit(""))
    return F.struct(rank(v).alias("r"), number.alias("d"), residual(v).alias("e"), kind_code(v).alias("k"),
                    integer.alias("n"), text.alias("t"), v.alias("v"))


def _extreme(rows: DataFrame, group_by, function: str, argument: str, output: str) -> DataFrame:
    pick = F.min if function == "min" else F.max
    grouped = rows.groupBy(*[column(g) for g in group_by]).agg(pick(order_key(column(argument))).alias("_m"),
                                                               F.count(F.lit(1)).alias("_n"))
    return grouped.where(F.col("_n") > 0).select(*[column(g) for g in group_by], F.col("_m.v").alias(output))


def _by_local_kernel(rows: DataFrame, group_by, function: str, argument: str, output: str) -> DataFrame:
    names = list(group_by)
    schema = StructType([StructField(n, StringType()) for n in names + [output]])
    kernel = local.AGGREGATES[function]

    def per_group(frame: pd.DataFrame) -> pd.DataFrame:
        values = _vals(frame[argument].tolist())
        order = np.lexsort(local.total_order_keys(values))
        values = Vals(*(a[order] for a in (values.kind, values.i, values.f, values.text, values.valid)))
        result = kernel(values, np.array([0]), np.array([len(frame)]))
        text = _tagged(result)
        out = {n: pd.Series([frame[n].iloc[0]], dtype=object) for n in names}
        return pd.DataFrame({**out, output: pd.Series([text], dtype=object)}).dropna()

    picked = rows.select(*[column(n) for n in dict.fromkeys(names + [argument])])
    grouped = picked.groupBy(*[column(g) for g in names]) if names else picked.groupBy()
    return grouped.applyInPandas(per_group, schema)


def _vals(tagged: list[str]) -> Vals:
    """The local kernels' decoded form of tagged values."""
    kinds = np.array([KIND_CODES[t[0]] for t in tagged], np.uint8)
    ints = np.array([int(t[1:]) if t[0] == "i" else 0 for t in tagged], np.int64)
    floats = np.array([float(t[1:]) if t[0] in "if" else np.nan for t in tagged], np.float64)
    texts = np.array([t[1:] if t[0] in "srl" else None for t in tagged] + [None], object)[:-1]
    return Vals(kinds, ints, floats, texts, np.ones(len(tagged), bool))


def _tagged(result: Vals) -> str | None:
    if not result.valid[0]:
        return None
    k = int(result.kind[0])
    if k == INT:
        return "i" + str(int(result.i[0]))
    if k == FLOAT:
        return format_float(float(result.f[0]))
    return PREFIX[KIND_NAMES[k]] + result.text[0]
