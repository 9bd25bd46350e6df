"""Decoded values of id columns (``Vals``): parallel arrays of kind, int value, float value and text,
made from dictionary ids or constants and encoded back to ids, for the vectorised expressions and
aggregates (backends/local/expressions.py, aggregate.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deltalog.storage.dictionary import Dictionary
from deltalog.storage.values import FLOAT, INT, KIND_CODES, KIND_NAMES, STRING


@dataclass
class Vals:
    """Decoded values of n rows; ``valid`` is False where the expression has no value."""

    kind: np.ndarray
    i: np.ndarray
    f: np.ndarray
    text: np.ndarray
    valid: np.ndarray

    @property
    def numeric(self) -> np.ndarray:
        return (self.kind == INT) | (self.kind == FLOAT)


_TWO_63 = 2.0**63


def residuals(kind: np.ndarray, i: np.ndarray, f: np.ndarray) -> np.ndarray:
    """What an int exceeds its nearest double by (0 for floats and other values), exactly.

    Numbers compare by their exact value (docs/semantics.md): beyond 2^53 an int and its nearest
    double differ (9007199254740993 > 9007199254740992.0), so the double alone is no order key.
    (double, residual) is one: the double orders numbers whose doubles differ (rounding is monotonic)
    and the residual those with the same double."""
    out = np.zeros(kind.size, np.int64)
    ints = np.flatnonzero(kind == INT)
    if ints.size:
        value, nearest = i[ints], f[ints]
        top = nearest >= _TWO_63   # the double of an int near 2^63 - 1 is 2^63, not an int64
        whole = np.where(top, 0.0, nearest).astype(np.int64)
        out[ints] = np.where(top, (value - 2**62) - 2**62, value - whole)
    return out


def decode_ids(ids: np.ndarray, d: Dictionary) -> Vals:
    """Values of dictionary ids."""
    kinds = d.kinds.view()[ids]
    text = np.full(ids.size, None, object)
    textual = np.flatnonzero(kinds >= STRING)
    if textual.size:
        texts = d.texts
        text[textual] = [texts[j] for j in ids[textual].tolist()]
    return Vals(kinds, d.ints.view()[ids], d.numbers.view()[ids], text, np.ones(ids.size, bool))


def decode_ints(ids: np.ndarray, d: Dictionary) -> np.ndarray | None:
    """The int values of ids when every one is an int, else None (no float or text columns made)."""
    return d.ints.view()[ids] if bool((d.kinds.view()[ids] == INT).all()) else None


def encode_vals(v: Vals, d: Dictionary) -> np.ndarray:
    """Dictionary ids of valid values (invalid rows get -1)."""
    out = np.full(v.kind.size, -1, np.int64)
    for kind in KIND_NAMES:
        rows = np.flatnonzero(v.valid & (v.kind == kind))
        if rows.size == 0:
            continue
        if kind == INT:
            out[rows] = d.encode_ints(v.i[rows])
        elif kind == FLOAT:
            out[rows] = d.encode_floats(v.f[rows])
        else:
            out[rows] = d.encode_texts(KIND_NAMES[kind], v.text[rows].tolist())
    return out


def constant_vals(kind: str, value, n: int) -> Vals:
    """n copies of one constant."""
    code = KIND_CODES[kind]
    text = np.full(n, value if code >= STRING else None, object)
    i = np.full(n, value if code == INT else 0, np.int64)
    f = np.full(n, float(value) if code <= FLOAT else np.nan, np.float64)
    return Vals(np.full(n, code, np.uint8), i, f, text, np.ones(n, bool))


def make_ints(values: np.ndarray, valid: np.ndarray) -> Vals:
    n = values.size
    return Vals(np.full(n, INT, np.uint8), values.astype(np.int64), values.astype(np.float64),
                np.full(n, None, object), valid)


def make_floats(values: np.ndarray, valid: np.ndarray) -> Vals:
    n = values.size
    return Vals(np.full(n, FLOAT, np.uint8), np.zeros(n, np.int64), values.astype(np.float64),
                np.full(n, None, object), valid & np.isfinite(values))
