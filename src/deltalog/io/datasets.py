"""Directories of fact files: one file per predicate, and Spark-style datasets of part files.

A predicate's facts may be one file (``edge.tsv``), a dataset directory (``edge/part-*.parquet``,
``edge.parquet/part-*``, deltalog's ``--distributed`` output ``predicate=edge/``) or several of
these; markers such as ``_SUCCESS`` and hidden files are skipped. An empty file or dataset is zero
facts: of the program's arity when it is known, else no relation at all (nothing to give it an arity).
"""

from __future__ import annotations

import glob
import os
from pathlib import Path, PurePath

from typing import TYPE_CHECKING, Any

import numpy as np

from deltalog.errors import InputError
from deltalog.io.formats import RDF_SUFFIXES, TABLE_SUFFIXES, read_decoded
from deltalog.io.int_columns import IntTable, as_polars, concat
from deltalog.io.plain_cells import PlainTable, share_vocabulary
from deltalog.io.writers import PREDICATE_RE
from deltalog.syntax.ast import NO_SPAN, Span

if TYPE_CHECKING:   # Polars is imported where a table needs it: files of ints are read without it
    import polars as pl

PART_SUFFIXES = {".txt": "tsv"}   # Spark's text writer (our --distributed TSV) names part files .txt


def _skipped(path: Path) -> bool:
    return skipped_name(path.name)


def skipped_name(name: str) -> bool:
    """Hidden files, Spark/Hadoop markers and checksums (``_SUCCESS``, ``.part-0.crc``); shared with
    the Spark reader (backends/spark/datasets.py) so both backends skip the same files."""
    return name.startswith((".", "_")) or name.endswith(".crc")


def part_format(part: PurePath, default: str | None) -> str:
    """The format of one part file: from its extensions (``.txt`` is TSV), else the dataset's."""
    for suffix in reversed(part.suffixes):   # part-0.snappy.parquet, part-0.csv.gz is not supported
        if suffix.lower() in TABLE_SUFFIXES:
            return TABLE_SUFFIXES[suffix.lower()]
        if suffix.lower() in PART_SUFFIXES:
            return PART_SUFFIXES[suffix.lower()]
    if default is None:
        raise InputError(f"cannot tell the format of {part} (name the dataset directory <pred>.tsv, .csv "
                         "or .parquet, or give its part files such an extension)")
    return default


def dataset_parts(path: str | os.PathLike) -> list[Path]:
    """The data files of a dataset directory (recursively: Hive-style partitions) or a glob, sorted."""
    text = str(path)
    if Path(text).is_dir():
        found = [p for p in Path(text).rglob("*") if p.is_file()]
        root = Path(text)
        found = [p for p in found if not any(_skipped(Path(q)) for q in p.relative_to(root).parts)]
    else:
        found = [Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file() and not _skipped(Path(p))]
        if not found:
            raise InputError(f"no file matches {text}")
    return sorted(found)


def read_dataset(path: str | os.PathLike, *, format: str | None = None, arity: int | None = None,
                 decl=None) -> pl.DataFrame:
    """Every part file of a dataset directory or glob, concatenated (one arity for all; ``decl``: typed by it)."""
    from deltalog.io.readers import empty_table, read_table
    default = format or TABLE_SUFFIXES.get(Path(str(path).rstrip("/")).suffix.lower())
    tables = [(part, read_table(part, format=part_format(part, default), arity=arity, decl=decl))
              for part in dataset_parts(path)]
    combined = combine(str(path), tables, arity)
    return as_polars(combined) if combined is not None else empty_table(arity)


def _predicate_of(entry: Path) -> str | None:
    """The predicate a directory entry holds facts of, or None for entries that are not data."""
    return predicate_of_name(entry.name, entry.is_dir())


def predicate_of_name(name: str, is_dir: bool) -> str | None:
    """The predicate of a directory entry by its name (shared with the Spark reader)."""
    if skipped_name(name):
        return None
    if is_dir:
        return name.split("=", 1)[1] if name.startswith("predicate=") else Path(name).stem if \
            Path(name).suffix.lower() in TABLE_SUFFIXES else name
    return Path(name).stem if Path(name).suffix.lower() in TABLE_SUFFIXES else None


def read_facts_dir(directory: str | os.PathLike, *, rdf_predicates: bool = False,
                   arities: dict[str, int] | None = None, rdf_map=None,
                   declarations=None) -> dict[str, Any]:
    """Every fact file and dataset of ``directory``: ``p.tsv``, ``p.facts``, ``p.csv``, ``p.parquet``
    and the datasets ``p/``, ``p.<ext>/``, ``predicate=p/`` give predicate ``p`` (all of them are
    concatenated); ``*.nt``/``*.ttl`` give ``triple`` (or, with ``rdf_predicates`` or an ``rdf_map``,
    one binary predicate per property, named from all RDF files' properties together). Files with
    other extensions are ignored; a subdirectory that is not a valid
    predicate name is refused. ``declarations`` (``@decl`` by predicate) type the declared predicates.
    Tables are Polars DataFrames, or IntTables where every file of a predicate held canonical ints,
    PlainTables (all of one vocabulary) where they held plain names (``deltalog.io.formats.read_decoded``;
    ``deltalog.io.readers.read_facts_dir`` gives DataFrames only).
    """
    folder, arities, declarations = Path(directory), arities or {}, declarations or {}
    if not folder.is_dir():
        raise InputError(f"no such directory: {directory}")
    parts: dict[str, list[tuple[Path, Any]]] = {}
    entries = sorted(folder.iterdir())
    rdf_files = [e for e in entries if not _skipped(e) and e.is_file() and e.suffix.lower() in RDF_SUFFIXES]
    if rdf_files:
        from deltalog.io.rdf import read_rdf_files
        from deltalog.io.rdf_names import rdf_map_of
        tables = read_rdf_files(rdf_files, per_predicate=rdf_predicates, rdf_map=rdf_map_of(rdf_map))
        for name, table in tables.items():
            parts.setdefault(name, []).append((rdf_files[0], table))
    for entry in entries:
        if entry in rdf_files:
            continue
        predicate = _predicate_of(entry)
        if predicate is None:
            continue
        if not PREDICATE_RE.fullmatch(predicate):
            raise InputError(f"{predicate!r} is not a valid predicate name", Span(str(entry), 0, 0))
        table = read_decoded(entry, arity=arities.get(predicate), decl=declarations.get(predicate))
        parts.setdefault(predicate, []).append((entry, table))
    _share_vocabulary(parts)
    combined = {name: combine(name, tables, arities.get(name)) for name, tables in parts.items()}
    return {name: table for name, table in combined.items() if table is not None}


def combine(name: str, tables: list[tuple[Path, Any]], arity: int | None) -> Any:
    """Concatenate the files of one predicate; empty files of unknown arity add nothing, and when
    every file is such, the result is None (zero facts, no relation) or, with ``arity``, an empty table.
    One file's table is kept as it is; IntTables (PlainTables of one vocabulary) stay one when every
    file is one (else they join the others as DataFrames)."""
    known = [(file, df) for file, df in tables if df.width or df.height]
    if not known:
        from deltalog.io.readers import empty_table
        return empty_table(arity) if arity is not None else None
    widths = {df.width for _, df in known}
    if len(widths) > 1:
        files = ", ".join(f"{file.name} ({df.width})" for file, df in known)
        raise InputError(f"files of predicate {name!r} have different arities: {files}", NO_SPAN)
    if len(known) == 1:
        return known[0][1]
    if all(isinstance(df, IntTable) for _, df in known):
        return concat([df for _, df in known])
    if all(isinstance(df, PlainTable) and df.vocabulary is known[0][1].vocabulary for _, df in known):
        return PlainTable([np.concatenate(c) for c in zip(*(df.arrays for _, df in known))], known[0][1].vocabulary)
    return _concat_frames([as_polars(df) for _, df in known])


def _share_vocabulary(parts: dict[str, list[tuple[Path, Any]]]) -> None:
    """Recode the directory's files of plain names into one vocabulary (io/plain_cells.share_vocabulary),
    in place: a name in several files is then encoded once, and a predicate's files concatenate as codes."""
    plain = [(name, i) for name, tables in parts.items()
             for i, (_, table) in enumerate(tables) if isinstance(table, PlainTable)]
    shared = share_vocabulary([parts[name][i][1] for name, i in plain])
    for (name, i), table in zip(plain, shared):
        parts[name][i] = (parts[name][i][0], table)


def _concat_frames(frames: list[pl.DataFrame]) -> pl.DataFrame:
    import polars as pl
    from deltalog.io.writers import cell_strings
    for column in frames[0].columns:
        if len({df[column].dtype for df in frames}) > 1:   # mixed kinds: every file as text cells
            frames = [df.with_columns(cell_strings(df[column])) for df in frames]
    return pl.concat(frames, how="vertical")
