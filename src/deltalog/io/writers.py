"""Writing decoded tables to TSV, CSV or Parquet files, atomically, in the text forms of docs/semantics.md."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deltalog.errors import InputError
from deltalog.io.int_columns import IntTable, as_polars, int_cells_bytes, narrow_range
from deltalog.io.plain_cells import PlainTable, plain_table_bytes
from deltalog.io.text_table import TextTable, text_table_bytes, tsv_empty_cell, tsv_unwritable_cell
from deltalog.io.threads import map_in_threads, workers
from deltalog.storage.values import STRING

if TYPE_CHECKING:   # imported where a frame is written: a relation of ints is written without it
    import polars as pl

EXTENSIONS = {"tsv": "tsv", "facts": "facts", "csv": "csv", "parquet": "parquet", "nt": "nt"}
PREDICATE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def float_strings(series: pl.Series) -> pl.Series:
    """Floats as Python's ``repr`` writes them (Polars agrees on 1e-4 <= |x| < 1e16; the rest via repr)."""
    import polars as pl
    text = series.cast(pl.String)
    size = series.abs()
    odd = ((size < 1e-4) & (size != 0.0)) | (size >= 1e16) | series.is_nan()
    if odd.any():
        where = odd.arg_true()
        fixed = [repr(v) for v in series.gather(where).to_list()]
        text = text.scatter(where, pl.Series(fixed, dtype=pl.String))
    return text


def cell_strings(series: pl.Series) -> pl.Series:
    """A column as text cells: ints as digits, floats as repr, booleans as true/false, strings as they are."""
    import polars as pl
    if series.dtype == pl.String:
        return series
    if series.dtype.is_float():
        return float_strings(series.cast(pl.Float64))
    if series.dtype.is_integer() or series.dtype == pl.Boolean:
        return series.cast(pl.String)
    if series.dtype == pl.Object:
        raise InputError(f"column {series.name!r} holds Python objects, which have no text form")
    return series.cast(pl.String)


def _text_frame(df: pl.DataFrame) -> pl.DataFrame:
    """The frame to hand to Polars' CSV writer: integers stay native, everything else becomes text cells."""
    return df.with_columns(
        [cell_strings(df[name]) for name in df.columns if not df[name].dtype.is_integer()]
    )


def parquet_frame(df: pl.DataFrame) -> pl.DataFrame:
    """A decoded table as Parquet columns: ints int64, floats float64, a column of only strings a
    string column of the strings themselves, any other column (IRIs, mixed kinds) its text cells in a
    string column named ``<name>:cells`` (the tagged form readers recognise, docs/semantics.md)."""
    import polars as pl
    from deltalog.io.cells import classify
    columns = []
    for name in df.columns:
        column = df[name]
        if column.dtype != pl.String:
            columns.append(column)
            continue
        typed = classify(column)
        plain = bool((typed["kind"] == STRING).all())
        columns.append(typed["text"].rename(name) if plain else column.rename(f"{name}:cells"))
    return pl.DataFrame(columns) if columns else df


def _check_tsv(df: pl.DataFrame) -> None:
    """TSV has no quoting: a cell holding a tab or a line break cannot be written, nor an empty cell
    alone on its line (a blank line is no row; only a declared string column writes one raw)."""
    import polars as pl
    if df.width == 1 and df.dtypes[0] == pl.String and (df.to_series() == "").any():
        raise tsv_empty_cell(df.columns[0])
    for name in df.columns:
        if df[name].dtype == pl.String and df[name].str.contains(r"[\t\n\r]", literal=False).any():
            raise tsv_unwritable_cell(name)


WRITE_CHUNK_ROWS = 1 << 16
"""Rows of an IntTable or a PlainTable laid out as text at once: a slice's text matrices stay in a
core's L2 cache (pipeline-shaped outputs, 1.37M rows, fresh process: 46.2 ms CPU at 2^18 rows, 31.5 ms
at 2^16, 38.9 ms at 2^13: ``bench/write_chunks.py``, docs/design.md)."""
NUMPY_WRITE_CELLS = 8_000_000
"""Largest IntTable (rows x columns) written by NumPy while Polars is not imported yet, when some column
spans a wide range of values (each digit place then costs a division). Measured in a fresh process
(``bench/int_io.py --high 1000000000``, the command line's malloc settings): rows of 2 ints, NumPy
0.18 / 0.39 s CPU at 4M / 8M rows, Polars' import + write 0.22 / 0.33-0.37 s (docs/design.md)."""
NUMPY_NARROW_WRITE_CELLS = 24_000_000
"""The same bound when every column spans fewer than ``WRITE_CHUNK_ROWS // 4`` values (ids, counts):
each slice then gathers its cells from the texts of its range made once (``int_columns._column_text``),
and NumPy stays ahead of Polars' import + write by CPU and wall up to the largest size measured, 12M
rows of 2 ints (``bench/int_io.py``: 0.26 vs 0.50 s CPU, 0.28 vs 0.42 s wall; issue 15, stop 15)."""


def _numpy_writes(table: IntTable) -> bool:
    if "polars" in sys.modules:
        return False
    cells = table.height * table.width
    return cells <= NUMPY_WRITE_CELLS or cells <= NUMPY_NARROW_WRITE_CELLS and all(
        narrow_range(column, WRITE_CHUNK_ROWS // 4) for column in table.arrays)


def _write(table: pl.DataFrame | IntTable, path: Path, fmt: str, ready: bool = False, name: str = "the table") -> None:
    """Write one table to ``path`` (not atomically) in format ``fmt`` (``ready``: Parquet columns as they are);
    an IntTable as TSV or CSV by NumPy (io/int_columns.py: ints need no quoting), a PlainTable too
    (io/plain_cells.py: plain names need none, but a CSV cell holding a comma or a quote), a TextTable in
    Python (io/text_table.py), the same bytes Polars writes."""
    if isinstance(table, IntTable) and fmt in ("tsv", "facts", "csv") and _numpy_writes(table):
        with path.open("wb") as file:   # in slices: the text matrices of a slice stay in cache and are reused
            for chunk in table.row_chunks(WRITE_CHUNK_ROWS):
                file.write(int_cells_bytes(chunk, "," if fmt == "csv" else "\t"))
        return
    if isinstance(table, PlainTable) and fmt in ("tsv", "facts", "csv"):
        chunks = plain_table_bytes(table, "," if fmt == "csv" else "\t", WRITE_CHUNK_ROWS)
        if chunks is not None:
            with path.open("wb") as file:
                file.writelines(chunks)
            return
    if isinstance(table, TextTable) and fmt in ("tsv", "facts", "csv"):
        path.write_bytes(text_table_bytes(table, fmt))
        return
    import polars as pl
    df = as_polars(table)
    if fmt == "nt":
        from deltalog.io.ntriples import write_ntriples
        write_ntriples(df, path, name)
        return
    if fmt == "parquet":
        if any(dtype == pl.Object for dtype in df.dtypes):
            raise InputError("a column holds Python objects, which Parquet cannot store")
        (df if ready else parquet_frame(df)).write_parquet(path)
        return
    text = _text_frame(df)
    if fmt == "csv":
        text.write_csv(path, include_header=False, quote_style="necessary")
    else:
        _check_tsv(text)
        text.write_csv(path, include_header=False, separator="\t", quote_style="never")


def _format(format: str) -> str:
    if format not in EXTENSIONS:
        raise InputError(f"unknown output format {format!r} (expected one of {', '.join(EXTENSIONS)})")
    return format


def write_table(df: pl.DataFrame | Any, path: str | os.PathLike, *, format: str = "tsv") -> None:
    """Write ``df`` to ``path`` atomically: into a temporary file next to it, then ``os.replace``.

    ``format``: ``tsv`` (or ``facts``: tab-separated, no header, no quoting), ``csv`` (no header,
    RFC 4180 quoting where needed), ``parquet`` or ``nt`` (N-Triples, arity 3 only: io/ntriples.py).
    An arity-1 TSV table cannot hold the empty string
    (it would be a blank line, which readers skip); CSV quotes it.
    """
    fmt, path = _format(format), Path(path)
    tmp = path.parent / f".{path.name}.{os.urandom(8).hex()}.tmp"  # created by the writer: usual permissions
    try:
        _write(df, tmp, fmt)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_relations(
    tables: Mapping[str, pl.DataFrame | Any], out_dir: str | os.PathLike, *, format: str = "tsv", ready=frozenset()
) -> None:
    """Write every table to ``out_dir/<pred>.<ext>``, all or nothing.

    The files are written into a temporary sibling directory ``out_dir.tmp-<random suffix>`` first and
    published into ``out_dir`` (created if missing) together, only when all of them were written (see
    ``_publish``); on failure ``out_dir`` is left as it was and the temporary directory is removed.
    Other files and directories in ``out_dir`` are kept. The files are written on ``workers()``
    threads (io/threads.py: one unless ``DELTALOG_THREADS`` asks for more); a failure is the one the
    first failing table in ``tables``' order gives, as on one thread.
    ``ready``: the tables already in their Parquet form (``deltalog.io.declared.parquet_columns``).
    """
    fmt, out = _format(format), Path(out_dir)
    for name in tables:
        if not PREDICATE_RE.fullmatch(name):
            raise InputError(f"{name!r} is not a valid predicate name")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{out.name}.tmp-", dir=out.parent))
    try:
        def write(name: str) -> None:
            _write(tables[name], staging / f"{name}.{EXTENSIONS[fmt]}", fmt, name in ready, name)
        map_in_threads(write, list(tables), workers())
        _publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _publish(staging: Path, out: Path) -> None:
    """Make the written files appear in ``out`` together: ``staging`` gets links to out's other files
    and takes out's place in one rename (Linux renameat2 RENAME_EXCHANGE; elsewhere two renames, with
    out missing for an instant); out's subdirectories then move back in. ``staging`` ends up holding
    the old directory, which the caller removes."""
    if not out.exists():
        os.chmod(staging, 0o777 & ~_umask())
        os.rename(staging, out)
        staging.mkdir()   # for the caller's cleanup
        return
    os.chmod(staging, out.stat().st_mode & 0o7777)
    subdirectories = []
    for entry in out.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            subdirectories.append(entry.name)
        elif not (staging / entry.name).exists():
            try:
                os.link(entry, staging / entry.name, follow_symlinks=False)
            except OSError:
                shutil.copy2(entry, staging / entry.name, follow_symlinks=False)
    try:
        import ctypes
        renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    except (OSError, TypeError):   # no C library to ask (Windows)
        renameat2 = None
    if renameat2 is None or renameat2(-100, os.fsencode(staging), -100, os.fsencode(out), 2) != 0:
        old = out.with_name(staging.name + ".old")   # no atomic exchange: two renames, undone on failure
        os.rename(out, old)
        try:
            os.rename(staging, out)
        except BaseException:
            os.rename(old, out)
            raise
        os.rename(old, staging)
    for name in subdirectories:
        os.rename(staging / name, out / name)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
