"""Reading fact files (TSV/.facts, CSV, Parquet, and directories of them) into decoded tables c0..ck."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import polars as pl

from deltalog.errors import InputError
from deltalog.io.writers import cell_strings
from deltalog.io.cells import classify, string_cells
from deltalog.storage.values import FLOAT, INT, UnrepresentableValue
from deltalog.io.declared import BadCell, match_columns, text_column, value_column
from deltalog.syntax.ast import Declaration, Span

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


def read_table(path: str | os.PathLike, *, format: str | None = None, arity: int | None = None,
               decl: Declaration | None = None) -> pl.DataFrame:
    """One fact file as a DataFrame with columns c0..ck (Int64, Float64 or String cells).

    ``format``: ``tsv``/``facts`` (tab-separated, no header, no quoting), ``csv`` (no header),
    ``csv-header``, ``parquet``; from the extension when None. Blank lines are skipped. A text
    column is Int64 when every cell reads as an int, Float64 when every cell reads as a float and
    none as an int, else String (the engine types each cell as docs/semantics.md says).
    A directory (a Spark-style dataset of part files) or a glob pattern reads every file it
    names (``deltalog.io.datasets``); an empty file is zero rows (``arity`` columns if given).
    ``decl``: the predicate's ``@decl``, whose types type its columns (``deltalog.io.declared``).
    """
    if Path(path).is_dir() or (not Path(path).exists() and any(c in str(path) for c in "*?[")):
        from deltalog.io.datasets import read_dataset
        return read_dataset(path, format=format, arity=arity, decl=decl)
    fmt = format or _format_of(path)
    arity = decl.arity if decl is not None else arity
    if fmt == "parquet":
        return _read_parquet(path, arity, decl)
    if fmt not in DIALECTS:
        raise InputError(f"unknown input format {fmt!r} for {path}")
    data = _read_bytes(path)
    typing = None if decl is None else partial(_type_declared, decl=decl, data=data, dialect=DIALECTS[fmt])
    return _read_text(data, str(path), DIALECTS[fmt], arity, typing)


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


def _ragged(file: str, line: int, fields: int, expected: int | None) -> InputError:
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


def _read_text(data: bytes, file: str, dialect: _Dialect, arity: int | None, typing=None) -> pl.DataFrame:
    """A text file's cells as columns c0..ck, typed by ``typing(df, file)`` (default: by form)."""
    type_columns = typing or _type_by_form
    sample, end = _sample(data, dialect, file)
    if dialect.header and sample:
        arity = arity if arity is not None else len(sample[0][1])
        if sample[0][0] != 1:
            return type_columns(_read_python(data, file, dialect, arity), file)
        sample = sample[1:]
    if not sample:
        if data[end:].strip():
            return type_columns(_read_python(data, file, dialect, arity), file)
        return _empty(arity)
    expected = arity if arity is not None else len(sample[0][1])
    if any(len(fields) != expected for _, fields in sample):
        return type_columns(_read_python(data, file, dialect, expected), file)
    df = _read_polars(data, dialect, {f"c{j}": pl.String for j in range(expected)})
    if df is None or _has_nulls(df):
        df = _read_python(data, file, dialect, expected)
    return type_columns(df, file)


def _has_nulls(df: pl.DataFrame) -> bool:
    return df.width > 0 and any(df.null_count().row(0))


def _read_polars(data: bytes, dialect: _Dialect, schema: dict) -> pl.DataFrame | None:
    """Read every cell as text with Polars (typing is ours, see _type_by_form); None when Polars cannot."""
    try:
        return pl.read_csv(
            data, has_header=False, separator=dialect.separator, quote_char=dialect.quote,
            skip_rows=1 if dialect.header else 0, schema=schema, truncate_ragged_lines=False,
            raise_if_empty=False,
        )
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
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


def _type_by_form(df: pl.DataFrame, file: str) -> pl.DataFrame:
    """Int64 (Float64) for a column whose cells are all canonical ints (floats), else the text cells
    (the engine types each one as docs/semantics.md says); a canonical int beyond 64 bits is refused."""
    return df.with_columns([_typed(df[name], file) for name in df.columns if df[name].dtype == pl.String])


def _typed(column: pl.Series, file: str) -> pl.Series:
    try:
        kinds = classify(column)
    except UnrepresentableValue as exc:
        raise InputError(f"{file}: column {int(column.name[1:]) + 1}, {exc}") from None
    if column.len() and (kinds["kind"] == INT).all():
        return kinds["int"].rename(column.name)
    if column.len() and (kinds["kind"] == FLOAT).all():
        return kinds["float"].rename(column.name)
    return column


def _type_declared(df: pl.DataFrame, file: str, *, decl: Declaration, data: bytes, dialect: _Dialect) -> pl.DataFrame:
    """Columns typed by the declaration (``any`` ones by form); a bad cell is named by line and column."""
    columns = []
    for j, attribute in enumerate(decl.attributes):
        if attribute.type == "any":
            columns.append(_typed(df[f"c{j}"], file))
            continue
        try:
            columns.append(text_column(df[f"c{j}"], attribute.type))
        except BadCell as bad:
            line, column, width = _locate(data, dialect, file, bad.row, j)
            raise InputError(f"{bad}: {decl.predicate}.{attribute.name} (column {j + 1}) is declared "
                             f"{attribute.type}", Span(file, line, column, line, column + width)) from None
    return pl.DataFrame(columns) if columns else df


def _locate(data: bytes, dialect: _Dialect, file: str, row: int, field: int) -> tuple[int, int, int]:
    """(line, 1-based character column, width) of a data row's field: the file is scanned again (errors only)."""
    rows = _rows(data.decode("utf-8-sig", errors="replace"), dialect, file)
    if dialect.header:
        next(rows, None)
    for index, (line, fields) in enumerate(rows):
        if index == row:
            text = data.decode("utf-8-sig", errors="replace").split("\n")[line - 1]
            return line, _field_start(text, dialect, field), max(1, len(fields[field]))
    return 0, 0, 0


def _field_start(text: str, dialect: _Dialect, field: int) -> int:
    """The 1-based character column where field ``field`` of a row starts (separators in quotes skipped)."""
    count, inside = 0, False
    for i, char in enumerate(text):
        if count == field:
            return i + 1
        if char == dialect.quote:
            inside = not inside
        elif char == dialect.separator and not inside:
            count += 1
    return len(text) + 1


CELLS_SUFFIX = ":cells"   # a Parquet column of text cells (the tagged form of a mixed column)


def _read_parquet(path: str | os.PathLike, arity: int | None, decl: Declaration | None = None) -> pl.DataFrame:
    """A Parquet file: integers Int64, floats Float64, text strings (never retyped), columns named
    ``*:cells`` text cells (docs/semantics.md); nulls, NaN, infinities and ints beyond 64 bits refused."""
    if not Path(path).is_file():
        raise InputError(f"no such file: {path}")
    try:
        df = pl.read_parquet(os.fspath(path))
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError(f"cannot read Parquet file {path}: {exc}") from None
    if arity is not None and df.width != arity:
        raise InputError(f"table has {df.width} columns, expected {arity}", Span(str(path), 1, 1))
    try:
        return values_frame(df, str(path), decl)
    except pl.exceptions.PolarsError as exc:
        raise InputError(f"cannot read Parquet file {path}: {exc}") from None


def values_frame(df: pl.DataFrame, source: str, decl: Declaration | None = None) -> pl.DataFrame:
    """A table of typed values (Parquet, a DataFrame) as a decoded table c0..ck: dtypes respected,
    String columns strings (quoted where they would read as another value), ``*:cells`` columns
    taken as text cells. Anything with no exact constant is refused, naming row and column.
    With a ``decl``, columns named as its attributes are taken by name, and each must fit its type."""
    if decl is not None:
        df = df.select(match_columns(df.columns, decl.names))
    columns = []
    for j, name in enumerate(df.columns):
        column = df[name]
        nulls = column.is_null()
        if nulls.any():
            raise InputError(f"{source}: row {int(nulls.arg_true()[0]) + 1}, column {j + 1} ({name!r}): "
                             "a null is no value")
        cells = name.endswith(CELLS_SUFFIX) and column.dtype == pl.String
        to_value = None if cells else partial(_value_column, source=source, j=j, name=name)
        if decl is not None and decl.types[j] != "any":
            typed = _declared_value(column, decl, j, source, to_value)
        else:
            typed = column if to_value is None else to_value(column)
        columns.append(typed.rename(f"c{j}"))
    return pl.DataFrame(columns) if columns else pl.DataFrame(schema={})


def _declared_value(column: pl.Series, decl: Declaration, j: int, source: str, typed) -> pl.Series:
    attribute = decl.attributes[j]
    try:
        return value_column(column, attribute.type, typed if callable(typed) else (lambda c: c))
    except BadCell as bad:
        row = f", row {bad.row + 1}" if bad.row >= 0 else ""
        raise InputError(f"{source}: column {j + 1} ({column.name!r}){row}: {bad}; {decl.predicate}."
                         f"{attribute.name} is declared {attribute.type}") from None


def _value_column(column: pl.Series, source: str, j: int, name: str) -> pl.Series:
    where = f"{source}: column {j + 1} ({name!r})"
    if column.dtype.is_integer():
        wide = column.cast(pl.Int64, strict=False)
        if wide.null_count():
            row = int(wide.is_null().arg_true()[0])
            raise InputError(f"{where}, row {row + 1}: integer {column[row]} does not fit 64 bits")
        return wide
    if column.dtype.is_float():
        floats = column.cast(pl.Float64)
        bad = ~floats.is_finite()
        if bad.any():
            row = int(bad.arg_true()[0])
            raise InputError(f"{where}, row {row + 1}: {floats[row]} is no value (NaN and infinities are refused)")
        return floats
    if column.dtype == pl.Datetime:
        return string_cells(column.dt.to_string("iso:strict"))
    if column.dtype == pl.Object:
        raise InputError(f"{where}: holds Python objects, which have no exact constant")
    return string_cells(cell_strings(column))


def read_facts_dir(directory: str | os.PathLike, *, rdf_predicates: bool = False,
                   arities: dict[str, int] | None = None, declarations=None, rdf_map=None) -> dict[str, pl.DataFrame]:
    """Every fact file and dataset of ``directory`` (see ``deltalog.io.datasets.read_facts_dir``)."""
    from deltalog.io.datasets import read_facts_dir as read_dir
    return read_dir(directory, rdf_predicates=rdf_predicates, arities=arities, declarations=declarations,
                    rdf_map=rdf_map)
