"""The Python API: a Reasoner holds a program, its facts and their materialisation.

>>> r = Reasoner("path(X, Y) :- edge(X, Y). path(X, Z) :- edge(X, Y), path(Y, Z).")
>>> r.load("edge", [(1, 2), (2, 3)])
2
>>> r.materialise().derived
3
>>> sorted(r.query("path(1, Y)")["Y"].to_list())
[2, 3]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import polars as pl

from deltalog.algorithms.context import Reasoning, Stats
from deltalog.algorithms.maintain import UpdateResult, apply_update
from deltalog.algorithms.offload import default_policy
from deltalog.algorithms.seminaive import materialise
from deltalog.algorithms.update import explicit_relation
from deltalog.analysis import analyse
from deltalog.backends.base import Backend
from deltalog.errors import InputError, QueryError
from deltalog.plan import ir
from deltalog.plan.rules import term
from deltalog.syntax import parse, parse_atom, parse_file
from deltalog.syntax.ast import Program, Variable

FACTS_GENERATION = 0


@dataclass
class Summary:
    """What a materialisation did: facts derived, seconds, and the detailed statistics."""

    derived: int
    seconds: float
    stats: Stats


def make_backend(backend: str | Backend) -> Backend:
    if not isinstance(backend, str):
        return backend
    if backend == "local":
        from deltalog.backends.local.backend import LocalBackend
        return LocalBackend()
    if backend == "spark":
        from deltalog.backends.spark.backend import SparkBackend
        return SparkBackend()
    raise ValueError(f"unknown backend {backend!r} (available: local, spark)")


def read_program(program: str | os.PathLike | Program) -> tuple[Program, str | None, Path | None]:
    """A Program from text, a path or a Program; also its source text and directory (for errors, @input)."""
    if isinstance(program, Program):
        return program, None, None
    if isinstance(program, os.PathLike) or (isinstance(program, str) and program.endswith(".dl")
                                            and "\n" not in program and Path(program).exists()):
        path = Path(program)
        return parse_file(path), path.read_text(), path.parent
    return parse(program), program, None


class Reasoner:
    """A program plus facts; ``materialise()`` computes every consequence, ``query`` and ``relation`` read it."""

    def __init__(self, program: str | os.PathLike | Program, *, backend: str | Backend = "local",
                 extra_arities: Mapping[str, int] | None = None, offload: Any = "auto",
                 restore: Mapping[str, Any] | None = None) -> None:
        """``restore``: a store manifest (deltalog/store.py) whose state the backend already holds."""
        self.program, self.source, self.base_dir = read_program(program)
        if restore is not None:
            extra_arities = {**dict(extra_arities or {}), **restore["arities"]}
        self.analysed = analyse(self.program, extra_arities=dict(extra_arities or {}))
        self.backend = make_backend(backend)
        # strata small enough run on an embedded backend (algorithms/offload.py); None: never
        self.offload = default_policy(self.backend) if offload == "auto" else offload
        self.reasoning = Reasoning(self.analysed, self.backend)
        self._materialised = False
        self.store_link: Any = None     # the store this state was read from or saved to (deltalog/store)
        self._arities = dict(self.analysed.arities)
        for predicate, arity in self._arities.items():
            self.backend.create_relation(relation=predicate, arity=arity)
        if restore is None:
            self._load_program_facts()
        else:
            self.reasoning.generation = int(restore["generation"])
            self._materialised = True

    @classmethod
    def open(cls, store: str | os.PathLike, *, writable: bool = False, wait: float = 0.0) -> "Reasoner":
        """The reasoner saved in a store directory (see ``save`` and ``deltalog init``), read from one
        consistent version. ``writable``: also hold the store's writer lock (waiting up to ``wait``
        seconds for another writer) until ``close()``, so that ``save`` cannot meet a conflict."""
        from deltalog.store import open_store
        return open_store(store, writable=writable, wait=wait)

    def save(self, store: str | os.PathLike, *, event: Mapping[str, Any] | None = None, wait: float = 0.0) -> None:
        """Save program, facts and materialisation into a store directory (new, empty, or a store),
        atomically and durably (local backend). Saving back to the store the reasoner was opened from
        writes only what changed; it refuses if another writer updated the store meanwhile."""
        from deltalog.store import save_store
        if not self._materialised:
            self.materialise()
        text = self.source if self.source is not None else str(self.program)
        save_store(self, store, text, dict(event or {"event": "save"}), wait=wait)

    def close(self) -> None:
        """Release the store's writer lock, if ``open(..., writable=True)`` took it."""
        link = self.store_link
        if link is not None and link.lock is not None:
            link.lock.release()
            link.lock = None

    def __enter__(self) -> "Reasoner":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- loading -------------------------------------------------------------------------------

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

    def load(self, predicate: str, data: Any, *, format: str | None = None) -> int:
        """Add explicit facts of one predicate from a file path, a Polars/pandas/Arrow table or tuples
        (after ``materialise()``, this is an incremental update). On the Spark backend, a Spark DataFrame
        is typed and stored on the executors."""
        if type(data).__module__.startswith("pyspark.") and not self._materialised:
            return self.load_frames({predicate: data})
        table = as_table(data, format=format, arity=self._arities.get(predicate))
        return self.load_tables({predicate: table})

    def load_frames(self, frames: Mapping[str, Any], *, source: str = "the data", tagged: bool = False) -> int:
        """Add Spark DataFrames of facts (Spark backend only; ``tagged``: already in the backend's
        physical form), all arities checked before anything is stored."""
        for predicate, frame in frames.items():
            self._check_arity(predicate, len(frame.columns), source)
        added = 0
        for predicate, frame in frames.items():
            self._declare(predicate, len(frame.columns))
            for relation in self._stores(predicate):
                stored = self.backend.load_frame(relation=relation, data=frame, generation=FACTS_GENERATION,
                                                  tagged=tagged)
            added += stored
        return added

    def load_tables(self, tables: Mapping[str, pl.DataFrame], *, source: str = "the data") -> int:
        """Add several predicates' facts at once; all arities are checked before anything is stored."""
        for predicate, table in tables.items():
            self._check_arity(predicate, table.width, source)
        if self._materialised:
            result = self.update(add=tables)
            return sum(frame.height for p, frame in result.added.items() if p in tables)
        return sum(self._store(p, t) for p, t in tables.items())

    def load_directory(self, directory: str | os.PathLike, *, rdf_predicates: bool = False, rdf_map=None) -> int:
        """Add every fact file of a directory (DIR/p.tsv, p.csv, p.parquet, p.facts, *.nt, *.ttl).
        ``rdf_map`` (a TSV file of IRI, predicate lines, or a dict): names for RDF properties; it
        implies ``rdf_predicates`` (docs/semantics.md, RDF)."""
        if self.backend.name == "spark" and not self._materialised:   # read on the executors
            from deltalog.backends.spark.io import read_facts_dir as read_with_spark
            frames = read_with_spark(self.backend.spark, str(directory), arities=self._arities,
                                     rdf_predicates=rdf_predicates, rdf_map=rdf_map)
            return self.load_frames(frames, source=f"the files of {directory}", tagged=True)
        from deltalog.io.readers import read_facts_dir
        tables = read_facts_dir(directory, rdf_predicates=rdf_predicates, arities=self._arities, rdf_map=rdf_map)
        return self.load_tables(tables, source=f"the files of {Path(directory)}")

    def _store(self, predicate: str, table: pl.DataFrame) -> int:
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

    def update(self, *, add: Mapping[str, Any] | None = None, delete: Mapping[str, Any] | None = None,
               algorithm: str = "auto") -> UpdateResult:
        """Add and delete explicit facts (tables, paths or tuples per predicate) and bring the
        materialisation up to date incrementally; returns the facts added and removed per predicate.
        All or nothing: a bad batch (e.g. an arity clash) or a failure changes nothing."""
        add_tables = self._tables(add or {})
        delete_tables = self._tables(delete or {})
        if not self._materialised:
            self.materialise()
        for predicate, table in list(add_tables.items()) + list(delete_tables.items()):
            self._declare(predicate, table.width)
        return apply_update(self.reasoning, add_tables, delete_tables, algorithm)

    def _tables(self, data: Mapping[str, Any]) -> dict[str, pl.DataFrame]:
        """Decoded tables for an update, every arity checked before anything changes."""
        tables = {p: as_table(d, arity=self._arities.get(p)) for p, d in data.items()}
        for predicate, table in tables.items():
            self._check_arity(predicate, table.width)
        return tables

    # ---- reasoning and reading -----------------------------------------------------------------

    def materialise(self, *, progress=None) -> Summary:
        """Compute every fact that follows from the program and the loaded facts."""
        before = self.fact_count()
        if not self._materialised:
            materialise(self.reasoning, progress=progress, offload=self.offload)
            self._materialised = True
        stats = self.reasoning.stats
        return Summary(self.fact_count() - before, stats.seconds, stats)

    def predicates(self) -> dict[str, int]:
        """Every predicate of the program and the data, with its arity."""
        return dict(self._arities)

    def fact_count(self) -> int:
        return sum(self.backend.count(relation=p) for p in self._arities)

    def relation(self, predicate: str) -> pl.DataFrame:
        """All facts of a predicate (explicit and derived), columns c0..ck."""
        if predicate not in self._arities:
            raise QueryError(f"unknown predicate {predicate!r}")
        return self.backend.read(relation=predicate)

    def query(self, atom: str) -> pl.DataFrame:
        """The set of answers to a query atom such as ``path(1, Y)``: one column per named variable
        (``path(X, _)`` gives each X once); the program's ``@prefix``es may be used."""
        parsed = parse_atom(atom, prefixes=self.program.prefixes)
        arity = self._arities.get(parsed.predicate)
        if arity is None:
            raise QueryError(f"unknown predicate {parsed.predicate!r}", parsed.span)
        if arity != parsed.arity:
            raise QueryError(f"{parsed.predicate} has arity {arity}, the query has {parsed.arity}", parsed.span)
        scan = ir.Scan(parsed.predicate, tuple(term(t) for t in parsed.terms))
        named = dict.fromkeys(t.name for t in parsed.terms if isinstance(t, Variable) and not t.anonymous)
        return self.backend.evaluate(plan=ir.Distinct(ir.Project(scan, tuple((n, ir.Col(n)) for n in named))))

    def derived_predicates(self) -> list[str]:
        """Predicates to write: the program's @output ones if any, else every rule head."""
        if self.program.outputs:
            return [d.predicate for d in self.program.outputs]
        return sorted(self.analysed.idb)

    def write(self, out_dir: str | os.PathLike, *, format: str = "tsv",
              predicates: Iterable[str] | None = None) -> list[str]:
        """Write each predicate to OUT/<p>.<format>, atomically as a whole; returns the predicates written."""
        from deltalog.io.writers import write_relations
        chosen = list(predicates) if predicates is not None else self.derived_predicates()
        write_relations({p: self.relation(p) for p in chosen}, out_dir, format=format)
        return chosen


def as_table(data: Any, *, format: str | None = None, arity: int | None = None) -> pl.DataFrame:
    """A decoded table (columns c0..ck) from a path, a Polars/pandas/Arrow table, or rows of Python values.

    Values keep their kind (docs/semantics.md, Values from Python and tables): a ``str`` or a String
    column is a string whatever it spells, an int an int, a float a float, ``deltalog.IRI`` an IRI;
    ints beyond 64 bits, NaN, infinities and None are refused, naming the row and column. With
    ``format="cells"`` the String columns of a table are text cells instead (what ``relation()``
    returns for columns that are not all ints or all floats), so its output loads back unchanged.
    """
    if isinstance(data, (str, os.PathLike)):
        if (format or Path(data).suffix.lstrip(".").lower()) in ("nt", "ttl"):
            from deltalog.io.rdf import read_rdf
            return read_rdf(data)["triple"]
        from deltalog.io.readers import read_table
        return read_table(data, format=format, arity=arity)
    from deltalog.io.readers import values_frame
    if isinstance(data, pl.DataFrame):
        table = data
    elif type(data).__module__.startswith(("pandas", "pyarrow")):
        table = pl.from_pandas(data) if type(data).__module__.startswith("pandas") else pl.from_arrow(data)
    else:
        from deltalog.io.python_rows import rows_table
        return rows_table(data, arity)
    if format == "cells":
        table = table.rename({n: f"{n}:cells" for n in table.columns if table[n].dtype == pl.String})
    return values_frame(table, "the table")
