"""Vectorised open-addressing hash sets of int64 keys: whole batches are probed and inserted at once.

A probe round handles every pending key with a few numpy operations; with the load
factor kept under one half, almost every key settles within two rounds, so a batch
costs O(batch), independent of how many keys the set already holds.

A set whose first batch arrives sorted (a relation's first load: TupleSet.new_rows hands over
sorted unique keys) keeps that batch as a sorted array and builds the table only when the set
changes again or has been probed about as often as it holds keys: loaded relations that are
never inserted into again (most EDB relations of a run) then never pay for a table
(docs/design.md, "Deferred hash table of a loaded relation").

>>> s = Int64HashSet()
>>> s.add_unique(np.array([5, 9, 12])).tolist()
[True, True, True]
>>> s.add_unique(np.array([9, 4])).tolist(), s.contains(np.array([4, 7])).tolist(), len(s)
([False, True], [True, False], 4)
"""

from __future__ import annotations

import numpy as np

EMPTY = np.int64(-1)
TOMB = np.int64(-2)   # a deleted key (storage/wide_rows.py's tables; here: ``tomb``)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
SORTED_RUN_MIN = 1 << 12
"""Smallest first batch kept as a sorted array (below it the table is cheap to build at once)."""
WINDOW_PENDING = 256
"""``_find`` probes slot by slot while more keys than this are pending, then ``WINDOW`` slots at once."""
WINDOW = 16


def mix(keys: np.ndarray, bits: int) -> np.ndarray:
    """Fibonacci hashing: the top ``bits`` bits of key * golden ratio, as int64 slot numbers."""
    # array arithmetic wraps silently, so no np.errstate (a context manager per call cost more than the hash)
    product = np.asarray(keys).astype(np.uint64, copy=False) * _GOLDEN
    return (product >> np.uint64(64 - bits)).astype(np.int64)


def tomb(keys: np.ndarray) -> np.ndarray:
    """The mark a deleted key leaves in its slot: -3 - key (below EMPTY and TOMB). Probing continues past
    another key's tomb; a key's own tomb ends its lookup (it is absent: a claim takes the first free slot
    of its probe sequence, so a live key precedes its tombs) and is a slot it may take back. A relation
    whose rows are deleted and added again (Claros-like: ~470k pairs an update) then finds and claims each
    in one probe, where an anonymous tomb sent both on to the next empty slot (docs/benchmarks.md, stop 19)."""
    return -3 - keys


def sort_with_positions(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted keys, their original positions): one SIMD sort of key and position packed together
    when they fit in 63 bits, else an argsort. The packed array is sorted and masked in place: three fresh
    arrays instead of six (4.8M keys on the executor's 4 kB pages: 0.137-0.142 -> 0.102-0.107 s, page faults)."""
    n = keys.size
    shift = max(int(n - 1).bit_length(), 1)
    if n and keys.min() >= 0 and int(keys.max()) < (1 << (62 - shift)):
        combined = np.left_shift(keys, shift, dtype=np.int64)   # (int64 whatever the keys' integer type)
        combined |= np.arange(n, dtype=np.int64)
        return sorted_halves(combined, shift)
    order = np.argsort(keys)
    return keys[order], order


def sorted_halves(combined: np.ndarray, shift: int) -> tuple[np.ndarray, np.ndarray]:
    """Sort ``combined`` (pairs packed as ``high << shift | low``, a fresh array) in place and split it:
    (the high parts, the low parts), the low parts masked in place (no other temporary)."""
    combined.sort()
    high = combined >> shift
    combined &= (1 << shift) - 1
    return high, combined


class Int64HashSet:
    """A set of non-negative int64 keys (``-1`` marks empty slots). The table may carry a value per key
    (``_values``, aligned with the slots, or with the sorted first batch): storage/hashmap.py's
    ``Int64HashMap`` sets it up, and every placement here moves the values along with their keys."""

    def __init__(self, capacity_bits: int = 10) -> None:
        self._bits = capacity_bits
        self._table = np.full(1 << capacity_bits, EMPTY, np.int64)
        self._values: np.ndarray | None = None
        self._size = 0
        self._tombs = 0
        self._sorted: np.ndarray | None = None   # the keys, while they are one sorted first batch
        self._sorted_probes = 0

    def __len__(self) -> int:
        return self._size

    def keys(self) -> np.ndarray:
        return self._held()[0]

    def _held(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The keys held, and their values (None for a plain set)."""
        if self._sorted is not None:
            return self._sorted, self._values
        held = self._table >= 0
        return self._table[held], None if self._values is None else self._values[held]

    def _new_table(self, bits: int) -> None:
        """An empty table of 2**bits slots (and values, if the table carries them)."""
        self._bits, self._table, self._size, self._tombs = bits, np.full(1 << bits, EMPTY, np.int64), 0, 0
        if self._values is not None:
            self._values = np.zeros(1 << bits, np.int64)

    def _build_table(self) -> None:
        """Move the keys of a sorted first batch into the table (the set is changing, or probed often)."""
        if self._sorted is not None:
            held, values = self._sorted, self._values
            self._sorted = None
            self._new_table(_bits_for(held.size, self._bits))
            self._place(held, values)

    def _find(self, keys: np.ndarray) -> np.ndarray:
        """The slot holding each key, or -1 (for a sorted run: the position in it)."""
        if self._size == 0:
            return np.full(keys.size, -1, np.int64)
        if self._sorted is not None:
            self._sorted_probes += keys.size
            if self._sorted_probes <= self._sorted.size:
                pos = np.minimum(np.searchsorted(self._sorted, keys), self._sorted.size - 1)
                return np.where(self._sorted[pos] == keys, pos, -1)
            self._build_table()
        slots = mix(keys, self._bits)
        mask = (1 << self._bits) - 1
        # the first round reads every key's home slot: no index of pending keys to gather through yet
        current = self._table[slots]
        hit = current == keys
        where = np.where(hit, slots, -1)
        pending = np.flatnonzero(~hit & (current != EMPTY) & (current != tomb(keys)))
        slots[pending] = (slots[pending] + 1) & mask
        while pending.size > WINDOW_PENDING:
            current, sought = self._table[slots[pending]], keys[pending]
            hit = current == sought
            where[pending[hit]] = slots[pending[hit]]
            pending = pending[~hit & (current != EMPTY) & (current != tomb(sought))]
            slots[pending] = (slots[pending] + 1) & mask
        if pending.size:
            self._find_in_windows(keys, slots, pending, where)
        return where

    def _find_in_windows(self, keys: np.ndarray, slots: np.ndarray, pending: np.ndarray, where: np.ndarray) -> None:
        """``_find`` for a few pending keys: ``WINDOW`` slots from each key's current slot at once, since
        one slot a round costs a round of numpy calls per slot of the longest probe sequence (9-16
        rounds for a batch of 4-50 keys in sets of 10^4-10^5 keys after an update's deletions)."""
        mask = (1 << self._bits) - 1
        offsets = np.arange(WINDOW, dtype=np.int64)
        while pending.size:
            window = (slots[pending, None] + offsets) & mask
            cells = self._table[window]
            sought = keys[pending, None]
            match = cells == sought
            stop = match | (cells == EMPTY) | (cells == tomb(sought))   # the key, an empty slot or its tomb
            first = stop.argmax(axis=1)
            rows = np.arange(pending.size)
            ended = stop[rows, first]
            found = ended & match[rows, first]
            where[pending[found]] = window[rows[found], first[found]]
            pending = pending[~ended]
            slots[pending] = (slots[pending] + WINDOW) & mask

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """Boolean mask: which keys are in the set."""
        return self._find(keys) >= 0

    def discard(self, keys: np.ndarray) -> None:
        """Remove keys (absent ones are ignored)."""
        self._build_table()
        slots = self._find(keys)
        slots = slots[slots >= 0]
        self._table[slots] = tomb(self._table[slots])
        self._size -= slots.size
        self._tombs += slots.size

    def add_unique(self, keys: np.ndarray) -> np.ndarray:
        """Insert keys that are distinct among themselves; mask of those that were not present (a set's
        insertion: a table carrying values takes keys with their values, ``Int64HashMap.add_absent``)."""
        if self._size == 0 and self._tombs == 0 and keys.size >= SORTED_RUN_MIN and strictly_increasing(keys):
            self._sorted, self._size, self._sorted_probes = keys.copy(), keys.size, 0
            return np.ones(keys.size, bool)
        self._build_table()
        if self._size == 0 and self._tombs == 0:
            self._reserve(keys.size)
            self._place(keys, None)
            return np.ones(keys.size, bool)
        if self._tombs:
            absent = self._find(keys) < 0
            self._claim(keys[absent])
            return absent
        return self._insert(keys)

    def _claim(self, keys: np.ndarray) -> np.ndarray:
        """Insert keys known to be absent (and distinct): each takes the first empty *or deleted* slot
        of its probe sequence, where a lookup finds it; return those slots. Claiming only empty slots
        (``_insert``), a relation whose rows are deleted and added again, update after update, filled
        its table with tombstones until a rehash of every key (a 130k-key set near its load limit: ~4 ms
        every few LUBM-like updates)."""
        self._reserve(keys.size)
        where = np.full(keys.size, -1, np.int64)
        table, mask = self._table, (1 << self._bits) - 1
        pending, slots = np.arange(keys.size), mix(keys, self._bits)
        while pending.size:
            pending_slots = slots[pending]
            current = table[pending_slots]
            free = current < 0   # empty, or a tomb
            claim, claim_slots = pending[free], pending_slots[free]
            table[claim_slots] = keys[claim]           # colliding claims: the last write wins
            won = table[claim_slots] == keys[claim]
            where[claim[won]] = claim_slots[won]
            self._tombs -= int(np.count_nonzero(current[free][won] != EMPTY))
            retry = np.concatenate([pending[~free], claim[~won]])
            slots[retry] = (slots[retry] + 1) & mask
            pending = retry
        self._size += keys.size
        return where

    def _insert(self, keys: np.ndarray) -> np.ndarray:
        """Insert distinct keys into a table without tombstones, finding the present ones on the way
        (no separate lookup); mask of the keys added."""
        self._reserve(keys.size)
        added = np.zeros(keys.size, bool)
        pending = np.arange(keys.size)
        slots = mix(keys, self._bits)
        mask = (1 << self._bits) - 1
        table = self._table
        while pending.size:
            pending_slots = slots[pending]
            current = table[pending_slots]
            empty = current == EMPTY
            claim, claim_slots = pending[empty], pending_slots[empty]
            table[claim_slots] = keys[claim]           # colliding claims: the last write wins
            won = table[claim_slots] == keys[claim]    # keys are distinct, so one winner per slot
            added[claim[won]] = True
            retry = np.concatenate([pending[~empty & (current != keys[pending])], claim[~won]])
            slots[retry] = (slots[retry] + 1) & mask
            pending = retry
        self._size += int(added.sum())
        return added

    def _reserve(self, extra: int) -> None:
        bits = _bits_for(self._size + extra, self._bits)
        if bits != self._bits or (self._size + self._tombs + extra) * 2 > (1 << bits):
            keys, values = self._held()
            self._new_table(bits)
            self._place(keys, values)

    def _place(self, keys: np.ndarray, values: np.ndarray | None) -> None:
        """Fill the empty table with distinct keys (and their values) in one pass: sorted by home slot,
        each key goes to the first slot at or after both its home and its predecessor's slot (position
        i + running maximum of home - i), which is where one-by-one linear probing would put them; only
        the few keys pushed past the table's end are inserted by probing (they wrap around). One sort
        instead of the probe rounds of ``_insert``: a rehash re-places every key."""
        if keys.size == 0:
            return
        if values is None:
            homes, keys = _by_home(keys, self._bits)
        else:
            homes, order = sort_with_positions(mix(keys, self._bits))
            keys, values = keys[order], values[order]
        slots = np.arange(homes.size, dtype=np.int64)
        slots += np.maximum.accumulate(homes - slots)
        fits = slots < self._table.size
        self._table[slots[fits]] = keys[fits]
        self._size += int(np.count_nonzero(fits))
        if values is not None and self._values is not None:
            self._values[slots[fits]] = values[fits]
        if not fits.all():
            wrapped = self._claim(keys[~fits])
            if values is not None and self._values is not None:
                self._values[wrapped] = values[~fits]

    def nbytes(self) -> int:
        held = 0 if self._sorted is None else self._sorted.nbytes
        return self._table.nbytes + held + (0 if self._values is None else self._values.nbytes)


def _bits_for(keys: int, bits: int) -> int:
    """The fewest table bits, at least ``bits``, that hold ``keys`` keys at load at most one half."""
    while keys * 2 > (1 << bits):
        bits += 1
    return bits


def _by_home(keys: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(home slots sorted, the keys in that order): home and key packed into one int64 and sorted
    when they fit (no gather of the keys in a random order afterwards), else by positions."""
    homes = mix(keys, bits)
    key_bits = int(keys.max()).bit_length()
    if bits + key_bits <= 63:
        homes <<= key_bits   # (in place: ``mix`` made it)
        homes |= keys
        return sorted_halves(homes, key_bits)
    homes, order = sort_with_positions(homes)
    return homes, keys[order]


def strictly_increasing(keys: np.ndarray) -> bool:
    return bool(np.all(keys[1:] > keys[:-1]))
