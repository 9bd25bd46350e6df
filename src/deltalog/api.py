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
from deltalog.algorithms.seminaive import materialise_or_roll_back
from deltalog.algorithms.update import explicit_relation
from deltalog.analysis import analyse
from deltalog.backends.base import Backend, FrameLoading
from deltalog.errors import InputError, QueryError, UnknownPredicateError, UsageError
from deltalog.limits import Limits, recursion_headroom
from deltalog.plan import ir
from deltalog.plan.combined import DEFAULT_HD, HD_MODES
from deltalog.plan.rules import term
from deltalog.sources import make_backend, read_program, rows_of
from deltalog.syntax import parse_atom
from deltalog.syntax.ast import Program, Variable

FACTS_GENERATION = 0


@dataclass
class Summary:
    """What a materialisation did: facts derived, seconds, and the detailed statistics."""

    derived: int
    seconds: float
    stats: Stats


class Reasoner:
    """A program plus facts; ``materialise()`` computes every consequence, ``query`` and ``relation`` read it."""

    def __init__(self, program: str | os.PathLike | Program, *, backend: str | Backend = "local",
                 extra_arities: Mapping[str, int] | None = None, offload: Any = "auto",
                 restore: Mapping[str, Any] | None = None, max_facts: int | None = None,
                 timeout: float | None = None, hd: str = DEFAULT_HD) -> None:
        """``restore``: a store manifest (deltalog/store.py) whose state the backend already holds.
        ``max_facts``/``timeout``: limits of every materialisation and update (``limits``; see limits.py).
        ``hd``: which rules are planned over hypertree decompositions (``auto``, ``off``, ``all``;
        plan/combined.py, 000 section 5)."""
        self.limits = Limits(max_facts, timeout)
        self.program, self.source, self.base_dir = read_program(program)
        if restore is not None:
            extra_arities = {**dict(extra_arities or {}), **restore["arities"]}
        with recursion_headroom():
            self.analysed = analyse(self.program, extra_arities=dict(extra_arities or {}))
        self.loaded: dict[str, list[str]] = {}   # predicate -> files (or "the data") its facts came from
        self.inputs: list[Path] = []   # fact files and directories read, which write() must not overwrite
        self.backend = make_backend(backend)
        # strata small enough run on an embedded backend (algorithms/offload.py); None: never
        self.offload = default_policy(self.backend) if offload == "auto" else offload
        self.reasoning = Reasoning(self.analysed, self.backend)
        self.set_hd(hd)
        self._materialised = False
        self.store_session: Any = None  # the store this state was read from or saved to (deltalog/store/session.py)
        self._arities = dict(self.analysed.arities)
        self.declarations = self.analysed.declarations  # @decl by predicate: names and types of columns
        for predicate, arity in self._arities.items():
            self.backend.create_relation(relation=predicate, arity=arity)
        if restore is None:
            self._load_program_facts()
        else:
            self.loaded = {p: ["the store"] for p in restore["arities"]}
            self.reasoning.generation = int(restore["generation"])
            self._materialised = True

    def set_hd(self, mode: str) -> None:
        """Choose, once per rule, the hypertree (Yannakakis) or the standard planner (000 section 5)."""
        from deltalog.plan.combined import choose_planners, rule_paths
        if mode not in HD_MODES:
            raise UsageError(f"hd must be one of {', '.join(HD_MODES)}, not {mode!r}")
        self.hd = mode
        self.reasoning.planners = choose_planners(self.analysed, mode)
        self.rule_paths = rule_paths(self.analysed, mode)

    @classmethod
    def open(cls, store: str | os.PathLike, *, writable: bool = False, wait: float = 0.0) -> "Reasoner":
        """The reasoner saved in a store directory (see ``save`` and ``deltalog init``), read from one
        consistent version. ``writable``: also hold the store's writer lock (waiting up to ``wait``
        seconds for another writer) until ``close()``, so that ``save`` cannot meet a conflict."""
        from deltalog.store import open_store
        try:
            return open_store(store, writable=writable, wait=wait)
        except OSError as error:
            raise InputError(f"cannot open the store {store}: {error.strerror or error}") from None

    def save(self, store: str | os.PathLike, *, event: Mapping[str, Any] | None = None, wait: float = 0.0) -> None:
        """Save program, facts and materialisation into a store directory (new, empty, or a store),
        atomically and durably (local backend). Saving back to the store the reasoner was opened from
        writes only what changed; it refuses if another writer updated the store meanwhile."""
        from deltalog.store import require_persistent, save_store
        require_persistent(self.backend)   # before a materialisation that could not be saved anyway
        if not self._materialised:
            self.materialise()
        text = self.source if self.source is not None else str(self.program)
        save_store(self, store, text, dict(event or {"event": "save"}), wait=wait)

    @property
    def store_link(self):
        """The store version this state matches (``deltalog.store.StoreLink``), or None."""
        return None if self.store_session is None else self.store_session.link

    def close(self) -> None:
        """Release the store's writer lock, if ``open(..., writable=True)`` took it."""
        if self.store_session is not None:
            self.store_session.release()

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

    def _table(self, predicate: str, data: Any, *, format: str | None = None) -> pl.DataFrame:
        """``as_table`` with the caller's mistakes (a missing file, ragged rows) as typed errors."""
        if isinstance(data, (str, os.PathLike)):
            self.inputs.append(Path(data))
        elif not isinstance(data, pl.DataFrame) and not type(data).__module__.startswith(("pandas", "pyarrow")):
            data = rows_of(predicate, data)
        try:
            return as_table(data, format=format, arity=self._arities.get(predicate),
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

    def load_tables(self, tables: Mapping[str, pl.DataFrame], *, source: str = "the data") -> int:
        """Add several predicates' facts at once; all arities are checked before anything is stored."""
        for predicate, table in tables.items():
            self._check_arity(predicate, table.width, source)
            self.loaded.setdefault(predicate, []).append(source)
        if self._materialised:
            result = self.update(add=tables)
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
        from deltalog.io.readers import read_facts_dir
        tables = read_facts_dir(directory, rdf_predicates=rdf_predicates, arities=self._arities,
                                declarations=self.declarations, rdf_map=rdf_map)
        self.inputs.append(Path(directory))
        loaded = self.load_tables(tables, source=f"the files of {Path(directory)}")
        for predicate in tables:   # name the files themselves in warnings (an RDF file: the directory)
            files = [str(f) for f in sorted(Path(directory).glob(predicate + ".*")) if f.stem == predicate]
            self.loaded[predicate][-1:] = files or [str(directory)]
        return loaded

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
               algorithm: str = "auto", strict: bool = False) -> UpdateResult:
        """Add and delete explicit facts (tables, paths or tuples per predicate) and bring the
        materialisation up to date incrementally; returns the facts added and removed per predicate
        (``result.added[p]`` is an empty frame for a known predicate that did not change).
        All or nothing: a bad batch (e.g. an arity clash) or a failure changes nothing. ``strict``:
        refuse facts of predicates neither the program nor the stored data knows (a misspelt file)."""
        if strict:
            self.check_update(add or {}, delete or {})
        add_tables = self._tables(add or {})
        delete_tables = self._tables(delete or {})
        if not self._materialised:
            self.materialise()
        for predicate, table in list(add_tables.items()) + list(delete_tables.items()):
            self._declare(predicate, table.width)
        self.reasoning.budget = self.limits.budget(self.fact_count())
        try:
            with recursion_headroom():
                result = apply_update(self.reasoning, add_tables, delete_tables, algorithm,
                                      check=self._check_derived)
        finally:
            self.reasoning.budget = None
        result.added.empty = result.removed.empty = self._no_changes
        return result

    def check_update(self, add: Mapping[str, Any], delete: Mapping[str, Any] = {}) -> None:
        """Raise UnknownPredicateError if the update names a predicate neither the program nor the
        stored data knows (``update(strict=True)`` and ``deltalog update`` call this)."""
        from deltalog.diagnostics import refuse_unknown
        refuse_unknown(add, self._arities, "cannot add")
        refuse_unknown(delete, self._arities, "cannot delete")

    def _no_changes(self, predicate: str) -> pl.DataFrame | None:
        arity = self._arities.get(predicate)
        return None if arity is None else pl.DataFrame(schema={f"c{i}": pl.Null for i in range(arity)})

    def _tables(self, data: Mapping[str, Any]) -> dict[str, pl.DataFrame]:
        """Decoded tables for an update, every arity checked before anything changes."""
        tables = {p: self._table(p, d) for p, d in data.items()}
        for predicate, table in tables.items():
            self._check_arity(predicate, table.width)
        return tables

    # ---- reasoning and reading -----------------------------------------------------------------

    def materialise(self, *, progress=None, on_round=None) -> Summary:
        """Compute every fact that follows from the program and the loaded facts. ``progress(stats)``
        is called after each stratum, ``on_round(live)`` after each round of a recursive one. All or
        nothing: when a limit (``self.limits``), memory or Ctrl-C stops it, no derived fact is kept."""
        before = self.fact_count()
        if not self._materialised:
            with recursion_headroom():
                materialise_or_roll_back(self.reasoning, progress=progress, on_round=on_round,
                                         offload=self.offload, budget=self.limits.budget(before))
            self._check_derived()
            self._materialised = True
        stats = self.reasoning.stats
        return Summary(self.fact_count() - before, stats.seconds, stats)

    def diagnostics(self) -> list:
        """Warnings about likely mistakes (UndefinedPredicateWarning): body and @output predicates that
        nothing defines (a typo, a forgotten --facts) and loaded predicates the program never mentions."""
        from deltalog.diagnostics import reasoner_diagnostics
        return reasoner_diagnostics(self)

    def _check_derived(self) -> None:
        """Derived facts in declared columns the analysis could not prove fit (algorithms/typecheck.py)."""
        if self.analysed.unproven:
            from deltalog.algorithms.typecheck import check_derived
            check_derived(self.analysed, self.backend)

    def predicates(self) -> dict[str, int]:
        """Every predicate of the program and the data, with its arity."""
        return dict(self._arities)

    def fact_count(self) -> int:
        return sum(self.backend.count(relation=p) for p in self._arities)

    def relation(self, predicate: str) -> pl.DataFrame:
        """All facts of a predicate (explicit and derived): columns c0..ck, or the declared names and types
        (``deltalog.io.declared.present``) for a predicate with a ``@decl``."""
        if predicate not in self._arities:
            raise UnknownPredicateError(f"unknown predicate {predicate!r}")
        self.materialise()   # never an empty frame for facts not derived yet
        table = self.backend.read(relation=predicate)
        decl = self.declarations.get(predicate)
        if decl is None or not decl.arity:
            return table
        from deltalog.io.declared import present
        return present(table, decl)

    def query(self, atom: str) -> pl.DataFrame:
        """The set of answers to a query atom such as ``path(1, Y)``: one column per named variable
        (``path(X, _)`` gives each X once); the program's ``@prefix``es may be used."""
        parsed = parse_atom(atom, prefixes=self.program.prefixes)
        arity = self._arities.get(parsed.predicate)
        if arity is None:
            raise QueryError(f"unknown predicate {parsed.predicate!r}", parsed.span)
        if arity != parsed.arity:
            raise QueryError(f"{parsed.predicate} has arity {arity}, the query has {parsed.arity}", parsed.span)
        self.materialise()
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
        """Write each predicate to OUT/<p>.<format>, all files together or none; returns the predicates
        written. Refuses a directory that holds the fact files this reasoner read."""
        from deltalog.diagnostics import refuse_overlap
        from deltalog.io.declared import parquet_columns
        from deltalog.io.writers import write_relations
        refuse_overlap(out_dir, self.inputs)
        chosen = list(predicates) if predicates is not None else self.derived_predicates()
        self.materialise()
        # declared predicates: string columns are written as they are, Parquet with the names and types
        ready = {p for p in chosen if format == "parquet" and getattr(self.declarations.get(p), "arity", 0)}
        tables = {p: parquet_columns(self.backend.read(relation=p), self.declarations[p]) if p in ready
                  else self.relation(p) for p in chosen}
        try:
            write_relations(tables, out_dir, format=format, ready=ready)
        except OSError as error:
            raise InputError(f"cannot write to {out_dir}: {error.strerror or error}") from None
        return chosen


def as_table(data: Any, *, format: str | None = None, arity: int | None = None, decl=None) -> pl.DataFrame:
    """A decoded table (columns c0..ck) from a path, a Polars/pandas/Arrow table, or rows of Python values.

    Values keep their kind (docs/semantics.md, Values from Python and tables): a ``str`` or a String
    column is a string whatever it spells, an int an int, a float a float, ``deltalog.IRI`` an IRI;
    ints beyond 64 bits, NaN, infinities and None are refused, naming the row and column. With
    ``format="cells"`` the String columns of a table are text cells instead (what ``relation()``
    returns for columns that are not all ints or all floats), so its output loads back unchanged.
    ``decl`` (a ``@decl``) types the columns by the declaration and matches table columns by name.
    """
    from deltalog.io.declared import checked
    if isinstance(data, (str, os.PathLike)):
        if (format or Path(data).suffix.lstrip(".").lower()) in ("nt", "ttl"):
            from deltalog.io.rdf import read_rdf
            return checked(read_rdf(data)["triple"], decl, str(data))
        from deltalog.io.readers import read_table
        return read_table(data, format=format, arity=arity, decl=decl)
    from deltalog.io.readers import values_frame
    if isinstance(data, pl.DataFrame):
        table = data
    elif type(data).__module__.startswith(("pandas", "pyarrow")):
        table = pl.from_pandas(data) if type(data).__module__.startswith("pandas") else pl.from_arrow(data)
    else:
        from deltalog.io.python_rows import rows_table
        return checked(rows_table(data, arity), decl, "the rows")
    if format == "cells":
        table = table.rename({n: f"{n}:cells" for n in table.columns if table[n].dtype == pl.String})
    return values_frame(table, "the table", decl)

