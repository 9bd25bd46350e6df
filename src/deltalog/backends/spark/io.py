"""Reading fact files with Spark on the executors (Parquet, CSV/TSV, N-Triples) and writing results atomically.

Cells are typed exactly as the embedded readers type them (docs/semantics.md), but by Spark
expressions, so no file passes through the driver. Paths may be anything Spark reads
(local, HDFS, S3...): directories are listed and renamed with Hadoop's FileSystem API.
"""

from __future__ import annotations

import secrets

from pyspark.sql import DataFrame, SparkSession, functions as F
from pyspark.sql.types import StringType

from deltalog.errors import InputError
from deltalog.io.rdf import unescape_text
from deltalog.io.rdf_names import predicate_names
from deltalog.io.writers import PREDICATE_RE
from deltalog.storage.values import CANONICAL_FLOAT, CANONICAL_INT, XSD_DOUBLE, XSD_INTEGER, XSD_STRING
from deltalog.backends.spark.codec import quoted, tag_cells, tag_frame
from deltalog.backends.spark.delimited import read_cells
from deltalog.io.formats import DIALECTS, Dialect
from deltalog.backends.spark.errors import translated
from deltalog.backends.spark.expressions import column, tag_double, tag_long

TABLE_FORMATS = {"tsv": "tsv", "facts": "tsv", "csv": "csv", "parquet": "parquet"}
RDF_FORMATS = ("nt",)
_IRI, _BNODE = r"<[^>]*>", r"_:\S+"
_LITERAL = r'"(?:[^"\\]|\\.)*"(?:@[A-Za-z0-9-]+|\^\^<[^>]*>)?'
TRIPLE = rf"^\s*({_IRI}|{_BNODE})\s+({_IRI})\s+({_IRI}|{_BNODE}|{_LITERAL})\s*\.\s*(?:#.*)?$"


class Files:
    """Hadoop FileSystem access through the session's JVM (works for file:, hdfs:, s3a: ...)."""

    def __init__(self, spark: SparkSession) -> None:
        assert spark._jvm is not None   # a live session has its JVM gateway
        self.jvm, self.conf = spark._jvm, spark._jsc.hadoopConfiguration()

    def path(self, text: str):
        return self.jvm.org.apache.hadoop.fs.Path(text)

    def fs(self, text: str):
        return self.path(text).getFileSystem(self.conf)

    def exists(self, text: str) -> bool:
        return bool(self.fs(text).exists(self.path(text)))

    def is_dir(self, text: str) -> bool:
        return self.exists(text) and bool(self.fs(text).getFileStatus(self.path(text)).isDirectory())

    def entries(self, text: str) -> list[tuple[str, bool]]:
        """(path, is a directory) of every entry directly in a directory, sorted by name."""
        found = [(s.getPath().toString(), bool(s.isDirectory())) for s in self.fs(text).listStatus(self.path(text))]
        return sorted(found, key=lambda entry: entry[0].rsplit("/", 1)[-1])

    def rename(self, source: str, target: str) -> bool:
        return bool(self.fs(source).rename(self.path(source), self.path(target)))

    def delete(self, text: str) -> None:
        self.fs(text).delete(self.path(text), True)


def _name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _suffix(path: str) -> str:
    name = _name(path)
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


# ---- reading ------------------------------------------------------------------------------------

def read_table(spark: SparkSession, path: str, *, format: str | None = None,
               arity: int | None = None) -> DataFrame | None:
    """One fact file as tagged columns c0..ck, typed on the executors (None: a blank text file of
    unknown arity, which gives no relation)."""
    fmt = format or TABLE_FORMATS.get(_suffix(path))
    if fmt not in ("tsv", "facts", "csv", "parquet"):
        raise InputError(f"cannot tell the format of {path} from its extension (use .tsv, .facts, .csv, .parquet)")
    if not Files(spark).exists(path):
        raise InputError(f"no such file: {path}")
    with translated():
        if fmt == "parquet":
            return _parquet(spark, path, arity)
        return _text(spark, path, DIALECTS[fmt], arity)


def _parquet(spark: SparkSession, path: str | list[str], arity: int | None) -> DataFrame:
    """Parquet file(s) (a list: the part files of one dataset) as tagged columns."""
    paths = [path] if isinstance(path, str) else path
    frame = spark.read.parquet(*paths)
    if arity is not None and len(frame.columns) != arity:
        raise InputError(f"table has {len(frame.columns)} columns, expected {arity}", _span(paths[0]))
    return tag_frame(frame)


def _span(path: str):
    from deltalog.syntax.ast import Span
    return Span(path, 1, 1)


def _text(spark: SparkSession, path: str | list[str], dialect: Dialect, arity: int | None) -> DataFrame | None:
    """Delimited text without a header: every cell a string (empty cells stay empty strings), ragged rows
    fail. None for blank input of unknown arity (zero facts, no relation: as the embedded reader)."""
    width = arity if arity is not None else _width(spark, path, dialect)
    if arity is None and width == 0:
        return None
    frame = read_cells(spark, path, width, dialect)
    # Spark reads an unquoted empty field as null; in a fact file it is the empty string
    return frame.select(*[tag_cells(F.coalesce(F.col(f"c{i}"), F.lit(""))).alias(f"c{i}") for i in range(width)])


def _width(spark: SparkSession, path: str | list[str], dialect: Dialect) -> int:
    """The number of fields of the first non-blank line (a small job reading one line)."""
    first = spark.read.text(path).where(F.length("value") > 0).first()
    if first is None:
        return 0
    line = first[0]
    if dialect.quote is None:
        return len(line.split(dialect.separator))
    import csv
    return len(next(csv.reader([line])))


def read_ntriples(spark: SparkSession, path: str) -> DataFrame:
    """An N-Triples file as ``triple`` rows (tagged c0 subject, c1 predicate, c2 object), parsed on the executors."""
    if not Files(spark).exists(path):
        raise InputError(f"no such file: {path}")
    lines = spark.read.text(path).select(F.col("value").alias("line"))
    content = lines.where(~F.col("line").rlike(r"^\s*(#.*)?$"))
    with translated():
        bad = content.where(~F.col("line").rlike(TRIPLE)).first()
    if bad is not None:
        raise InputError(f"invalid N-Triples line: {bad[0][:200]}", _span(path))
    parts = [F.regexp_extract("line", TRIPLE, i) for i in (1, 2, 3)]
    return content.select(tag_cells(parts[0]).alias("c0"), tag_cells(parts[1]).alias("c1"),
                          _object(parts[2]).alias("c2"))


@F.pandas_udf(StringType())  # type: ignore[call-overload, unused-ignore]  # PySpark stubs lack the type-hint-free form
def _unescape(cells):
    return cells.map(unescape_text, na_action="ignore").astype(object)


def _object(term):
    """An object term as read_rdf types it (``deltalog.storage.values.rdf_literal``): plain and xsd:string
    literals strings, canonical xsd:integer ints, xsd:double with a canonical float lexical form floats,
    other literals RDF literals by their canonical text; IRIs IRIs and blank nodes strings."""
    raw = F.regexp_extract(term, r'^"((?:[^"\\]|\\.)*)"', 1)
    lexical = F.when(raw.contains("\\"), _unescape(raw)).otherwise(raw)
    datatype = F.regexp_extract(term, r'\^\^<([^>]*)>$', 1)
    language = F.lower(F.regexp_extract(term, r'"@([A-Za-z0-9-]+)$', 1))
    as_float = tag_double(lexical.try_cast("double"))
    is_int = (datatype == XSD_INTEGER) & lexical.rlike(CANONICAL_INT) & lexical.try_cast("long").isNotNull()
    is_float = (datatype == XSD_DOUBLE) & lexical.rlike(CANONICAL_FLOAT) & (lexical != "-0.0") \
        & F.coalesce(as_float == F.concat(F.lit("f"), lexical), F.lit(False))
    return F.when(~term.startswith('"'), tag_cells(term)) \
        .when(is_int, tag_long(lexical.try_cast("long"))) \
        .when(is_float, as_float) \
        .when((language == "") & datatype.isin("", XSD_STRING), F.concat(F.lit("s"), lexical)) \
        .when(language != "", F.concat(F.lit("l"), quoted(lexical), F.lit("@"), language)) \
        .otherwise(F.concat(F.lit("l"), quoted(lexical), F.lit("^^<"), datatype, F.lit(">")))


def read_facts_dir(spark: SparkSession, directory: str, *, arities: dict[str, int],
                   rdf_predicates: bool = False, rdf_map=None, declarations=None) -> dict[str, DataFrame]:
    """Every fact file and dataset of a directory (see ``deltalog.backends.spark.datasets``;
    ``declarations``: ``@decl`` by predicate, which type their files: ``spark/declared.py``)."""
    from deltalog.backends.spark.datasets import read_facts_dir as read_dir
    return read_dir(spark, directory, arities=arities, rdf_predicates=rdf_predicates, rdf_map=rdf_map,
                    declarations=declarations)


def rdf_tables(spark: SparkSession, paths: list[str], per_predicate: bool,
               rdf_map: dict[str, str] | None) -> dict[str, DataFrame]:
    """N-Triples files together: ``triple``, or one binary table per property named as the embedded
    reader names them (``deltalog.io.rdf_names``; one small job lists the distinct properties)."""
    triples = read_ntriples(spark, paths[0])
    for path in paths[1:]:
        triples = triples.unionAll(read_ntriples(spark, path))
    if not per_predicate and rdf_map is None:
        return {"triple": triples}
    with translated():
        properties = [r[0][1:] for r in triples.select("c1").distinct().collect()]
    names = predicate_names(properties, rdf_map)
    tables: dict[str, DataFrame] = {}
    for name in sorted(set(names.values())):
        tagged = ["r" + iri for iri, given in names.items() if given == name and iri in properties]
        if tagged:
            tables[name] = triples.where(F.col("c1").isin(tagged)).select("c0", F.col("c2").alias("c1"))
    return tables


# ---- writing ------------------------------------------------------------------------------------

def write_datasets(spark: SparkSession, frames: dict[str, DataFrame], out: str, *, format: str) -> None:
    """Write each predicate's rows with Spark, all or nothing: Parquet as one dataset partitioned by
    predicate (OUT/predicate=<p>/part-*.parquet), CSV as OUT/<p>/part-*.csv, TSV as OUT/<p>/part-*.txt
    (Spark's text writer: tab-joined cells, no CSV quoting, so both readers read them as TSV). Everything is written
    into a temporary sibling directory first and renamed into place only when every write succeeded."""
    for name in frames:
        if not PREDICATE_RE.fullmatch(name):
            raise InputError(f"{name!r} is not a valid predicate name")
    files = Files(spark)
    staging = f"{out.rstrip('/')}.tmp-{secrets.token_hex(6)}"
    try:
        with translated():
            for name, frame in frames.items():
                _write(frame, f"{staging}/{_child(name, format)}", format)
        _publish(files, staging, out, [_child(name, format) for name in frames])
    finally:
        if files.exists(staging):
            files.delete(staging)


def _child(predicate: str, format: str) -> str:
    return f"predicate={predicate}" if format == "parquet" else predicate


def _write(frame: DataFrame, path: str, format: str) -> None:
    if format == "parquet":
        frame.write.mode("error").parquet(path)
    elif format == "csv":
        frame.write.mode("error").csv(path, sep=",", header=False, quote='"', escape='"', quoteAll=False,
                                      emptyValue='""')
    elif format == "tsv":   # cells never hold a tab or line break: text_of quotes and escapes them
        frame.select(F.concat_ws("\t", *[column(c) for c in frame.columns]).alias("value")) \
            .write.mode("error").text(path)
    else:
        raise InputError(f"unknown output format {format!r} (expected parquet, csv or tsv)")


def _publish(files: Files, staging: str, out: str, children: list[str]) -> None:
    """Move the written children into ``out`` (created if missing), replacing older ones of the same name."""
    if not files.exists(out):
        files.fs(out).mkdirs(files.path(out))
    for child in children:
        target = f"{out.rstrip('/')}/{child}"
        if files.exists(target):
            files.delete(target)
        if not files.rename(f"{staging}/{child}", target):
            raise InputError(f"cannot move the output into {target}")

