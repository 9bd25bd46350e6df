"""Loading explicit facts into a Reasoner: files, directories, Polars/pandas/Arrow tables, Spark
DataFrames and rows of Python values, with their arities checked before anything is stored.

``FactLoading`` is the loading half of ``deltalog.api.Reasoner``; ``as_table`` turns whatever a
caller passes into a decoded table. Explicit facts of a predicate that rules also derive are
stored twice: in the predicate's relation and in its explicit relation (reasoning/workspace.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from deltalog.backends.base import FrameLoading
from deltalog.errors import InputError, UsageError
from deltalog.io.int_columns import ColumnTable, as_polars, int_rows
from deltalog.plan import ir
from deltalog.reasoning.workspace import explicit_relation
from deltalog.sources import rows_of

if TYPE_CHECKING:
    import polars as pl   # imported where a table needs it: a directory of int files loads without it
    from deltalog.algorithms.maintain import UpdateResult
    from deltalog.analysis.program import AnalysedProgram
    from deltalog.backends.base import Backend
    from deltalog.reasoning.context import Reasoning
    from deltalog.syntax.statements import Declaration, Program

FACTS_GENERATION = 0


class FactLoading:
    """The loading methods of ``deltalog.api.Reasoner``."""

    if TYPE_CHECKING:   # provided by Reasoner
        program: Program
        base_dir: Path | None
        backend: Backend
        analysed: AnalysedProgram
        reasoning: Reasoning
        declarations: Mapping[str, Declaration]
        loaded: dict[str, list[str]]
        inputs: list[Path]
        _arities: dict[str, int]
        _materialised: bool

        def update(self, *, add: Mapping[str, Any] | None = None, delete: Mapping[str, Any] | None = None,
                   algorithm: str = "auto", strict: bool = False) -> UpdateResult: ...

    def _load_program_facts(self) -> None:
        by_predicate: dict[str, list] = {}
        for fact in self.program.facts:
            by_predicate.setdefault(fact.atom.predicate, []).append(fact.atom.terms)
        for predicate, rows in by_predicate.items():
            names = tuple(f"c{i}" for i in range(self._arities[predicate]))
            for relation in self._stores(predicate):
                self.backend.insert(relation=relation, plan=ir.Values(names, tuple(rows)),
                                    generation=FACTS_GENERATION)
        for directive in self.program.inputs:
            path = Path(directive.path)
            if not path.is_absolute() and self.base_dir is not None:
                path = self.base_dir / path
            self.load(directive.predicate, path, format=directive.format)
            self.loaded.pop(directive.predicate, None)   # declared by the program: never "unread"

    def load(self, predicate: str, data: Any, *, format: str | None = None) -> int:
        """Add explicit facts of one predicate from a file path, a Polars/pandas/Arrow table or tuples
        (after ``materialise()``, this is an incremental update). On the Spark backend, a Spark DataFrame
        is typed and stored on the executors."""
        if type(data).__module__.startswith("pyspark.") and not self._materialised:
            return self.load_frames({predicate: data})
        table = self._table(predicate, data, format=format)
        return self.load_tables({predicate: table}, source=str(data) if isinstance(data, (str, os.PathLike))
                                else "the data")

    def _table(self, predicate: str, data: Any, *, format: str | None = None) -> Any:
        """``decoded_table`` with the caller's mistakes (a missing file, ragged rows) as typed errors."""
        if isinstance(data, ColumnTable):
            return data   # decoded already (a reader's table: ``deltalog update`` passes an int file's IntTable)
        if isinstance(data, (str, os.PathLike)):
            self.inputs.append(Path(data))
        elif not _is_polars_frame(data) and not type(data).__module__.startswith(("pandas", "pyarrow")):
            data = rows_of(predicate, data)
        try:
            return decoded_table(data, format=format, arity=self._arities.get(predicate),
                                 decl=self.declarations.get(predicate))
        except OSError as error:
            raise InputError(f"cannot read {data}: {error.strerror or error}") from None

    def load_frames(self, frames: Mapping[str, Any], *, source: str = "the data", tagged: bool = False) -> int:
        """Add Spark DataFrames of facts (Spark backend only; ``tagged``: already in the backend's
        physical form; declared predicates are typed by their ``@decl``), all arities checked first."""
        if not isinstance(self.backend, FrameLoading):
            raise UsageError(f"DataFrames of facts need a backend that loads them (backend='spark'); the "
                             f"{self.backend.name} backend takes tables, paths or rows")
        for predicate, frame in frames.items():
            self._check_arity(predicate, len(frame.columns), source)
        ready = {p: tagged or p in self.declarations for p in frames}
        if not tagged and any(ready.values()):
            from deltalog.backends.spark.declared import tag_declared
            frames = {p: tag_declared(f, self.declarations[p]) if p in self.declarations else f
                      for p, f in frames.items()}
        added = 0
        for predicate, frame in frames.items():
            self._declare(predicate, len(frame.columns))
            for relation in self._stores(predicate):
                stored = self.backend.load_frame(relation=relation, data=frame, generation=FACTS_GENERATION,
                                                  tagged=ready[predicate])
            self.loaded.setdefault(predicate, []).append(source)   # (diagnostics: it has facts)
            added += stored
        return added

    def load_tables(self, tables: Mapping[str, Any], *, source: str = "the data") -> int:
        """Add several predicates' facts at once (DataFrames or IntTables); all arities are checked
        before anything is stored."""
        for predicate, table in tables.items():
            self._check_arity(predicate, table.width, source)
            self.loaded.setdefault(predicate, []).append(source)
        if self._materialised:
            result = self.update(add={p: cells_frame(t) for p, t in tables.items()})
            return sum(frame.height for p, frame in result.added.items() if p in tables)
        return sum(self._store(p, t) for p, t in tables.items())

    def load_directory(self, directory: str | os.PathLike, *, rdf_predicates: bool = False, rdf_map=None) -> int:
        """Add every fact file of a directory (DIR/p.tsv, p.csv, p.parquet, p.facts, *.nt, *.ttl).
        ``rdf_map`` (a TSV file of IRI, predicate lines, or a dict): names for RDF properties; it
        implies ``rdf_predicates`` (docs/semantics.md, RDF)."""
        if isinstance(self.backend, FrameLoading) and not self._materialised:   # read on the executors
            from deltalog.backends.spark.io import read_facts_dir as read_with_spark
            frames = read_with_spark(self.backend.spark, str(directory), arities=self._arities,
                                     rdf_predicates=rdf_predicates, rdf_map=rdf_map,
                                     declarations=self.declarations)
            self.inputs.append(Path(directory))
            return self.load_frames(frames, source=f"the files of {directory}", tagged=True)
        from deltalog.io.datasets import read_facts_dir
        tables = read_facts_dir(directory, rdf_predicates=rdf_predicates, arities=self._arities,
                                declarations=self.declarations, rdf_map=rdf_map)
        self.inputs.append(Path(directory))
        loaded = self.load_tables(tables, source=f"the files of {Path(directory)}")
        for predicate in tables:   # name the files themselves in warnings (an RDF file: the directory)
            files = [str(f) for f in sorted(Path(directory).glob(predicate + ".*")) if f.stem == predicate]
            self.loaded[predicate][-1:] = files or [str(directory)]
        return loaded

    def _store(self, predicate: str, table: Any) -> int:
        self._declare(predicate, table.width)
        added = 0
        for relation in self._stores(predicate):
            added = self.backend.load(relation=relation, table=table, generation=FACTS_GENERATION)
        return added

    def _declare(self, predicate: str, arity: int) -> None:
        """Make a relation for a predicate only the data mentions."""
        self._check_arity(predicate, arity)
        if predicate not in self._arities:
            self._arities[predicate] = self.reasoning.arities[predicate] = arity
            self.backend.create_relation(relation=predicate, arity=arity)

    def _stores(self, predicate: str) -> list[str]:
        """Where explicit facts go: the relation, and for a predicate rules also derive, its E relation."""
        if predicate not in self.analysed.idb:
            return [predicate]
        explicit = explicit_relation(predicate)
        self.backend.create_relation(relation=explicit, arity=self._arities[predicate])
        return [explicit, predicate]

    def _check_arity(self, predicate: str, width: int, source: str = "the data") -> None:
        known = self._arities.get(predicate)
        if known is not None and known != width:
            raise InputError(f"{predicate} has arity {known} in the program, but {source} give it {width} columns")


def _is_polars_frame(data: Any) -> bool:
    """A Polars DataFrame (without importing Polars: if it is not loaded, ``data`` is none)."""
    polars = sys.modules.get("polars")
    return polars is not None and isinstance(data, polars.DataFrame)


def as_table(data: Any, *, format: str | None = None, arity: int | None = None, decl=None) -> pl.DataFrame:
    """A decoded table (columns c0..ck) from a path, a Polars/pandas/Arrow table, or rows of Python values.

    Values keep their kind (docs/semantics.md, Values from Python and tables): a ``str`` or a String
    column is a string whatever it spells, an int an int, a float a float, ``deltalog.IRI`` an IRI;
    ints beyond 64 bits, NaN, infinities and None are refused, naming the row and column. With
    ``format="cells"`` the String columns of a table are text cells instead (what ``relation()``
    returns for columns that are not all ints or all floats), so its output loads back unchanged.
    ``decl`` (a ``@decl``) types the columns by the declaration and matches table columns by name.
    """
    return as_polars(decoded_table(data, format=format, arity=arity, decl=decl))


def cells_frame(table: Any) -> pl.DataFrame:
    """A decoded table (a reader's, ``decoded_table``'s) as a frame ``update()`` takes back unchanged:
    its String columns hold text cells, so they are marked ``:cells`` (unmarked, a String column is
    strings whatever they spell, and the IRI ``<a>``, the int 7 of a mixed column, the string ``"7"``
    would each become another value)."""
    import polars as pl
    from deltalog.io.declared import CELLS_SUFFIX
    frame = as_polars(table)
    return frame.rename({n: f"{n}{CELLS_SUFFIX}" for n in frame.columns if frame[n].dtype == pl.String})


def decoded_table(data: Any, *, format: str | None = None, arity: int | None = None, decl=None) -> Any:
    """``as_table``'s table, except that a text file of canonical ints is an IntTable, read without
    Polars (``deltalog.io.formats.read_decoded``)."""
    if isinstance(data, (str, os.PathLike)):
        if (format or Path(data).suffix.lstrip(".").lower()) in ("nt", "ttl"):
            from deltalog.io.declared import checked
            from deltalog.io.rdf import read_rdf
            return checked(read_rdf(data)["triple"], decl, str(data))
        from deltalog.io.formats import read_decoded
        return read_decoded(data, format=format, arity=arity, decl=decl)
    if decl is None and isinstance(data, list) and (ints := int_rows(data)) is not None:
        return ints   # rows of ints: an IntTable, as an int file gives (no Polars frame made and read back)
    from deltalog.io.declared import checked
    import polars as pl
    from deltalog.io.readers import values_frame
    if isinstance(data, pl.DataFrame):
        table = data
    elif type(data).__module__.startswith("pandas"):
        table = pl.from_pandas(data)
    elif type(data).__module__.startswith("pyarrow"):
        arrow = pl.from_arrow(data)
        table = arrow if isinstance(arrow, pl.DataFrame) else arrow.to_frame()
    else:
        from deltalog.io.python_rows import rows_table
        return checked(rows_table(data, arity), decl, "the rows")
    if format == "cells":
        table = table.rename({n: f"{n}:cells" for n in table.columns if table[n].dtype == pl.String})
    return values_frame(table, "the table", decl)

