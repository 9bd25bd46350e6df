"""The backend contract: what the algorithm layer may ask of a physical engine (local numpy, Spark).

Backends store relations of dictionary-encoded tuples stamped with the generation
that inserted them, execute relational-algebra plans (``deltalog.plan.ir``) and move
data in and out as decoded tables. They never see rules, strata or deltas: an
algorithm expresses "delta" and "old" as generation windows in its plans.

What only some backends can do is declared as an optional *capability*, a Protocol of its own
(``FrameLoading``, ``BatchLoading``, ``Persistent``, ``EncodedColumns``, ``Offloading``,
``ChoosesRepresentation``):
callers test ``isinstance(backend, Capability)``, never a backend's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, MutableMapping, Protocol, runtime_checkable

if TYPE_CHECKING:   # annotations only: importing the contract must not load polars/pyarrow (start-up time)
    import polars as pl

    from deltalog.io.int_columns import ColumnTable
    import pyarrow as pa

    from deltalog.plan.ir import Node


@runtime_checkable
class Backend(Protocol):
    """A physical engine. All methods take keyword arguments only, so call sites read clearly."""

    name: str

    def create_relation(self, *, relation: str, arity: int) -> None:
        """Make an empty stored relation (a no-op if it exists with this arity)."""

    def relations(self) -> dict[str, int]:
        """Stored relations and their arities."""

    def insert(self, *, relation: str, plan: Node, generation: int,
               metrics: MutableMapping[str, int] | None = None, revive_since: int | None = None) -> int:
        """Evaluate ``plan`` (columns c0..ck) and store its rows not in ``relation`` (among the rows
        not deleted), stamped with ``generation``; return how many. With ``revive_since``, a row
        deleted at a generation >= revive_since is brought back instead (keeping its insertion
        generation) rather than stored again."""

    def clear(self, *, relation: str) -> None:
        """Empty a relation (used for scratch relations that hold one round's facts)."""

    def rename(self, *, relation: str, to: str) -> None:
        """Give a relation another name (``to`` must not exist)."""

    def drop(self, *, relation: str) -> None:
        """Forget a relation altogether (scratch relations, once an update is done)."""

    def rollback(self, *, relation: str, generation: int) -> None:
        """Undo every insert and delete made at generations >= ``generation`` (atomic updates)."""

    def compact(self, *, relation: str) -> None:
        """Drop deleted rows for good (they are no longer readable through any view)."""

    def deleted_rows(self, *, relation: str) -> int:
        """How many deleted rows a relation still keeps (to decide when to compact)."""

    def delete(self, *, relation: str, plan: Node, generation: int,
               metrics: MutableMapping[str, int] | None = None) -> int:
        """Evaluate ``plan`` and mark the matching live rows of ``relation`` deleted at ``generation``;
        return how many. Deleted rows stay readable through ``Scan(visible=...)`` / ``Scan(deleted=...)``."""

    def count(self, *, relation: str, since: int = 0, until: int | None = None,
              visible: int | None = None, deleted: tuple[int, int | None] | None = None) -> int:
        """Rows of ``relation`` that ``Scan(relation, ..., since, until, visible=..., deleted=...)`` reads."""

    def distinct(self, *, relation: str, positions: tuple[int, ...]) -> int | None:
        """Distinct values of the columns at ``positions`` (an estimate for planning; None if unknown)."""

    def load(self, *, relation: str, table: pl.DataFrame | ColumnTable, generation: int) -> int:
        """Encode and store a table of values (int, float or text cells; also an IntTable, PlainTable or TextTable,
        from ``deltalog.io.formats.read_decoded``, on a backend that does not load frames itself); return
        the new rows."""

    def evaluate(self, *, plan: Node) -> pl.DataFrame:
        """Evaluate a plan and decode it to a table (for queries and exports)."""

    def read(self, *, relation: str) -> pl.DataFrame | ColumnTable:
        """The decoded rows of a relation, columns c0..ck: a DataFrame, or an IntTable (a backend may
        give one when every column holds ints), a PlainTable (every value a string written raw) or a
        TextTable (a few cells); ``deltalog.io.int_columns.as_polars`` converts any of them."""

    def typed_rows(self, *, relation: str) -> set[tuple[tuple[str, object], ...]]:
        """The rows of a relation as exact (kind, value) tuples (for tests and small results)."""

    def export_rows(self, *, relation: str, since: int = 0, until: int | None = None) -> pa.Table:
        """The live rows of ``relation`` inserted at generations ``since <= g < until``, exactly, as tagged
        text (``deltalog.backends.tagged``: kind prefix i/f/s/r + text form), columns c0..ck (arity 0:
        one column c0 of empty strings, one row if the fact holds). For moving facts between backends."""

    def import_rows(self, *, relation: str, table: pa.Table, generation: int) -> int:
        """Store rows given as ``export_rows`` gives them (those not live yet), stamped with ``generation``;
        return how many."""

    def memory_bytes(self) -> int:
        """Bytes held by stored relations, indexes and the dictionary (an estimate)."""

    def describe(self) -> dict[str, Any]:
        """Facts about the backend worth reporting in --stats."""


# ---- optional capabilities ---------------------------------------------------------------------------

@runtime_checkable
class BatchLoading(Protocol):
    """Several tables loaded in one call, as ``load`` would each: an update's sides are many small tables
    (a 1,000-fact LUBM-like update: ~26, ~50 columns), whose encoding costs mostly its fixed part per
    column (the local backend encodes their int columns at once: 0.76 -> 0.19 ms)."""

    def load_many(self, *, tables: Mapping[str, Any], generation: int) -> dict[str, int]:
        """``load`` of each table into the relation it is keyed by; the new rows per relation."""

    def insert_tables(self, *, tables: Mapping[str, Any], generation: int) -> dict[str, tuple[int, int]]:
        """Each table's rows ``insert``-ed into the relation it is keyed by (without a scratch relation
        and a plan: the explicit additions of a predicate no rule derives, none of whose rows the update
        deleted, so none is revived); per relation (distinct rows given, rows stored)."""

    def delete_tables(self, *, tables: Mapping[str, Any], generation: int) -> dict[str, tuple[int, int]]:
        """Each table's rows ``delete``-d from the relation it is keyed by; per relation (distinct rows
        given, rows deleted)."""


@runtime_checkable
class DeferredDecoding(Protocol):
    """A plan's rows taken now and decoded into ``evaluate``'s frame only when asked for: an update's
    changes are read off into a frame per changed predicate (~30 for a 1,000-fact LUBM-like deletion,
    ~20-30 us each in Polars), which callers often never read (algorithms/changes.py)."""

    def evaluate_later(self, *, plan: Node) -> tuple[int, Callable[[], Any]]:
        """The plan's row count, and a function making the frame ``evaluate`` would have made now (the
        rows are taken now: whatever the store does next, it makes the same frame)."""


@runtime_checkable
class FrameLoading(Protocol):
    """Facts can arrive as distributed DataFrames and be read on the executors (the Spark backend):
    ``Reasoner.load_frames``, and ``load_directory`` before the first materialisation."""

    spark: Any
    """The session whose readers load fact directories (backends/spark/io.py)."""

    def load_frame(self, *, relation: str, data: Any, generation: int, tagged: bool = False) -> int:
        """Store a DataFrame of values (``tagged``: already in the backend's physical form); return the new rows."""

    def frame(self, *, relation: str) -> Any:
        """The live rows of a relation as a DataFrame of the physical columns (None if empty)."""


@runtime_checkable
class EncodedColumns(Protocol):
    """Relations are dictionary-encoded id columns in this process (the local backend), so per-value work
    such as run-time type checks (algorithms/typecheck.py) reads ids and the dictionary directly."""

    dictionary: Any
    """The ``storage.dictionary.Dictionary`` every id refers to."""

    def id_columns(self, *, relation: str) -> list[Any]:
        """The id columns (NumPy arrays) of a relation's live rows."""


@runtime_checkable
class Persistent(Protocol):
    """The state can be saved into a store and restored from one (deltalog/store, storage/persist.py)."""

    dictionary: Any

    def relations_state(self) -> dict[str, Any]:
        """The stored relations themselves, for saving (raises InputError if one cannot be saved)."""

    @classmethod
    def from_parts(cls, dictionary: Any, relations: dict[str, Any]) -> Any:
        """A backend holding a loaded dictionary and relations."""


@runtime_checkable
class Offloading(Protocol):
    """Every evaluation round costs a fixed overhead whatever its size (a distributed job), so strata over
    little data are better run on an embedded backend and copied back (algorithms/offload.py)."""

    round_overhead_seconds: float
    """About what one round costs on an idle cluster (for reports; the policy decides by row counts)."""


@runtime_checkable
class ChoosesRepresentation(Protocol):
    """Relations can be stored in more than one way (storage/representations.py), chosen with
    ``create_relation(..., representation=...)``; ``representation`` is the backend's default."""

    representation: str

    def create_relation(self, *, relation: str, arity: int, representation: str | None = None) -> None:
        """Make an empty relation stored as ``representation`` (a no-op if it exists with this arity)."""


def embedded_backend() -> Backend:
    """A fresh in-process backend: where an ``Offloading`` backend's small strata run."""
    from deltalog.backends.local.backend import LocalBackend
    return LocalBackend()
