"""Moving values between Spark columns and tagged text on the executors (the Spark backend's physical form).

The tagged form itself (and its Polars conversions) lives in ``deltalog.backends.tagged``;
here are the Spark-side conversions: native Spark types and untyped text cells to tagged
text (typed by their form as docs/semantics.md says), and tagged text to output text.
"""

from __future__ import annotations

import re

from pyspark.sql import Column, DataFrame, functions as F
from pyspark.sql.types import StringType, BooleanType, DataType, DecimalType, FloatType, DoubleType, IntegralType

from deltalog.backends.tagged import (  # noqa: F401  (re-exported for the backend's modules)
    KIND_OF, PREFIX, decode_table, format_float, tag_constant, tag_table, typed_rows, untag,
)
from deltalog.backends.spark.expressions import body, column, kind, tag_double, tag_long
from deltalog.storage.values import (
    CANONICAL_FLOAT, CANONICAL_INT, IRI_CELL, LANG_STRING, LITERAL_CELL, QUOTED_CELL, XSD_DOUBLE, XSD_INTEGER,
    XSD_STRING, unescape,
)

_QUOTED_BODY = re.compile(QUOTED_CELL[2:-2])   # the inside of a quoted cell


def tag_cells(text: Column) -> Column:
    """Text cells typed by their canonical form, as ``deltalog.io.cells.classify`` types them: a
    canonical int (one beyond 64 bits fails the job), a canonical float, an ``<iri>``, a literal's
    canonical text, a quoted string (unquoted), else the string as written."""
    n = text.try_cast("long")
    is_int = text.rlike(CANONICAL_INT)
    as_float = tag_double(text.try_cast("double"))
    is_float = text.rlike(CANONICAL_FLOAT) & (text != "-0.0") & (as_float == F.concat(F.lit("f"), text))
    inner = F.substr(text, F.lit(2), F.length(text) - 2)
    return F.when(is_int & n.isNotNull(), tag_long(n)) \
        .when(is_int, F.raise_error(F.concat(F.lit("integer "), text,
                                             F.lit(" does not fit 64 bits (quote it to keep it as a string)")))) \
        .when(is_float, as_float) \
        .when(text.rlike(IRI_CELL), F.concat(F.lit("r"), inner)) \
        .when(is_literal(text), F.concat(F.lit("l"), text)) \
        .when(text.rlike(QUOTED_CELL), F.concat(F.lit("s"), F.when(inner.contains("\\"), _unescape(inner))
                                                 .otherwise(inner))) \
        .otherwise(F.concat(F.lit("s"), text))


def is_literal(text: Column) -> Column:
    """Whether a cell is a literal's canonical text, as ``deltalog.io.cells.literal_mask`` decides."""
    lexical, datatype = F.regexp_extract(text, LITERAL_CELL, 1), F.regexp_extract(text, LITERAL_CELL, 3)
    plain = datatype.isin(XSD_STRING, LANG_STRING) \
        | ((datatype == XSD_INTEGER) & lexical.rlike(CANONICAL_INT) & lexical.try_cast("long").isNotNull())
    double = (datatype == XSD_DOUBLE) & lexical.rlike(CANONICAL_FLOAT) & (lexical != "-0.0") \
        & (tag_double(lexical.try_cast("double")) == F.concat(F.lit("f"), lexical))
    return text.rlike(LITERAL_CELL) & ~plain & ~F.coalesce(double, F.lit(False))


def lexical_text(v: Column) -> Column:
    """The text str() and concat() take of a tagged value: its body, a literal's lexical form."""
    lexical = F.regexp_extract(body(v), LITERAL_CELL, 1)
    return F.when(kind(v) == "l", F.when(lexical.contains("\\"), _unescape(lexical)).otherwise(lexical)) \
        .otherwise(body(v))


@F.pandas_udf(StringType())  # type: ignore[call-overload, unused-ignore]  # PySpark stubs lack the type-hint-free form
def _unescape(cells):
    # Spark evaluates a UDF on every row of a CASE, not only where its branch is taken: cells that are
    # no quoted string body pass unchanged (their result is discarded)
    return cells.map(lambda c: unescape(c) if _QUOTED_BODY.fullmatch(c) else c, na_action="ignore").astype(object)


def tag_native(value: Column, dtype: DataType, cells: bool = False) -> Column:
    """A Spark column of any type as tagged text, its type respected as the local readers respect it:
    strings stay strings (``cells``: a ``*:cells`` column of text cells, typed by form)."""
    if isinstance(dtype, IntegralType):
        return tag_long(value.cast("long"))
    if isinstance(dtype, (FloatType, DoubleType)):
        return tag_double(value.cast("double"))
    if isinstance(dtype, DecimalType) and dtype.scale == 0:
        return tag_cells(value.cast("string"))
    if isinstance(dtype, BooleanType):
        return F.concat(F.lit("s"), F.when(value, "true").otherwise("false"))
    if isinstance(dtype, StringType) and not cells:
        return F.concat(F.lit("s"), value)
    return tag_cells(value.cast("string"))


def tag_frame(frame: DataFrame) -> DataFrame:
    """A Spark DataFrame of values (any column types) as tagged columns c0..ck."""
    return frame.select(*[tag_native(column(f.name), f.dataType, f.name.endswith(":cells")).alias(f"c{i}")
                          for i, f in enumerate(frame.schema.fields)])


def text_of(v: Column) -> Column:
    """The text cell of a tagged value: ints digits, floats repr, IRIs in brackets, strings raw unless
    they would read back as another value (``deltalog.io.cells.string_cells``), then quoted."""
    b = body(v)
    floaty = b.rlike(CANONICAL_FLOAT) & (b != "-0.0") & (tag_double(b.try_cast("double")) == F.concat(F.lit("f"), b))
    ambiguous = (b == "") | b.rlike(CANONICAL_INT) | floaty | b.rlike(IRI_CELL) | b.rlike(QUOTED_CELL) \
        | b.rlike("[\t\n\r]") | is_literal(b)
    string = F.when(F.coalesce(ambiguous, F.lit(False)), quoted(b)).otherwise(b)
    return F.when(kind(v) == "r", F.concat(F.lit("<"), b, F.lit(">"))).when(kind(v) == "s", string).otherwise(b)


def quoted(text: Column) -> Column:
    """Text as a quoted cell (``deltalog.io.cells.quoted_cells``): escapes ``\\ \" \t \n \r``."""
    escaped = text   # Java regex and replacement syntax: a backslash is written twice in both
    for pattern, replacement in ((r"\\", r"\\\\"), ('"', r'\\"'), ("\t", r"\\t"), ("\n", r"\\n"), ("\r", r"\\r")):
        escaped = F.regexp_replace(escaped, pattern, replacement)
    return F.concat(F.lit('"'), escaped, F.lit('"'))


def text_frame(tagged: DataFrame, names: list[str]) -> DataFrame:
    """Tagged columns as output text (what TSV and CSV files hold)."""
    return tagged.select(*[text_of(F.col(c)).alias(n) for c, n in zip(tagged.columns, names)])


def typed_frame(tagged: DataFrame, names: list[str]) -> DataFrame:
    """Tagged columns as values, like ``decode_table``: a column of only ints is a long column, of only
    floats a double column, else text forms (one small aggregate job decides, for all columns at once)."""
    if not names:
        return tagged
    checks = [F.bool_and(kind(F.col(c)) == k).alias(f"{c}_{k}") for c in tagged.columns for k in "ifs"]
    found = tagged.agg(*checks).first()
    assert found is not None   # a global aggregate has one row
    columns = []
    for c, n in zip(tagged.columns, names):
        if found[f"{c}_i"]:
            columns.append(body(F.col(c)).cast("long").alias(n))
        elif found[f"{c}_f"]:
            columns.append(body(F.col(c)).cast("double").alias(n))
        elif found[f"{c}_s"]:
            columns.append(body(F.col(c)).alias(n))
        else:   # IRIs or mixed kinds: text cells, in the tagged column form the readers know
            columns.append(text_of(F.col(c)).alias(f"{n}:cells"))
    return tagged.select(*columns)
