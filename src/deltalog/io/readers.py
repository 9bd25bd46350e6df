"""Reading fact files (TSV/.facts, CSV, Parquet, and directories of them) into decoded tables c0..ck."""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from deltalog.errors import InputError
from deltalog.io.writers import PREDICATE_RE, cell_strings
from deltalog.storage.values import FLOAT_PATTERN, INT_PATTERN
from deltalog.syntax.ast import NO_SPAN, Span

_INT_RE = re.compile(INT_PATTERN)
_FLOAT_RE = re.compile(FLOAT_PATTERN)
_INT_ANCHORED, _FLOAT_ANCHORED = f"^(?:{INT_PATTERN})$", f"^(?:{FLOAT_PATTERN})$"
TABLE_SUFFIXES = {".tsv": "tsv", ".facts": "tsv", ".csv": "csv", ".parquet": "parquet"}
RDF_SUFFIXES = (".nt", ".ttl")
SAMPLE_BYTES, SAMPLE_ROWS = 1 << 16, 1000


@dataclass(frozen=True)
class _Dialect:
    """How a text format splits rows into fields."""

    separator: str
    quote: str | None
    header: bool


DIALECTS = {
    "tsv": _Dialect("\t", None, False),
    "facts": _Dialect("\t", None, False),
    "csv": _Dialect(",", '"', False),
    "csv-header": _Dialect(",", '"', True),
}


def read_table(path: str | os.PathLike, *, format: str | None = None, arity: int | None = None) -> pl.DataFrame:
    """One fact file as a DataFrame with columns c0..ck (Int64, Float64 or String cells).

    ``format``: ``tsv``/``facts`` (tab-separated, no header, no quoting), ``csv`` (no header),
    ``csv-header``, ``parquet``; from the extension when None. Blank lines are skipped. A text
    column is Int64 when every cell reads as an int, Float64 when every cell reads as a float and
    none as an int, else String (the engine types each cell as docs/semantics.md says).
    """
    fmt = format or _format_of(path)
    if fmt == "parquet":
        return _read_parquet(path, arity)
    if fmt not in DIALECTS:
        raise InputError(f"unknown input format {fmt!r} for {path}")
    data = _read_bytes(path)
    return _read_text(data, str(path), DIALECTS[fmt], arity)


def _format_of(path: str | os.PathLike) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(f"cannot tell the format of {path} from its extension (use .tsv, .facts, .csv, .parquet)")
    return TABLE_SUFFIXES[suffix]


def _read_bytes(path: str | os.PathLike) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _empty(arity: int | None) -> pl.DataFrame:
    return pl.DataFrame(schema={f"c{i}": pl.String for i in range(arity or 0)})


def _ragged(file: str, line: int, fields: int, expected: int) -> InputError:
    return InputError(f"row has {fields} fields, expected {expected}", Span(file, line, 1))


def _rows(text: str, dialect: _Dialect, file: str):
    """(1-based line, fields) of every non-blank row of ``text``; a header row is included."""
    if dialect.quote is None:
        for number, line in enumerate(text.split("\n"), 1):
            line = line.removesuffix("\r")
            if line:
                yield number, line.split(dialect.separator)
        return
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=dialect.separator, quotechar=dialect.quote)
    start = 1
    try:
        for fields in reader:
            if fields:
                yield start, fields
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"malformed CSV row: {exc}", Span(file, start, 1)) from None


def _sample(data: bytes, dialect: _Dialect, file: str) -> tuple[list[tuple[int, list[str]]], int]:
    """The first rows of the file, parsed in Python (they fix the arity and hint at column types),
    and the number of bytes they were taken from."""
    end = len(data) if len(data) <= SAMPLE_BYTES else data.rfind(b"\n", 0, SAMPLE_BYTES) + 1
    if end <= 0:
        end = data.find(b"\n") + 1 or len(data)
    rows: list[tuple[int, list[str]]] = []
    try:
        for row in _rows(data[:end].decode("utf-8-sig", errors="replace"), dialect, file):
            rows.append(row)
            if len(rows) > SAMPLE_ROWS:
                break
    except InputError:
        pass  # a quoted field running past the sample: the full read decides
    return rows, end


def _read_text(data: bytes, file: str, dialect: _Dialect, arity: int | None) -> pl.DataFrame:
    sample, end = _sample(data, dialect, file)
    if dialect.header and sample:
        arity = arity if arity is not None else len(sample[0][1])
        if sample[0][0] != 1:
            return _type_columns(_read_python(data, file, dialect, arity))
        sample = sample[1:]
    if not sample:
        if data[end:].strip():
            return _type_columns(_read_python(data, file, dialect, arity))
        return _empty(arity)
    expected = arity if arity is not None else len(sample[0][1])
    if any(len(fields) != expected for _, fields in sample):
        return _type_columns(_read_python(data, file, dialect, expected))
    df = _read_polars(data, dialect, _schema_hint(data, dialect, sample, expected))
    if df is None or _has_nulls(df):
        df = _read_python(data, file, dialect, expected)
    return _type_columns(df)


def _has_nulls(df: pl.DataFrame) -> bool:
    return df.width > 0 and any(df.null_count().row(0))


def _schema_hint(data: bytes, dialect: _Dialect, sample, arity: int) -> dict[str, pl.DataType]:
    """Int64 for the columns whose sampled cells are all ints, String for the rest.

    Polars' integer parser also accepts ``+5`` and `` 5``, which are strings here: when the file
    holds a ``+`` or a space (or a tab in CSV) every column is read as text and typed afterwards.
    """
    ints = [all(_INT_RE.fullmatch(fields[j]) for _, fields in sample) for j in range(arity)]
    if any(ints) and (b"+" in data or b" " in data or (dialect.separator != "\t" and b"\t" in data)):
        ints = [False] * arity
    return {f"c{j}": pl.Int64 if is_int else pl.String for j, is_int in enumerate(ints)}


def _read_polars(data: bytes, dialect: _Dialect, schema: dict) -> pl.DataFrame | None:
    """Read with Polars under ``schema``, falling back to all-String; None when Polars cannot read it."""
    attempts = [schema]
    if any(dtype != pl.String for dtype in schema.values()):
        attempts.append({name: pl.String for name in schema})
    for attempt in attempts:
        try:
            return pl.read_csv(
                data, has_header=False, separator=dialect.separator, quote_char=dialect.quote,
                skip_rows=1 if dialect.header else 0, schema=attempt, truncate_ragged_lines=False,
                raise_if_empty=False,
            )
        except (pl.exceptions.PolarsError, UnicodeDecodeError):
            continue
    return None


def _read_python(data: bytes, file: str, dialect: _Dialect, arity: int | None) -> pl.DataFrame:
    """The slow, exact path (blank lines, empty cells, errors): parse every row in Python."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("file is not valid UTF-8", Span(file, line, 1)) from None
    rows = _rows(text, dialect, file)
    if dialect.header:
        next(rows, None)
    columns: list[list[str]] | None = None if arity is None else [[] for _ in range(arity)]
    for line, fields in rows:
        if columns is None:
            arity, columns = len(fields), [[] for _ in fields]
        if len(fields) != arity:
            raise _ragged(file, line, len(fields), arity)
        for column, cell in zip(columns, fields):
            column.append(cell)
    return pl.DataFrame({f"c{j}": pl.Series(col, dtype=pl.String) for j, col in enumerate(columns or [])})


def _type_columns(df: pl.DataFrame) -> pl.DataFrame:
    """Give each String column its number type when every cell has that kind (see read_table)."""
    return df.with_columns([_typed(df[name]) for name in df.columns if df[name].dtype == pl.String])


def _typed(column: pl.Series) -> pl.Series:
    head = column.head(SAMPLE_ROWS).to_list()
    if not head:
        return column
    if all(_INT_RE.fullmatch(cell) for cell in head):
        if column.str.contains(_INT_ANCHORED).all():
            ints = column.cast(pl.Int64, strict=False)
            return ints if ints.null_count() == 0 else column  # beyond 64 bits: left to the engine
        return column
    if all(_FLOAT_RE.fullmatch(cell) and not _INT_RE.fullmatch(cell) for cell in head):
        if column.str.contains(_FLOAT_ANCHORED).all() and not column.str.contains(_INT_ANCHORED).any():
            return column.cast(pl.Float64)
    return column


def _read_parquet(path: str | os.PathLike, arity: int | None) -> pl.DataFrame:
    """A Parquet file: integers as Int64, floats as Float64, every other type as text."""
    if not Path(path).is_file():
        raise InputError(f"no such file: {path}")
    try:
        df = pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError(f"cannot read Parquet file {path}: {exc}") from None
    if arity is not None and df.width != arity:
        raise InputError(f"table has {df.width} columns, expected {arity}", Span(str(path), 1, 1))
    df = df.rename({old: f"c{j}" for j, old in enumerate(df.columns)})
    if _has_nulls(df):
        raise InputError(f"Parquet file {path} holds null values, which are no constants")
    try:
        return df.with_columns([_parquet_column(df[name]) for name in df.columns])
    except pl.exceptions.PolarsError as exc:
        raise InputError(f"cannot read Parquet file {path}: {exc}") from None


def _parquet_column(column: pl.Series) -> pl.Series:
    if column.dtype.is_integer():
        wide = column.cast(pl.Int64, strict=False)
        return wide if wide.null_count() == 0 else column.cast(pl.String)
    if column.dtype.is_float():
        return column.cast(pl.Float64)
    if column.dtype == pl.Datetime:
        return column.dt.to_string("iso:strict")
    return cell_strings(column)


def read_facts_dir(directory: str | os.PathLike, *, rdf_predicates: bool = False) -> dict[str, pl.DataFrame]:
    """Every fact file of ``directory``: ``p.tsv``, ``p.facts``, ``p.csv``, ``p.parquet`` give predicate
    ``p`` (several files for one predicate are concatenated) and ``*.nt``/``*.ttl`` give ``triple``
    (or, with ``rdf_predicates``, one binary predicate per property). Hidden files and files with
    other extensions are ignored.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError(f"no such directory: {directory}")
    parts: dict[str, list[tuple[Path, pl.DataFrame]]] = {}
    for file in sorted(folder.iterdir()):
        suffix = file.suffix.lower()
        if file.name.startswith(".") or not file.is_file():
            continue
        if suffix in RDF_SUFFIXES:
            from deltalog.io.rdf import read_rdf

            for name, table in read_rdf(file, per_predicate=rdf_predicates).items():
                parts.setdefault(name, []).append((file, table))
        elif suffix in TABLE_SUFFIXES:
            if not PREDICATE_RE.fullmatch(file.stem):
                raise InputError(f"{file.stem!r} is not a valid predicate name", Span(str(file), 0, 0))
            parts.setdefault(file.stem, []).append((file, read_table(file)))
    return {name: _combine(name, tables) for name, tables in parts.items()}


def _combine(name: str, tables: list[tuple[Path, pl.DataFrame]]) -> pl.DataFrame:
    """Concatenate the files of one predicate; empty files of unknown arity are left out."""
    known = [(file, df) for file, df in tables if df.width or df.height]
    if not known:
        return tables[0][1]
    widths = {df.width for _, df in known}
    if len(widths) > 1:
        files = ", ".join(f"{file.name} ({df.width})" for file, df in known)
        raise InputError(f"files of predicate {name!r} have different arities: {files}", NO_SPAN)
    frames = [df for _, df in known]
    for column in frames[0].columns:
        if len({df[column].dtype for df in frames}) > 1:
            frames = [df.with_columns(cell_strings(df[column])) for df in frames]
    return pl.concat(frames, how="vertical")
