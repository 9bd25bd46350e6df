"""The stored-relation representations the local backend can choose from, by name (storage/stored.py).

>>> make_relation("rows", "e", 2).representation, sorted(REPRESENTATIONS)
('rows', ['rows', 'set'])
"""

from __future__ import annotations

from typing import Callable

from deltalog.errors import UsageError
from deltalog.storage.plainset import PlainSetRelation
from deltalog.storage.relation import Relation
from deltalog.storage.stored import StoredRelation

DEFAULT = "rows"
REPRESENTATIONS: dict[str, Callable[[str, int], StoredRelation]] = {"rows": Relation, "set": PlainSetRelation}
"""``rows``: append-only columns, indexes and a tuple set (every relation, by default; the only one the
store saves). ``set``: a plain dictionary of tuples, for small relations."""


def make_relation(representation: str, name: str, arity: int) -> StoredRelation:
    """An empty relation stored the given way."""
    factory = REPRESENTATIONS.get(representation)
    if factory is None:
        raise UsageError(f"unknown relation representation {representation!r} "
                         f"(available: {', '.join(sorted(REPRESENTATIONS))})")
    return factory(name, arity)
