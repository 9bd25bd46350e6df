"""Directories of fact files and Spark-style datasets, read with Spark on the executors.

The layouts, the skipped files and the refusals are those of the embedded reader
(``deltalog.io.datasets``, whose name rules are shared): ``p.tsv`` files, dataset directories
``p/``, ``p.<ext>/`` and ``predicate=p/`` of part files (``_SUCCESS``, ``.crc`` and hidden files
skipped), a part's format from its extension (``.txt`` is TSV, our ``--distributed`` TSV
output) or the directory's. The part files of one format are read by one Spark read of
their list, so no row passes through the driver; only the file names are listed there.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from pyspark.sql import DataFrame, SparkSession

from deltalog.errors import InputError
from deltalog.io.datasets import part_format, predicate_of_name, skipped_name
from deltalog.io.formats import DIALECTS
from deltalog.io.writers import PREDICATE_RE
from deltalog.backends.spark.errors import translated
from deltalog.backends.spark.io import (
    RDF_FORMATS, TABLE_FORMATS, Files, rdf_tables, _name, _parquet, _span, _suffix, _text,
)


def read_facts_dir(spark: SparkSession, directory: str, *, arities: dict[str, int],
                   rdf_predicates: bool = False, rdf_map=None, declarations=None) -> dict[str, DataFrame]:
    """Every fact file and dataset of a directory, as ``deltalog.io.datasets.read_facts_dir`` reads them
    (``declarations``: ``@decl`` by predicate, which type their files: ``spark/declared.py``)."""
    from deltalog.backends.spark.declared import read_declared
    files = Files(spark)
    if not files.is_dir(directory):
        raise InputError(f"no such directory: {directory}")
    parts: dict[str, list[DataFrame]] = {}
    rdf_files = []
    for path, is_dir in files.entries(directory):
        name, suffix = _name(path), _suffix(path)
        if not is_dir and not skipped_name(name) and suffix in RDF_FORMATS:
            rdf_files.append(path)
            continue
        if not is_dir and not skipped_name(name) and suffix == "ttl":
            raise InputError(f"{path}: Turtle is read by the embedded backend only; convert it to N-Triples")
        predicate = predicate_of_name(name, is_dir)
        if predicate is None:
            continue
        if not PREDICATE_RE.fullmatch(predicate):
            raise InputError(f"{predicate!r} is not a valid predicate name", _span(path))
        arity, decl = arities.get(predicate), (declarations or {}).get(predicate)
        if decl is not None and is_dir:
            raise InputError(f"{path}: a dataset directory of the declared predicate {predicate} cannot be read "
                             "with Spark yet; use the embedded backend or single files", _span(path))
        frame = read_dataset(spark, path, arity=arity) if is_dir else read_declared(spark, path, arity=arity, decl=decl)
        if frame is not None:
            parts.setdefault(predicate, []).append(frame)
    if rdf_files:
        from deltalog.io.rdf_names import rdf_map_of
        for predicate, frame in rdf_tables(spark, rdf_files, rdf_predicates, rdf_map_of(rdf_map)).items():
            parts.setdefault(predicate, []).append(frame)
    return {p: _combine(p, frames) for p, frames in parts.items()}


def dataset_parts(files: Files, directory: str) -> list[str]:
    """The data files under a dataset directory (recursively), sorted by their path inside it."""
    fs, root = files.fs(directory), files.path(directory)
    prefix = fs.makeQualified(root).toString().rstrip("/") + "/"
    listing, found = fs.listFiles(root, True), []
    while listing.hasNext():
        full = listing.next().getPath().toString()
        inside = full[len(prefix):] if full.startswith(prefix) else _name(full)
        if not any(skipped_name(step) for step in inside.split("/")):
            found.append((inside, full))
    return [full for _, full in sorted(found)]


def read_dataset(spark: SparkSession, directory: str, *, arity: int | None = None) -> DataFrame | None:
    """The part files of one dataset as tagged columns (one Spark read per format); None when it has
    no rows and its arity is unknown (zero facts, no relation)."""
    default = TABLE_FORMATS.get(_suffix(directory))
    by_format: dict[str, list[str]] = {}
    for part in dataset_parts(Files(spark), directory):
        by_format.setdefault(part_format(PurePosixPath(_name(part)), default), []).append(part)
    frames = []
    with translated():
        for fmt, paths in sorted(by_format.items()):
            frame = _parquet(spark, paths, arity) if fmt == "parquet" else \
                _text(spark, paths, DIALECTS[fmt], arity)
            if frame is not None:
                frames.append(frame)
    if not frames:
        return spark.createDataFrame([], _schema(arity)) if arity is not None else None
    return _combine(_name(directory), frames)


def _schema(arity: int) -> str:
    return ", ".join(f"c{i} string" for i in range(arity)) or "c0 string"


def _combine(predicate: str, frames: list[DataFrame]) -> DataFrame:
    widths = {len(f.columns) for f in frames}
    if len(widths) > 1:
        raise InputError(f"files of predicate {predicate!r} have different arities: {sorted(widths)}")
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionAll(frame)
    return out
