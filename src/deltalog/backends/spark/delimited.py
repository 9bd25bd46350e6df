"""Delimited text (CSV/TSV) read by Spark's CSV reader exactly as the embedded reader reads it, or refused.

Spark parses text with univocity, which departs from the embedded reader (``io/delimited.py``,
RFC 4180 for CSV, docs/semantics.md) in ways no option turns off, some of them silently:

- a line of blanks alone (``<TAB>``: two empty cells) is skipped as if it were empty, and a file
  that is one carriage return alone is refused (so a CRLF file with a blank line is parsed on the
  driver too: its ``<CR>`` alone cannot be told from that one);
- a carriage return inside a line ends a row (the embedded reader keeps it in the cell);
- the line end is guessed from the file's first one, so in a file whose lines end both ways the
  others keep a ``\\r`` in their last cell: Python's csv writer makes such files (CRLF line ends and
  a line break inside a quoted cell, ``a,"x<LF>y"<CR><LF>c,d<CR><LF>`` read ``d\\r``);
- a row of another width than the predicate's fails the job, and Spark's error names no line (the
  embedded reader names it);
- characters up to the space after a closing quote are skipped (``"a" ,x`` reads as ``a``, ``x``),
  where the embedded reader refuses the file; quotes inside unquoted cells and quoted cells that run
  to the end of the file are read some lenient way (``unescapedQuoteHandling=RAISE_ERROR`` refuses
  most other malformed quotes).

So one Spark job over the files' lines (split at ``\\n`` only) first finds the files where any of
this could happen, and only those are read whole on the driver and parsed by the embedded reader's
own parser, which reads them exactly or refuses them naming the line. Data written with one kind of
line end and no line break inside a cell (or LF line ends throughout) goes to Spark's reader alone.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession, functions as F

from deltalog.io.formats import Dialect

# a quote, then what univocity skips after a closing one (chars up to the space), then a cell's end;
# or a quote between two ordinary characters (a quote in an unquoted cell, or a stray one)
_SUSPECT_QUOTE = r'"[\x00-\x20]+(?:,|$)|[^,"]"[^,"]'


def csv_options(dialect: Dialect) -> dict[str, Any]:
    """Spark CSV reader options that read cells as the embedded reader does: no header, every cell a
    string exactly as written (empty cells empty strings, blanks kept), ragged rows and malformed
    quotes refused."""
    quote = dialect.quote or "\u0000"
    return dict(sep=dialect.separator, header=False, mode="FAILFAST", quote=quote, escape=quote,
                nullValue="\u0000\u0001", emptyValue="", ignoreLeadingWhiteSpace=False,
                ignoreTrailingWhiteSpace=False, enforceSchema=True, multiLine=dialect.quote is not None,
                unescapedQuoteHandling="RAISE_ERROR")


def read_cells(spark: SparkSession, paths: str | list[str], width: int, dialect: Dialect) -> DataFrame:
    """The cells of delimited text files as string columns c0..c{width-1} (an unquoted empty cell may
    be null): read by Spark's CSV reader, except the files it could read otherwise than the embedded
    reader (module docstring), which are parsed on the driver by that reader's parser, or refused
    with its error."""
    schema = ", ".join(f"c{i} string" for i in range(width)) or "c0 string"
    plain, suspects = _split_suspects(spark, paths, dialect, width)
    frames = [spark.read.csv(plain, schema=schema, **csv_options(dialect))] if plain else []
    frames += [spark.createDataFrame(list(zip(*_parse_on_driver(spark, s, width, dialect))), schema)
               for s in suspects]
    if not frames:
        return spark.createDataFrame([], schema)
    return reduce(DataFrame.unionAll, frames)


def _split_suspects(spark: SparkSession, paths: str | list[str], dialect: Dialect,
                    width: int) -> tuple[list[str], list[str]]:
    """The files (as Spark names them) univocity reads as the embedded reader does, and the suspect
    ones, by one job over their lines (a file without lines has no cells and is in neither)."""
    lines = spark.read.text(paths, lineSep="\n")
    found = _suspicions(F.col("value"), dialect) + [_ragged(F.col("value"), dialect, width)]
    per_file = lines.groupBy(F.input_file_name().alias("file")).agg(*found)
    flags = [c for c in per_file.columns if c != "file"]
    files = sorted((row["file"], any(row[f] for f in flags)) for row in per_file.collect())
    return [f for f, suspect in files if not suspect], [f for f, suspect in files if suspect]


def _suspicions(line: Column, dialect: Dialect) -> list[Column]:
    """Per-file aggregates, each true when the file has lines univocity may read otherwise."""
    ends_cr = line.endswith("\r")
    body = F.regexp_replace(line, "\r$", "")   # the line without its CRLF's carriage return
    found = [F.max(line.rlike(r"\r[\s\S]")).alias("inner_cr"),
             F.max(line.rlike(r"^[\x00-\x20]+$")).alias("blank_cells"),
             (F.max(ends_cr) != F.min(ends_cr)).alias("mixed_ends")]
    if dialect.quote is not None:
        quotes = F.length(line) - F.length(F.regexp_replace(line, '"', ""))
        # an odd number of quotes: a quoted cell runs to the end of the file
        found += [(F.sum(quotes) % 2 == 1).alias("open_quote"), F.max(body.rlike(_SUSPECT_QUOTE)).alias("quote")]
    return found


def _ragged(line: Column, dialect: Dialect, width: int) -> Column:
    """True for a file with a non-empty line of more or fewer separators than ``width`` cells have, so
    that the embedded parser refuses it naming the line. Lines with a quote are left to Spark's
    FAILFAST (their separators may be quoted); a line inside a quoted cell may be flagged, which only
    sends a well-formed file to the driver."""
    body = F.regexp_replace(line, "\r$", "")
    separators = F.length(body) - F.length(F.translate(body, dialect.separator, ""))
    wrong = (F.length(body) > 0) & (separators != width - 1)
    if dialect.quote is not None:
        wrong = wrong & ~body.contains(dialect.quote)
    return F.max(wrong).alias("ragged")


def _parse_on_driver(spark: SparkSession, file: str, width: int, dialect: Dialect) -> list[list[str]]:
    """A whole file's cells by column, parsed as the embedded reader parses it (or its error)."""
    from deltalog.io.text_rows import text_columns
    whole = spark.read.text(file, wholetext=True).first()
    data = ("" if whole is None else whole[0]).encode("utf-8")
    return text_columns(data, _shown(file), dialect, width) or [[] for _ in range(width)]


def _shown(file: str) -> str:
    """A file as errors name it: a local path for Spark's ``file:`` URIs, which users did not write."""
    from urllib.parse import unquote, urlparse
    parts = urlparse(file)
    return unquote(parts.path) if parts.scheme == "file" else file
