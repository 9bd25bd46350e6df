"""Values computed once per object, remembered by the object's identity.

For analyses asked again on every update (which predicates a stratum's rules read, which feed a
generative rule) of objects that are not hashable or compare by value: the object is kept beside
its value, so its id cannot be reused by another object while the entry exists, and a hit is
checked by identity.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """``memo.get(owner, compute)``: ``compute()`` once per owner object; cleared past ``limit`` entries."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._found: dict[int, tuple[object, V]] = {}

    def get(self, owner: object, compute: Callable[[], V]) -> V:
        found = self._found.get(id(owner))
        if found is not None and found[0] is owner:
            return found[1]
        if len(self._found) > self.limit:
            self._found.clear()
        value = compute()
        self._found[id(owner)] = (owner, value)
        return value
