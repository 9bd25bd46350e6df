"""The Python API: a Reasoner holds a program, its facts and their materialisation.

Loading explicit facts (files, tables, DataFrames, rows) is in deltalog/loading.py.

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
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from deltalog.algorithms.context import Reasoning, Stats
from deltalog.algorithms.offload import default_policy
from deltalog.algorithms.seminaive import materialise_or_roll_back
from deltalog.analysis import analyse
from deltalog.backends.base import Backend
from deltalog.errors import InputError, QueryError, UnknownPredicateError, UsageError
from deltalog.io.int_columns import as_polars
from deltalog.limits import Limits, recursion_headroom
from deltalog.loading import FactLoading, as_table
from deltalog.plan import ir
from deltalog.plan.combined import DEFAULT_HD, HD_MODES
from deltalog.plan.rules import term
from deltalog.sources import make_backend, read_program
from deltalog.syntax.ast import Variable
from deltalog.syntax.statements import Program

if TYPE_CHECKING:   # Polars is imported where a frame is made: a run over int files never needs it
    import polars as pl
    from deltalog.algorithms.maintain import UpdateResult
    from deltalog.io.int_columns import ColumnTable

__all__ = ["Reasoner", "Summary", "as_table", "read_program"]


@dataclass
class Summary:
    """What a materialisation did: facts derived, seconds, and the detailed statistics."""

    derived: int
    seconds: float
    stats: Stats


class Reasoner(FactLoading):
    """A program plus facts; ``materialise()`` computes every consequence, ``query`` and ``relation`` read it."""

    def __init__(self, program: str | os.PathLike | Program, *, backend: str | Backend = "local",
                 extra_arities: Mapping[str, int] | None = None, offload: Any = "auto",
                 restore: Mapping[str, Any] | None = None, max_facts: int | None = None,
                 timeout: float | None = None, modules: str = "auto", hd: str = DEFAULT_HD) -> None:
        """``restore``: a store manifest (deltalog/store.py) whose state the backend already holds.
        ``modules``: ``auto`` lets closure modules (003; analysis/modules.py) evaluate the transitive and
        symmetric-transitive rules they recognise, ``none`` evaluates every recursive rule seminaively.
        ``hd``: which rules are planned over hypertree decompositions (``auto``, ``off``, ``all``;
        plan/combined.py, 000 section 5).
        ``max_facts``/``timeout``: limits of every materialisation and update (``limits``; see limits.py)."""
        self.limits = Limits(max_facts, timeout)
        self.program, self.source, self.base_dir = read_program(program)
        if restore is not None:
            extra_arities = {**dict(extra_arities or {}), **restore["arities"]}
        with recursion_headroom():
            self.analysed = analyse(self.program, extra_arities=dict(extra_arities or {}), modules=modules)
        self.modules = modules
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
    def open(cls, store: str | os.PathLike, *, writable: bool = False, wait: float = 0.0,
             modules: str = "auto") -> "Reasoner":
        """The reasoner saved in a store directory (see ``save`` and ``deltalog init``), read from one
        consistent version. ``writable``: also hold the store's writer lock (waiting up to ``wait``
        seconds for another writer) until ``close()``, so that ``save`` cannot meet a conflict."""
        from deltalog.store import open_store
        try:
            return open_store(store, writable=writable, wait=wait, modules=modules)
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
        self.reasoning.budget = self.limits.budget(self.fact_count)
        try:
            with recursion_headroom():
                from deltalog.algorithms.maintain import apply_update   # a run that updates nothing skips its imports
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
        import polars as pl
        arity = self._arities.get(predicate)
        return None if arity is None else pl.DataFrame(schema={f"c{i}": pl.Null for i in range(arity)})

    def _tables(self, data: Mapping[str, Any]) -> dict[str, pl.DataFrame | ColumnTable]:
        """Decoded tables for an update, every arity checked before anything changes (an IntTable
        stays one: the backends take it, the local one encodes it without Polars)."""
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
                                         offload=self.offload, budget=self.limits.budget(lambda: before))
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
        return as_polars(self._decoded(predicate))

    def _decoded(self, predicate: str) -> Any:
        """``relation()``'s table, except that an undeclared relation of ints may be an IntTable
        (the backend's decoded form, which writers take without Polars)."""
        if predicate not in self._arities:
            raise UnknownPredicateError(f"unknown predicate {predicate!r}")
        self.materialise()   # never an empty frame for facts not derived yet
        table = self.backend.read(relation=predicate)
        decl = self.declarations.get(predicate)
        if decl is None or not decl.arity:
            return table
        from deltalog.io.declared import present
        return present(as_polars(table), decl)

    def query(self, atom: str) -> pl.DataFrame:
        """The set of answers to a query atom such as ``path(1, Y)``: one column per named variable
        (``path(X, _)`` gives each X once); the program's ``@prefix``es may be used."""
        from deltalog.syntax.parser import parse_atom   # Lark: a run from a cached AST has not imported it
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

    def _parquet_columns(self, predicate: str):
        from deltalog.io.declared import parquet_columns
        return parquet_columns(as_polars(self.backend.read(relation=predicate)), self.declarations[predicate])

    def write(self, out_dir: str | os.PathLike, *, format: str = "tsv",
              predicates: Iterable[str] | None = None) -> list[str]:
        """Write each predicate to OUT/<p>.<format>, all files together or none; returns the predicates
        written. Refuses a directory that holds the fact files this reasoner read."""
        from deltalog.diagnostics import refuse_overlap
        from deltalog.io.writers import write_relations
        refuse_overlap(out_dir, self.inputs)
        chosen = list(predicates) if predicates is not None else self.derived_predicates()
        self.materialise()
        # declared predicates: string columns are written as they are, Parquet with the names and types
        ready = {p for p in chosen if format == "parquet" and (d := self.declarations.get(p)) is not None and d.arity}
        tables = {p: self._parquet_columns(p) if p in ready else self._decoded(p) for p in chosen}
        try:
            write_relations(tables, out_dir, format=format, ready=ready)
        except OSError as error:
            raise InputError(f"cannot write to {out_dir}: {error.strerror or error}") from None
        return chosen
