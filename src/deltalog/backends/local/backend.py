"""The embedded backend: relations as numpy id columns with persistent indexes, in this process.

Relations are reached only through the stored-relation interface (storage/stored.py); each is
stored by the representation chosen at ``create_relation`` (storage/representations.py).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Mapping, MutableMapping

import numpy as np

from deltalog.backends.base import BatchLoading, ChoosesRepresentation, DeferredDecoding, EncodedColumns, Persistent
from deltalog.errors import InputError
from deltalog.plan.ir import Node
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.relation import Relation
from deltalog.storage.representations import DEFAULT, make_relation
from deltalog.storage.stored import WHOLE, StoredRelation, View, scan_all
from deltalog.io.int_columns import ColumnTable, IntTable
from deltalog.io.plain_cells import PlainTable, Vocabulary
from deltalog.io.text_table import SMALL_TEXT_CELLS, TextTable, small_enough
from deltalog.storage.values import INT
from deltalog.backends.local.execute import CHUNK_ROWS, Context, materialise, stream
from deltalog.backends.local.compose import set_projects
from deltalog.backends.local.memory import small_pages
from deltalog.backends.local.plain_codec import decode_plain, names_by_id
from deltalog.backends.local.tables import distinct_rows, int_arrays, int_ids_together, table_ids

if TYPE_CHECKING:  # imported where used: pyarrow costs ~0.1 s at startup, polars ~0.1 s (not needed for ints)
    import polars as pl
    import pyarrow as pa


def given_and_changed(columns: list[np.ndarray], changed: int) -> tuple[int, int]:
    """(distinct rows given, rows changed) of a batch stored or deleted as given. A given tuple changes one
    row at most (a relation holds it in one live row), so when every given row changed one the rows were
    distinct and are not sorted to count them (a 1,000-fact LUBM-like update: ~22 tables, all distinct)."""
    return (changed if changed == len(columns[0]) else distinct_rows(columns)), changed


class LocalBackend(EncodedColumns, Persistent, ChoosesRepresentation, BatchLoading, DeferredDecoding):
    """Runs plans with the vectorised numpy executor over in-memory relations (capabilities: see base.py)."""

    name = "local"

    def __init__(self, *, chunk_rows: int = CHUNK_ROWS, representation: str = DEFAULT) -> None:
        """``representation``: how relations are stored unless ``create_relation`` says otherwise."""
        self.dictionary = Dictionary()
        self._names: tuple[int, Vocabulary] | None = None   # the first loaded names' byte rows (plain_codec)
        self._relations: dict[str, StoredRelation] = {}
        self._chunk_rows = chunk_rows
        self.representation = representation
        make_relation(representation, "", 0)   # an unknown name fails here, not at the first relation

    def _context(self, metrics: MutableMapping[str, int] | None = None, writing: str | None = None,
                 sets: frozenset[int] = frozenset()) -> Context:
        return Context(self._relations, self.dictionary, metrics, self._chunk_rows, writing, set_projects=sets)

    def create_relation(self, *, relation: str, arity: int, representation: str | None = None) -> None:
        """Make an empty relation stored as ``representation`` (default: the backend's; see
        storage/representations.py); a no-op if it exists with this arity."""
        existing = self._relations.get(relation)
        if existing is None:
            self._relations[relation] = make_relation(representation or self.representation, relation, arity)
        elif existing.arity != arity:
            raise InputError(f"relation {relation} has arity {existing.arity}, not {arity}")

    def relations(self) -> dict[str, int]:
        return {name: r.arity for name, r in self._relations.items()}

    def insert(self, *, relation: str, plan: Node, generation: int,
               metrics: MutableMapping[str, int] | None = None, revive_since: int | None = None) -> int:
        target = self._relations[relation]
        names = plan.columns
        added = 0
        with small_pages():
            for frame in stream(plan, self._context(metrics, relation, set_projects(plan))):   # a set: see compose.py
                if frame.length:
                    columns = [frame.columns[n] for n in names] or [np.zeros(frame.length, np.int64)]
                    added += target.insert(columns, generation=generation, revive_since=revive_since)
        return added

    def rollback(self, *, relation: str, generation: int) -> None:
        self._relations[relation].rollback(generation)

    def compact(self, *, relation: str) -> None:
        # on 4 kB pages, as the executor: a compaction's fresh arrays (~300 MB for Claros-like relatedPlaces)
        # faulted in as huge pages in a process of ~2 GB cost 0.97 s against 0.62-0.66 (docs/benchmarks.md, stop 20)
        with small_pages():
            self._relations[relation].compact()

    def deleted_rows(self, *, relation: str) -> int:
        return self._relations[relation].deleted_rows

    def rename(self, *, relation: str, to: str) -> None:
        stored = self._relations.pop(relation)
        stored.name = to
        self._relations[to] = stored

    def drop(self, *, relation: str) -> None:
        self._relations.pop(relation, None)

    def clear(self, *, relation: str) -> None:
        stored = self._relations[relation]
        self._relations[relation] = make_relation(stored.representation, relation, stored.arity)

    def delete(self, *, relation: str, plan: Node, generation: int,
               metrics: MutableMapping[str, int] | None = None) -> int:
        target = self._relations[relation]
        names = plan.columns
        removed = 0
        with small_pages():
            for frame in stream(plan, self._context(metrics, relation)):
                if frame.length:
                    columns = [frame.columns[n] for n in names] or [np.zeros(frame.length, np.int64)]
                    removed += target.delete(columns, generation=generation)
        return removed

    def count(self, *, relation: str, since: int = 0, until: int | None = None,
              visible: int | None = None, deleted: tuple[int, int | None] | None = None) -> int:
        return self._relations[relation].count_view(View(since, until, visible, deleted))

    def distinct(self, *, relation: str, positions: tuple[int, ...]) -> int | None:
        return self._relations[relation].distinct_estimate(positions)

    def load(self, *, relation: str, table: pl.DataFrame | ColumnTable, generation: int) -> int:
        """Store a table's rows. Not under ``small_pages`` as the executor is: a load's arrays are few
        and mostly live for the run (columns, dictionary), and its large temporaries are the first
        use of memory the reader freed or the heap grows into, which huge pages fault in at one fault
        per 2 MB (1M edges: 11.7k -> 6.9k page faults, load phase ~10% less CPU; docs/benchmarks.md,
        Stop 16)."""
        columns = self._columns(relation, table)
        return self._relations[relation].insert(columns, generation=generation) if columns else 0

    def _columns(self, relation: str, table: pl.DataFrame | ColumnTable) -> list[np.ndarray] | None:
        """A table's rows as id columns for ``relation`` (None if it has none), encoding its values."""
        target = self._relations[relation]
        if table.width != target.arity:
            raise InputError(f"{relation} has arity {target.arity}, but the data has {table.width} columns")
        if table.height == 0:
            return None
        columns = table_ids(table, self.dictionary)
        if isinstance(table, PlainTable):   # the first loaded names' byte rows, for reading plain names back
            self._names = self._names or names_by_id(table.vocabulary)
        return columns

    def load_many(self, *, tables: Mapping[str, pl.DataFrame | IntTable | TextTable],
                  generation: int) -> dict[str, int]:
        """``load`` of each table, encoded at once (``_encoded``)."""
        with small_pages():
            return {name: self._relations[name].insert(columns, generation=generation) if columns else 0
                    for name, columns in self._encoded(tables).items()}

    def insert_tables(self, *, tables: Mapping[str, Any], generation: int) -> dict[str, tuple[int, int]]:
        """Each table's rows not live yet stored in the relation it is keyed by, as ``insert`` of a plan of
        them would; per relation (distinct rows given, rows stored)."""
        with small_pages():
            return {name: given_and_changed(columns, self._relations[name].insert(columns, generation=generation))
                    if columns else (0, 0) for name, columns in self._encoded(tables).items()}

    def delete_tables(self, *, tables: Mapping[str, Any], generation: int) -> dict[str, tuple[int, int]]:
        """Each table's live rows in the relation it is keyed by deleted, as ``delete`` of a plan of them
        would; per relation (distinct rows given, rows deleted)."""
        with small_pages():
            return {name: given_and_changed(columns, self._relations[name].delete(columns, generation=generation))
                    if columns else (0, 0) for name, columns in self._encoded(tables).items()}

    def _encoded(self, tables: Mapping[str, Any]) -> dict[str, list[np.ndarray] | None]:
        """``_columns`` of each table; the int columns of IntTables and of Polars frames of integers (an
        update's sides: Python rows of ints are IntTables, io/int_columns.int_rows) are encoded in one
        dictionary call and split, instead of one call per column."""
        plain = {name: columns for name, table in tables.items()
                 if table.height and table.width and table.width == self._relations[name].arity   # (else ``_columns``)
                 and (columns := int_arrays(table)) is not None}
        encoded = {name: self._columns(name, table) for name, table in tables.items() if name not in plain}
        return {**encoded, **int_ids_together(plain, self.dictionary)} if plain else encoded

    def evaluate(self, *, plan: Node) -> pl.DataFrame:
        frame, names = materialise(plan, self._context()), list(plan.columns)
        return decoded_frame([frame.columns[n] for n in names], names, frame.length, self.dictionary)

    def evaluate_later(self, *, plan: Node) -> tuple[int, Callable[[], pl.DataFrame]]:
        """The plan's rows as ids now (copies: a scan's columns may be views of the store), decoded when
        asked (the dictionary only grows, so their ids keep their values)."""
        frame, names = materialise(plan, self._context()), list(plan.columns)
        columns = [np.array(frame.columns[n]) for n in names]
        return frame.length, partial(decoded_frame, columns, names, frame.length, self.dictionary)

    def read(self, *, relation: str) -> pl.DataFrame | ColumnTable:
        """The decoded rows; an IntTable when there are some and every one is ints, a PlainTable when every
        one is a string written raw (io/plain_cells.py), a TextTable when they are few (io/text_table.py):
        all written without Polars."""
        stored = self._relations[relation]
        names = [f"c{i}" for i in range(stored.arity)]
        live, n = scan_all(stored)
        if n and stored.arity and self._all_ints(live):
            return IntTable(self._int_values(live))
        plain = decode_plain(live, self.dictionary, self._names) if n else None   # strings all written raw: no Polars
        if plain is not None:
            return plain
        if stored.arity and small_enough(n * stored.arity, SMALL_TEXT_CELLS):   # decoded without Polars
            from deltalog.backends.local.text_codec import decode_table
            return decode_table(live, self.dictionary)
        import polars as pl
        from deltalog.backends.local.codec import decode_frame
        if stored.arity == 0:
            return pl.DataFrame({"present": [True] * min(n, 1)})
        return decode_frame(live, names, self.dictionary)

    def _int_values(self, columns: list[np.ndarray]) -> list[np.ndarray]:
        """The ints of columns of int ids: gathered from the dictionary, or by one sequential addition when
        every id follows its int (``Dictionary.int_offset``: a run over a file of ids). New arrays either way,
        never views of the relation's storage: a Polars frame made of them shares their memory."""
        offset = self.dictionary.int_offset()
        if offset is None:
            ints = self.dictionary.ints.view()
            return [ints[c] for c in columns]
        return [c + offset for c in columns]

    def _all_ints(self, columns: list[np.ndarray]) -> bool:
        """Whether every id of the columns is an int's: a dictionary of ints alone answers for any
        columns, at once when it knows (``Dictionary.ints_only``), else in one pass over it when it is
        the smaller (sg-forest's output: 39k entries instead of 12.8M cells)."""
        if self.dictionary.ints_only():
            return True
        kinds = self.dictionary.kinds.view()
        if kinds.size <= sum(c.size for c in columns) and bool((kinds == INT).all()):
            return True
        return all(bool((kinds[c] == INT).all()) for c in columns)

    def typed_rows(self, *, relation: str) -> set[tuple[tuple[str, object], ...]]:
        """The rows of a relation as exact (kind, value) tuples (for tests and small results)."""
        stored = self._relations[relation]
        live, n = scan_all(stored)
        if stored.arity == 0:
            return {()} if n else set()
        decoded = [self.dictionary.decode(c) for c in live]
        return set(zip(*decoded))

    def id_columns(self, *, relation: str) -> list[np.ndarray]:
        """The encoded columns of a relation's live rows (the ``EncodedColumns`` capability: run-time
        type checks read the kinds of the ids, algorithms/typecheck.py)."""
        return scan_all(self._relations[relation])[0]

    def export_rows(self, *, relation: str, since: int = 0, until: int | None = None) -> pa.Table:
        import pyarrow as pa
        from deltalog.backends.tagged import tagged_of_ids
        stored = self._relations[relation]
        columns, n = scan_all(stored, View(since, until) if since or until is not None else WHOLE)
        if stored.arity == 0:
            return pa.table({"c0": pa.array([""] * min(n, 1), pa.string())})
        return pa.table({f"c{i}": tagged_of_ids(c, self.dictionary).to_arrow() for i, c in enumerate(columns)})

    def import_rows(self, *, relation: str, table: pa.Table, generation: int) -> int:
        target = self._relations[relation]
        if table.num_rows == 0:
            return 0
        if target.arity == 0:
            return target.insert([np.zeros(1, np.int64)], generation=generation)
        import polars as pl
        from deltalog.backends.tagged import ids_of_tagged
        cells = pl.from_arrow(table)
        assert isinstance(cells, pl.DataFrame)   # a table converts to a DataFrame
        with small_pages():
            columns = [ids_of_tagged(cells.to_series(i), self.dictionary) for i in range(target.arity)]
            return target.insert(columns, generation=generation)

    def relations_state(self) -> dict[str, Relation]:
        """The stored relations themselves, for saving (the ``Persistent`` capability; storage/persist.py
        saves the ``rows`` representation only)."""
        saved: dict[str, Relation] = {}
        for name, stored in self._relations.items():
            if not isinstance(stored, Relation):
                raise InputError(f"relation {name} is stored as {stored.representation!r}, which cannot be saved "
                                 f"(a store saves the {DEFAULT!r} representation only)")
            saved[name] = stored
        return saved

    @classmethod
    def from_parts(cls, dictionary: Dictionary, relations: dict[str, Relation]) -> "LocalBackend":
        """A backend holding a loaded dictionary and relations (see deltalog/store)."""
        backend = cls()
        backend.dictionary = dictionary
        backend._relations = dict(relations)
        return backend

    def memory_bytes(self) -> int:
        d = self.dictionary
        dictionary = d.kinds.view().nbytes + d.ints.view().nbytes + d.numbers.view().nbytes
        return dictionary + sum(r.nbytes() for r in self._relations.values())

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "constants": len(self.dictionary), "chunk_rows": self._chunk_rows}


def decoded_frame(columns: list[np.ndarray], names: list[str], length: int, dictionary: Dictionary) -> pl.DataFrame:
    """``evaluate``'s frame of id columns (a plan without columns: whether it has a row)."""
    import polars as pl
    from deltalog.backends.local.codec import decode_frame
    if not names:
        return pl.DataFrame({"present": [True] * min(length, 1)})
    return decode_frame(columns, names, dictionary)
