"""An ``Int64HashSet`` whose keys carry an int64 value each: the row id of a relation's tuple
(storage/tupleset.py, so that a deletion finds its rows by one hash probe, at any relation size), or
of a packed key (storage/rowmap.py). One open-addressing table serves both the sets and the maps:
rehashes, the sorted first batch and tombstones move or mark the values with their keys.

>>> m = Int64HashMap()
>>> m.add_absent(np.array([7, 9]), np.array([0, 1]))
>>> m.assign(np.array([7, 4]), np.array([2, 3]))     # 7 moves to 2, 4 is new
>>> m.values_of(np.array([7, 9, 4, 8])).tolist(), m.pop(np.array([9, 8, 9])).tolist(), len(m)
([2, 1, 3, -1], [1], 2)
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from deltalog.storage.hashset import EMPTY, SORTED_RUN_MIN, Int64HashSet, mix, strictly_increasing, tomb
from deltalog.storage.uniques import sorted_unique


TAKE_SLICE = 1 << 16
"""Keys probed at a time by ``taking_over`` (their arrays fit in cache)."""

SORTED_POP_PROBES = 16
"""A pop from a sorted first batch (``_pop_sorted``) counts as probes of 1/this of its keys: one pass over
them (~1 ns a key) against a probe's ~30-100 ns, so ~16 such pops before the table is built."""


class Int64HashMap(Int64HashSet):
    """Non-negative int64 keys -> int64 values, vectorised over batches (absent keys read as -1)."""

    def __init__(self, capacity_bits: int = 10) -> None:
        super().__init__(capacity_bits)
        self._values = np.zeros(1 << capacity_bits, np.int64)

    @classmethod
    def taking_over(cls, held: Int64HashSet, keys: np.ndarray | Callable[[int, int], np.ndarray],
                    values: np.ndarray) -> "Int64HashMap":
        """A map that takes over the table of a set, with a value for each key it holds (``keys``: all of
        them, or ``keys(lo, hi)``: those of values lo..hi-1, made a slice at a time). One probe of every key
        instead of placing them anew, a sort and a scatter (a relation's first deletion from 4.8M rows: ~0.4 s
        vs ~0.45-0.8 s), and no second table alive meanwhile."""
        table = cls()
        table._bits, table._table, table._size, table._tombs = held._bits, held._table, held._size, held._tombs
        table._sorted, table._sorted_probes, table._values = held._sorted, held._sorted_probes, None
        n = values.size
        key_slice = keys if callable(keys) else (lambda lo, hi: keys[lo:hi])
        if n != len(table):
            raise ValueError(f"{n} keys given for a set of {len(table)}")
        if table._sorted is None:
            # a slice at a time: the keys, their hashes and slots stay in cache between the passes over them
            # instead of streaming arrays of 38 MB each through memory (4.8M keys: 0.30-0.40 -> 0.26-0.29 s,
            # bench/notes/s23-h3/take_micro.py); the table and values are read and written at random either way
            table._values = np.zeros(table._table.size, np.int64)
            for lo in range(0, n, TAKE_SLICE):
                table._values[table._held_slots(key_slice(lo, min(lo + TAKE_SLICE, n)))] = values[lo:lo + TAKE_SLICE]
            return table
        all_keys = key_slice(0, n)
        if table._sorted.size == n and np.array_equal(table._sorted, all_keys):
            table._values = values.astype(np.int64, copy=True)   # the keys in the sorted batch's own order:
            return table   # a relation stored in key order (a loaded one: TupleSet.add_new), no probe at all
        slots = table._find(all_keys)   # (with no values yet: a sorted first batch may become a table here)
        if (slots < 0).any():
            raise ValueError("keys given that the set does not hold")
        table._values = np.zeros((table._table if table._sorted is None else table._sorted).size, np.int64)
        table._values[slots] = values
        return table

    def _held_slots(self, keys: np.ndarray) -> np.ndarray:
        """The slot of each key, all of them held: ``_find`` without its checks for empty slots and tombs
        in every round, only among the keys not at their home slot (4.8M keys: ~0.22 -> ~0.16 s)."""
        mask, table = (1 << self._bits) - 1, self._table
        slots = mix(keys, self._bits)
        current = table[slots]
        pending = np.flatnonzero(current != keys)
        current = current[pending]
        while pending.size:
            if (current == EMPTY).any():   # (a held key is met before any empty slot of its sequence)
                raise ValueError("keys given that the set does not hold")
            slots[pending] = (slots[pending] + 1) & mask
            current = table[slots[pending]]
            still = current != keys[pending]
            pending, current = pending[still], current[still]
        return slots

    def renumber(self, new_id: np.ndarray) -> None:
        """Replace each value v by ``new_id[v]`` (one gather: the keys and their slots stay)."""
        values = self._slot_values()
        held = slice(None) if self._sorted is not None else np.flatnonzero(self._table >= 0)
        values[held] = new_id[values[held]]

    def _slot_values(self) -> np.ndarray:
        assert self._values is not None, "a map's table always carries values"
        return self._values

    def values_of(self, keys: np.ndarray) -> np.ndarray:
        """The value of each key, -1 for keys not held."""
        slots = self._find(keys)
        return np.where(slots >= 0, self._slot_values()[np.maximum(slots, 0)], -1)

    def add_absent(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Insert keys known to be absent (and distinct) with their values."""
        if self._size == 0 and self._tombs == 0 and keys.size >= SORTED_RUN_MIN and strictly_increasing(keys):
            self._sorted, self._values = keys.copy(), values.astype(np.int64, copy=True)
            self._size, self._sorted_probes = keys.size, 0
            return
        self._build_table()
        if self._size == 0 and self._tombs == 0:
            self._reserve(keys.size)
            self._place(keys, values)
        elif keys.size:
            slots = self._claim(keys)
            self._slot_values()[slots] = values

    def assign(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Map each key to its value (keys distinct among themselves; a key already held takes the new one)."""
        slots = self._find(keys)
        held = slots >= 0
        self._slot_values()[slots[held]] = values[held]
        if not held.all():
            self.add_absent(keys[~held], values[~held])

    def pop(self, keys: np.ndarray) -> np.ndarray:
        """Remove the keys held (absent ones, and repeats, are ignored); return their values, in the order of
        the slots that held them."""
        if self._sorted is not None and self._sorted_probes + keys.size <= self._sorted.size:
            return self._pop_sorted(keys)
        self._build_table()
        slots = self._find(keys)
        # the distinct slots, sorted (storage/uniques.py): the tombs and values below are written and read
        # along the table, not at random (Claros-like, 587k keys from a 4.8M-key map: the pop
        # 80 -> 68 ms, against marking each slot by the last of its finders and reading the marks back)
        slots = sorted_unique(slots[slots >= 0])
        self._table[slots] = tomb(self._table[slots])
        self._size -= slots.size
        self._tombs += slots.size
        return self._slot_values()[slots]

    def _pop_sorted(self, keys: np.ndarray) -> np.ndarray:
        """``pop`` from a sorted first batch: the keys found leave the sorted keys and their values, which stay
        sorted: one sequential pass instead of placing every key in a table (``_build_table``, a sort by home
        slot and a scatter), which a store's relation paid at its first deletion in each process (a CLI
        update; docs/benchmarks.md, stop 22). Each such pass counts as probes of a sixteenth of the keys
        (``SORTED_POP_PROBES``), so a set popped update after update gets its table in the end."""
        held = self._sorted
        assert held is not None and self._values is not None
        if held.size == 0 or keys.size == 0:
            return np.empty(0, np.int64)
        at = np.minimum(np.searchsorted(held, keys), held.size - 1)
        at = sorted_unique(at[held[at] == keys])
        popped = self._values[at]
        keep = np.ones(held.size, bool)
        keep[at] = False
        self._sorted, self._values = held[keep], self._values[keep]
        self._size -= at.size
        self._sorted_probes += keys.size + held.size // SORTED_POP_PROBES
        if self._size == 0:   # (an empty table: reads of a set without keys expect one)
            self._sorted = None
            self._new_table(self._bits)
        return popped

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """The keys held and their values."""
        keys, values = self._held()
        assert values is not None, "a map's table always carries values"
        return keys, values
