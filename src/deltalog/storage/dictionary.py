"""Dictionary encoding: every constant gets a dense int64 id once; relations hold only ids.

Ids are dense (0, 1, 2, ...) so relations can pack tuples into small keys and use
direct-addressed sets. Per id the dictionary keeps its kind, its numeric value (for
arithmetic and comparison without decoding to Python) and, for strings and IRIs, its text.

>>> d = Dictionary()
>>> ids = d.encode_ints(np.array([7, 3, 7]))
>>> ids.tolist(), d.decode(ids)
([1, 0, 1], [('int', 7), ('int', 3), ('int', 7)])
>>> d.encode_constant("string", "a"), d.lookup_constant("iri", "a")
(2, None)
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Iterator

import numpy as np

from deltalog.storage.growable import GrowableArray
from deltalog.storage.sorted_run import searchsorted_probes
from deltalog.storage.uniques import sorted_unique
from deltalog.storage.values import FLOAT, INT, IRI, KIND_CODES, KIND_NAMES, LITERAL, STRING

if TYPE_CHECKING:
    import polars as pl   # imported where a bulk lookup needs it: the dictionary serves small programs too


DENSE_SPAN_FACTOR = 4        # encode_ints addresses directly when max - min < 4 x values + 2^16
DENSE_SPAN_MIN = 1 << 16
FILL_SHARE = 2               # a new dense range is filled whole when half its ints occur (_encode_filled_range)
BULK_TEXTS = 4096            # text columns from this size on are looked up by Polars (a hash table in Rust) ...
BULK_SHARE = 4               # ... unless that kind's texts outnumber 4x the cells plus the dicts' backlog
TEXT_KINDS = (STRING, IRI, LITERAL)


class Dictionary:
    """Two-way map between constants (kind, value) and dense int64 ids."""

    def __init__(self) -> None:
        self.kinds = GrowableArray(np.uint8)
        self.ints = GrowableArray(np.int64)      # the value of INT ids (0 otherwise)
        self.numbers = GrowableArray(np.float64)  # numeric value of INT and FLOAT ids (nan otherwise)
        self.texts: list[str | None] = []
        self._int_keys = np.empty(0, np.int64)    # sorted int values ...
        self._int_ids = np.empty(0, np.int64)     # ... and their ids
        self._ids_ascend = True   # _int_ids[i] == _int_ids[0] + i: the ids of a range of ints follow by arithmetic
        self._by_value: dict[int, dict[object, int]] = {}   # kind -> value -> id, for non-ints
        self._in_dicts = 0      # ids below this are in ``_by_value`` (bulk encoding adds to the frames only)
        self._frames: dict[int, pl.DataFrame] = {}   # text kind -> (text, id) frame, for bulk encoding
        self._in_frames = 0     # ids below this are in ``_frames``

    def __len__(self) -> int:
        return len(self.texts)

    def numeric_ties(self) -> bool:
        """Whether an int and a float constant are both held (they may be equal numerically)."""
        kinds = self.kinds.view()
        return bool((kinds == FLOAT).any() and (kinds == INT).any())

    def ints_only(self) -> bool:
        """Whether every id is an int's (O(1): the sorted int keys hold one entry per int id)."""
        return self._int_keys.size == len(self.texts)

    def ints_ordered(self) -> bool:
        """Whether every id is an int's and a larger int has a larger id (a file's ints filled as one range,
        ``_encode_filled_range``): ids then compare as their values do, so min and max need no decoding."""
        return self._ids_ascend and self.ints_only()

    def int_offset(self) -> int | None:
        """The value less the id, the same for every id, when ``ints_ordered`` and the ints are a range with no
        gap (ids 0..n - 1 for ints k..k + n - 1: then k): ids decode by one addition, or none at all."""
        keys = self._int_keys
        if not self.ints_ordered() or not keys.size or int(keys[-1]) - int(keys[0]) != keys.size - 1:
            return None
        return int(keys[0]) - int(self._int_ids[0])

    def restore(self, kinds: np.ndarray, ints: np.ndarray, numbers: np.ndarray, texts: list) -> None:
        """Refill an empty dictionary from saved arrays (see storage/persist.py)."""
        self.kinds.extend(kinds)
        self.ints.extend(ints)
        self.numbers.extend(numbers)
        self.texts.extend(texts)
        int_ids = np.flatnonzero(kinds == INT)
        order = np.argsort(ints[int_ids], kind="stable")
        self._int_keys, self._int_ids = ints[int_ids][order], int_ids[order].astype(np.int64)
        self._ids_ascend = bool((np.diff(self._int_ids) == 1).all())
        for kind in (FLOAT, STRING, IRI, LITERAL):
            ids = np.flatnonzero(kinds == kind).tolist()
            values = numbers[ids].tolist() if kind == FLOAT else [texts[i] for i in ids]
            self._by_value[kind] = dict(zip(values, ids))
        self._in_dicts = len(self.texts)

    def _append(self, kind: int, ints: np.ndarray, numbers: np.ndarray, texts: list) -> np.ndarray:
        start = len(self.texts)
        self.kinds.extend(np.full(len(texts), kind, np.uint8))
        self.ints.extend(ints)
        self.numbers.extend(numbers)
        self.texts.extend(texts)
        return np.arange(start, len(self.texts), dtype=np.int64)

    def encode_ints(self, values: np.ndarray) -> np.ndarray:
        """Ids of int values, adding the unknown ones (vectorised)."""
        values = np.asarray(values, dtype=np.int64)
        if values.size == 0:
            return np.empty(0, np.int64)
        lo, hi = int(values.min()), int(values.max())
        keys = self._int_keys
        if keys.size and int(keys[0]) <= lo and hi <= int(keys[-1]) and int(keys[-1]) - int(keys[0]) == keys.size - 1:
            # the known ints are a range holding every value (ids from a counter): positions by subtraction,
            # no search (a 1,000-fact LUBM-like update: ~0.3 ms of binary searches in 272k keys); ids too
            # when they ascend with the ints (a filled range, _encode_filled_range): no gather
            at = values - keys[0]
            if not self._ids_ascend:
                return self._int_ids[at]
            at += self._int_ids[0]
            return at
        if hi - lo < DENSE_SPAN_FACTOR * values.size + DENSE_SPAN_MIN:
            return self._encode_dense_ints(values, lo, hi - lo + 1)
        unique = sorted_unique(values)
        at = np.minimum(np.searchsorted(keys, unique), max(keys.size - 1, 0))
        if keys.size and bool((keys[at] == unique).all()):   # all known (an update's facts): ids through the
            return self._int_ids[at][np.searchsorted(unique, values)]   # distinct values, no 2nd probe of all keys
        self._add_ints(unique)
        return self._int_ids[searchsorted_probes(self._int_keys, values)]

    def encode_int_columns(self, columns: list[np.ndarray]) -> list[np.ndarray]:
        """Ids of several int columns (a loaded relation's), encoded as one: the columns of a relation
        share most of their values (an edge's two ends), and one pass over their union costs less than
        merging each later column's new values into the sorted keys (1M x 2 ids: 12 vs 39 ms CPU)."""
        if len(columns) < 2:
            return [self.encode_ints(c) for c in columns]
        ids = self.encode_ints(np.concatenate(columns))
        return np.split(ids, np.cumsum([len(c) for c in columns[:-1]]))

    def _encode_dense_ints(self, values: np.ndarray, lo: int, span: int) -> np.ndarray:
        """``encode_ints`` for values in a range not much wider than their number (ids, counters,
        row numbers: the usual int columns): presence and ids by direct addressing, no sort."""
        offsets = values - lo if lo else values   # ids from 0 (the usual): values are their own offsets, no copy
        present = np.zeros(span, dtype=bool)
        present[offsets] = True
        start, stop = self._int_range(lo, span)
        if start == stop and FILL_SHARE * int(np.count_nonzero(present)) >= span:
            return self._encode_filled_range(offsets, lo, span)
        present[self._int_keys[start:stop] - lo] = False   # known: by address too, no search per value
        self._insert_fresh_ints(np.flatnonzero(present) + lo)
        start, stop = self._int_range(lo, span)
        table = np.empty(span, np.int64)   # only the present values' slots are read
        table[self._int_keys[start:stop] - lo] = self._int_ids[start:stop]
        return table[offsets]

    def _encode_filled_range(self, offsets: np.ndarray, lo: int, span: int) -> np.ndarray:
        """Ids of values in lo..lo + span - 1, none of which is known yet and at least 1/FILL_SHARE of which
        occur: every int of the range is added (the absent ones too), in order, so that a value's id is its
        offset plus the first new id: no id table to build and gather from (a file of 1M edges over 800k
        nodes: ~36 -> ~10 ms), and a later batch within the range (the node list of the same ids) takes
        ``encode_ints``' arithmetic path. The ints added that no fact holds are constants like any other
        (ids only grow: at most FILL_SHARE - 1 times as many as the values held)."""
        first = len(self.texts)
        self._insert_fresh_ints(np.arange(span, dtype=np.int64) + np.int64(lo))   # (lo + span may not fit 64 bits)
        if not lo:   # the offsets are the values themselves: a new array for the ids
            return offsets + np.int64(first)
        offsets += np.int64(first)
        return offsets

    def _int_range(self, lo: int, span: int) -> tuple[int, int]:
        """Where the known ints lo..lo + span - 1 are in the sorted keys (the last is hi, not lo + span: a
        range ending at the largest int64 would overflow)."""
        keys = self._int_keys
        return int(np.searchsorted(keys, np.int64(lo))), int(np.searchsorted(keys, np.int64(lo + span - 1), "right"))

    def _add_ints(self, unique_values: np.ndarray) -> None:
        if self._int_keys.size == 0:   # the first ints (a load): they are the sorted keys, nothing to merge
            self._insert_fresh_ints(unique_values)
            return
        pos = np.searchsorted(self._int_keys, unique_values)
        known = pos < self._int_keys.size
        known[known] = self._int_keys[pos[known]] == unique_values[known]
        self._insert_fresh_ints(unique_values[~known])

    def _insert_fresh_ints(self, fresh: np.ndarray) -> None:
        """Add ints none of which is known yet (sorted, distinct)."""
        if fresh.size == 0:
            return
        ids = self._append(INT, fresh, fresh.astype(np.float64), [None] * fresh.size)
        if self._int_keys.size == 0:   # the first ints (a load): they are the sorted keys, nothing to merge
            self._int_keys, self._int_ids, self._ids_ascend = fresh.copy(), ids, True
            return
        # both sorted and disjoint: a merge (np.insert at the insertion points), not a sort; ids still ascend
        # if the new ints all follow the known ones and their ids follow the known ints' last
        at = np.searchsorted(self._int_keys, fresh)
        self._ids_ascend = self._ids_ascend and int(at[0]) == self._int_keys.size and \
            int(ids[0]) == int(self._int_ids[-1]) + 1
        self._int_keys, self._int_ids = np.insert(self._int_keys, at, fresh), np.insert(self._int_ids, at, ids)

    def lookup_ints(self, values: np.ndarray) -> np.ndarray:
        """Ids of int values, -1 for values never seen (nothing is added)."""
        values = np.asarray(values, dtype=np.int64)
        if self._int_keys.size == 0:
            return np.full(values.size, -1, np.int64)
        pos = np.minimum(searchsorted_probes(self._int_keys, values), self._int_keys.size - 1)
        hit = self._int_keys[pos] == values
        return np.where(hit, self._int_ids[pos], -1)

    def encode_floats(self, values: np.ndarray) -> np.ndarray:
        """Ids of float values, adding the unknown ones."""
        values = np.asarray(values, dtype=np.float64) + 0.0   # -0.0 is 0.0
        return self._encode_objects(FLOAT, values.tolist())

    def encode_texts(self, kind: str, values) -> np.ndarray:
        """Ids of strings, IRIs or literals (``kind`` 'string', 'iri', 'literal'), adding the unknown ones."""
        return self._encode_objects(KIND_CODES[kind], list(values))

    def encode_text_column(self, kind: str, column: pl.Series) -> np.ndarray:
        """``encode_texts`` of a Polars String column without nulls: a large one (loading a file) is
        looked up by a hash join in Polars instead of one dict lookup per cell (docs/design.md)."""
        code = KIND_CODES[kind]
        if column.len() < BULK_TEXTS:   # a small update: the dicts, without touching the frames
            return self._encode_objects(code, column.to_list())
        self._sync_frames()
        known = self._frames.get(code)
        behind = len(self.texts) - self._in_dicts   # what the dict path would first have to catch up on
        if known is not None and known.height > BULK_SHARE * (column.len() + behind):
            return self._encode_objects(code, column.to_list())
        import polars as pl
        ids = (column.replace_strict(known["text"], known["id"], default=None, return_dtype=pl.Int64)
               if known is not None else pl.Series(np.full(column.len(), None), dtype=pl.Int64))
        if ids.null_count():
            unknown = ids.is_null()
            missing = column.filter(unknown)
            fresh = missing.unique(maintain_order=True)
            fresh_ids = self._append(code, np.zeros(fresh.len(), np.int64), np.full(fresh.len(), np.nan),
                                     fresh.to_list())
            added = pl.DataFrame({"text": fresh, "id": fresh_ids})
            self._frames[code] = added if known is None else pl.concat([known, added])
            self._in_frames = len(self.texts)
            ids = ids.scatter(unknown.arg_true(), missing.replace_strict(fresh, pl.Series(fresh_ids),
                                                                         return_dtype=pl.Int64))
        return ids.to_numpy()

    def encode_distinct_texts(self, kind: str, texts: list[str]) -> np.ndarray:
        """``encode_texts`` of distinct texts (a load's vocabulary, io/plain_cells.py): the first texts of
        their kind are all new and appended in one batch, without a lookup; otherwise they are looked up
        as a column (``encode_text_column`` once Polars is loaded, else the dicts: no 0.15 s import)."""
        code = KIND_CODES[kind]
        if not bool((self.kinds.view() == code).any()):
            return self._append(code, np.zeros(len(texts), np.int64), np.full(len(texts), np.nan), texts)
        if "polars" in sys.modules:
            import polars as pl
            return self.encode_text_column(kind, pl.Series(texts, dtype=pl.String))
        return self._encode_objects(code, texts)

    def _texts_since(self, start: int) -> Iterator[tuple[int, list[int], list[str | None]]]:
        """Per text kind, the ids from ``start`` on of that kind, and their texts."""
        kinds = self.kinds.view()[start:]
        for code in TEXT_KINDS:
            ids = (np.flatnonzero(kinds == code) + start).tolist()
            if ids:
                yield code, ids, [self.texts[i] for i in ids]

    def _sync_frames(self) -> None:
        """Bring the bulk-lookup frames up to the ids added since (by the dict path, or restored)."""
        if self._in_frames == len(self.texts):
            return
        import polars as pl
        for code, ids, texts in self._texts_since(self._in_frames):
            added = pl.DataFrame({"text": pl.Series(texts, dtype=pl.String), "id": pl.Series(ids, dtype=pl.Int64)})
            self._frames[code] = added if code not in self._frames else pl.concat([self._frames[code], added])
        self._in_frames = len(self.texts)

    def _sync_dicts(self) -> None:
        """Bring the lookup dicts up to the ids the bulk path added since."""
        if self._in_dicts == len(self.texts):
            return
        for code, ids, texts in self._texts_since(self._in_dicts):
            self._by_value.setdefault(code, {}).update(zip(texts, ids))
        self._in_dicts = len(self.texts)

    def _encode_objects(self, kind: int, values: list) -> np.ndarray:
        """Ids of floats, strings or IRIs: one dict lookup each, the unknown ones appended in one batch."""
        self._sync_dicts()
        table = self._by_value.setdefault(kind, {})
        next_id = len(self.texts)
        missing: list = []
        out = []
        for value in values:
            found = table.get(value)
            if found is None:
                found = table[value] = next_id
                next_id += 1
                missing.append(value)
            out.append(found)
        if missing:
            numbers = np.array(missing, np.float64) if kind == FLOAT else np.full(len(missing), np.nan)
            texts = [None] * len(missing) if kind == FLOAT else missing
            self._append(kind, np.zeros(len(missing), np.int64), numbers, texts)   # ids start..next_id-1
        self._in_dicts = len(self.texts)
        return np.array(out, np.int64)

    def encode_constant(self, kind: str, value) -> int:
        """The id of one constant, adding it if new."""
        if kind == "int":
            return int(self.encode_ints(np.array([value], np.int64))[0])
        if kind == "float":
            return int(self.encode_floats(np.array([value], np.float64))[0])
        return int(self.encode_texts(kind, [value])[0])

    def lookup_constant(self, kind: str, value) -> int | None:
        """The id of one constant, or None if it was never seen."""
        if kind == "int":
            found = int(self.lookup_ints(np.array([value], np.int64))[0])
            return None if found < 0 else found
        self._sync_dicts()
        return self._by_value.get(KIND_CODES[kind], {}).get(float(value) + 0.0 if kind == "float" else value)

    def decode(self, ids: np.ndarray) -> list[tuple[str, object]]:
        """(kind, value) pairs for ids: for the Python API, tests and small outputs."""
        kinds, ints, numbers = self.kinds.view(), self.ints.view(), self.numbers.view()
        out = []
        for i in np.asarray(ids, np.int64).tolist():
            kind = int(kinds[i])
            value = int(ints[i]) if kind == INT else float(numbers[i]) if kind == FLOAT else self.texts[i]
            out.append((KIND_NAMES[kind], value))
        return out
