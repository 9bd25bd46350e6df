"""Reading declared predicates (``@decl``) with Spark on the executors, typed as ``deltalog.io.declared`` types them.

Each column becomes tagged text by its declared type instead of by its form. Bad values are found
by one small job per file (``where(bad).first()``, only for columns that can hold one); the error
then names the file, the column and the value, and for a file the driver can open it is the
embedded reader's own error, with line and column, so both backends report the same thing.
"""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession, functions as F
from pyspark.sql.types import DoubleType, FloatType, IntegralType, StringType

from deltalog.backends.spark.codec import tag_cells, tag_native
from deltalog.backends.spark.delimited import read_cells
from deltalog.io.formats import DIALECTS, Dialect
from deltalog.backends.spark.errors import translated
from deltalog.backends.spark.expressions import column as col, tag_double, tag_long
from deltalog.errors import InputError
from deltalog.io.declared import BARE_IRI, CELLS_SUFFIX, FLOAT_TEXT, INT_TEXT, match_columns
from deltalog.storage.values import IRI_CELL

PREFIXES = {"int": "i", "float": "f", "number": "if", "string": "s", "iri": "r"}


def read_declared(spark: SparkSession, path: str, *, arity: int | None = None, decl=None) -> DataFrame | None:
    """One fact file (or directory of parts) as tagged columns c0..ck, typed by ``decl`` when given
    (None: an undeclared blank text file of unknown arity, see ``read_table``)."""
    from deltalog.backends.spark.io import TABLE_FORMATS, _suffix, read_table
    fmt = TABLE_FORMATS.get(_suffix(path))
    if decl is None or fmt is None or all(t == "any" for t in decl.types):
        return read_table(spark, path, arity=arity if decl is None else decl.arity)
    with translated():
        if fmt == "parquet":
            raw, tagged = _parquet(spark, path, decl)
        else:
            raw, tagged = _text(spark, path, DIALECTS[fmt], decl)
        frame = raw.select(*[t.alias(f"c{i}") for i, t in enumerate(tagged)], *[F.col(f"_r{i}") for i in
                                                                              range(decl.arity)])
        _validate(frame, path, decl)
    return frame.select(*[f"c{i}" for i in range(decl.arity)])


def tag_declared(data: DataFrame, decl, source: str = "the DataFrame") -> DataFrame:
    """A Spark DataFrame of values for a declared predicate as tagged columns c0..ck: columns matched by
    name (else by position), each checked against its declared type as Parquet columns are."""
    if len(data.columns) != decl.arity:
        raise InputError(f"{decl.predicate} is declared with {decl.arity} attributes, but {source} has "
                         f"{len(data.columns)} columns")
    fields = {f.name: f for f in data.schema.fields}
    chosen = [fields[n] for n in match_columns(data.columns, decl.names)]
    with translated():
        raw = data.select(*[col(f.name).alias(f"_v{i}") for i, f in enumerate(chosen)],
                          *[col(f.name).cast("string").alias(f"_r{i}") for i, f in enumerate(chosen)])
        tagged = [_native(F.col(f"_v{i}"), f, a, source, decl) for i, (f, a) in enumerate(zip(chosen, decl.attributes))]
        frame = raw.select(*[t.alias(f"c{i}") for i, t in enumerate(tagged)], *[F.col(f"_r{i}") for i in
                                                                              range(decl.arity)])
        _validate(frame, source, decl)
    return frame.select(*[f"c{i}" for i in range(decl.arity)])


def _text(spark: SparkSession, path: str, dialect: Dialect, decl) -> tuple[DataFrame, list[Column]]:
    """Delimited text read as strings with the options of ``io._text``, then typed by the declaration."""
    raw = read_cells(spark, path, decl.arity, dialect)
    raw = raw.select(*[F.coalesce(F.col(f"c{i}"), F.lit("")).alias(f"_r{i}") for i in range(decl.arity)])
    return raw, [_tag(F.col(f"_r{i}"), t) for i, t in enumerate(decl.types)]


def _parquet(spark: SparkSession, path: str, decl) -> tuple[DataFrame, list[Column]]:
    """Parquet columns (matched by name when they carry the declared names) checked by type, then tagged."""
    frame = spark.read.parquet(path)
    if len(frame.columns) != decl.arity:
        raise InputError(f"table has {len(frame.columns)} columns, expected {decl.arity}", _span(path))
    fields = {f.name: f for f in frame.schema.fields}
    chosen = [fields[n] for n in match_columns(frame.columns, decl.names)]
    raw = frame.select(*[col(f.name).alias(f"_v{i}") for i, f in enumerate(chosen)],
                       *[col(f.name).cast("string").alias(f"_r{i}") for i, f in enumerate(chosen)])
    return raw, [_native(F.col(f"_v{i}"), f, attribute, path, decl)
                 for i, (f, attribute) in enumerate(zip(chosen, decl.attributes))]


def _native(value: Column, field, attribute, path: str, decl) -> Column:
    """Tagged text of a typed column for an attribute; a dtype that is not the type's is refused."""
    dtype, type_name = field.dataType, attribute.type
    if type_name == "any":
        return tag_native(value, dtype, field.name.endswith(CELLS_SUFFIX))
    if isinstance(dtype, StringType) and field.name.endswith(CELLS_SUFFIX):
        tagged = tag_cells(value)
        return F.when(F.substring(tagged, 1, 1).isin(*PREFIXES[type_name]), tagged)
    fits = {"int": isinstance(dtype, IntegralType), "float": isinstance(dtype, (FloatType, DoubleType)),
            "number": isinstance(dtype, (IntegralType, FloatType, DoubleType)),
            "string": isinstance(dtype, StringType), "iri": isinstance(dtype, StringType)}[type_name]
    if not fits:
        raise InputError(f"{path}: column {field.name!r} has type {dtype.simpleString()}, but {decl.predicate}."
                         f"{attribute.name} is declared {type_name} (values are not converted between kinds)")
    if isinstance(dtype, IntegralType):
        return tag_long(value.cast("long"))
    if isinstance(dtype, (FloatType, DoubleType)):
        return tag_double(value.cast("double"))
    return _tag(value, type_name)


def _validate(frame: DataFrame, path: str, decl) -> None:
    """Refuse the first value that fits no declared column (its tagged form is null): one small job."""
    checked = [i for i, t in enumerate(decl.types) if t != "any"]
    if not checked:
        return
    bad_row = frame.where(F.greatest(*[F.col(f"c{i}").isNull() for i in checked] + [F.lit(False)])).first()
    if bad_row is None:
        return
    local = path.removeprefix("file:")
    if "://" not in local and Path(local).exists():   # the embedded reader names line and column
        from deltalog.io.readers import read_table as read_locally
        read_locally(local, decl=decl)
    i = next(i for i in checked if bad_row[f"c{i}"] is None)
    attribute = decl.attributes[i]
    raise InputError(f"{path}: {bad_row[f'_r{i}']!r} in column {i + 1} does not fit {decl.predicate}."
                     f"{attribute.name}, declared {attribute.type}", _span(path))


def _span(path: str):
    from deltalog.syntax.ast import Span
    return Span(path, 1, 1)


def _tag(text: Column, type_name: str) -> Column:
    """Tagged text of a text cell read as ``type_name``; null where the cell does not fit the type."""
    if type_name == "any":
        return tag_cells(text)
    if type_name == "string":
        return F.concat(F.lit("s"), text)
    if type_name == "iri":
        return F.when(text.rlike(IRI_CELL), F.concat(F.lit("r"), F.substr(text, F.lit(2), F.length(text) - 2))) \
            .when(text.rlike(BARE_IRI), F.concat(F.lit("r"), text))
    as_long, as_double = text.try_cast("long"), tag_double(text.try_cast("double"))
    as_int = F.when(text.rlike(INT_TEXT) & as_long.isNotNull(), tag_long(as_long))
    as_float = F.when(text.rlike(FLOAT_TEXT), as_double)
    return {"int": as_int, "float": as_float, "number": F.coalesce(as_int, as_float)}[type_name]
