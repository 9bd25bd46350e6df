"""The backend contract: what the algorithm layer may ask of a physical engine (local numpy, Spark).

Backends store relations of dictionary-encoded tuples stamped with the generation
that inserted them, execute relational-algebra plans (``deltalog.plan.ir``) and move
data in and out as decoded tables. They never see rules, strata or deltas: an
algorithm expresses "delta" and "old" as generation windows in its plans.
"""

from __future__ import annotations

from typing import Any, MutableMapping, Protocol, runtime_checkable

import polars as pl

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
               metrics: MutableMapping[str, int] | None = None) -> int:
        """Evaluate ``plan`` (columns c0..ck) and store its rows not in ``relation`` (among the rows
        not deleted), stamped with ``generation``; return how many."""

    def delete(self, *, relation: str, plan: Node, generation: int) -> int:
        """Evaluate ``plan`` and mark the matching live rows of ``relation`` deleted at ``generation``;
        return how many. Deleted rows stay readable through ``Scan(visible=...)`` / ``Scan(deleted=...)``."""

    def count(self, *, relation: str, since: int = 0, until: int | None = None,
              visible: int | None = None, deleted: tuple[int, int | None] | None = None) -> int:
        """Rows of ``relation`` that ``Scan(relation, ..., since, until, visible=..., deleted=...)`` reads."""

    def distinct(self, *, relation: str, positions: tuple[int, ...]) -> int | None:
        """Distinct values of the columns at ``positions`` (an estimate for planning; None if unknown)."""

    def load(self, *, relation: str, table: pl.DataFrame, generation: int) -> int:
        """Encode and store a table of values (int, float or text cells); return the new rows."""

    def evaluate(self, *, plan: Node) -> pl.DataFrame:
        """Evaluate a plan and decode it to a table (for queries and exports)."""

    def read(self, *, relation: str) -> pl.DataFrame:
        """The decoded rows of a relation, columns c0..ck."""

    def typed_rows(self, *, relation: str) -> set[tuple[tuple[str, object], ...]]:
        """The rows of a relation as exact (kind, value) tuples (for tests and small results)."""

    def memory_bytes(self) -> int:
        """Bytes held by stored relations, indexes and the dictionary (an estimate)."""

    def describe(self) -> dict[str, Any]:
        """Facts about the backend worth reporting in --stats."""
