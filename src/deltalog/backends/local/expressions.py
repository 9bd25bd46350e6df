"""Vectorised evaluation of IR expressions over id columns: decode, compute, re-encode.

Values of a column are decoded into parallel arrays (kind, int value, float value, text: ``Vals``,
backends/local/decoded.py), computed on with numpy masks per kind, and encoded back to ids. A row
whose expression has no value (division by zero, wrong kind, int overflow) is marked invalid, and
the operator that asked drops it, as docs/semantics.md says.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Callable

import numpy as np

from deltalog.plan.ir import Arith, Col, Compare, Func, Lit
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.values import FLOAT, INT, IRI, KIND_NAMES, STRING, parse_number_text, value_text
from deltalog.backends.local.decoded import Vals, constant_vals, decode_ids, make_floats, make_ints, residuals
from deltalog.backends.local.frame import Frame

_INT_LIMIT = float(2**63)


@singledispatch
def evaluate(expr, frame: Frame, d: Dictionary) -> Vals:
    raise TypeError(f"cannot evaluate {expr!r}")


@evaluate.register
def _col(expr: Col, frame: Frame, d: Dictionary) -> Vals:
    return decode_ids(frame.columns[expr.name], d)


@evaluate.register
def _lit(expr: Lit, frame: Frame, d: Dictionary) -> Vals:
    return constant_vals(expr.constant.kind, expr.constant.value, frame.length)


@evaluate.register
def _arith(expr: Arith, frame: Frame, d: Dictionary) -> Vals:
    a, b = evaluate(expr.left, frame, d), evaluate(expr.right, frame, d)
    if expr.op == "+" and ((a.kind == STRING) & (b.kind == STRING)).any():
        return _plus_with_strings(a, b)
    return arithmetic(expr.op, a, b)


def arithmetic(op: str, a: Vals, b: Vals) -> Vals:
    """a op b for numbers: exact on ints (overflow is invalid), IEEE on floats."""
    both_int = (a.kind == INT) & (b.kind == INT)
    valid = a.valid & b.valid & a.numeric & b.numeric
    if op == "/":
        return make_floats(_float_op(op, a.f, b.f, valid), valid & (b.f != 0))
    ints, int_ok = _int_op(op, a.i, b.i)
    floats = _float_op(op, a.f, b.f, valid)
    if op == "%":
        valid &= b.f != 0
    out = make_floats(floats, valid)
    out.kind = np.where(both_int, INT, FLOAT).astype(np.uint8)
    out.i = np.where(both_int, ints, 0)
    out.f = np.where(both_int, ints.astype(np.float64), floats)
    out.valid = valid & np.where(both_int, int_ok, np.isfinite(floats))
    return out


def _int_op(op: str, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if op == "+":
            r = x + y
            return r, ((x ^ r) & (y ^ r)) >= 0
        if op == "-":
            r = x - y
            return r, ((x ^ y) & (x ^ r)) >= 0
        if op == "*":
            r = x * y
            exact = np.abs(x.astype(np.float64) * y.astype(np.float64)) < _INT_LIMIT
            safe_y = np.where(x != 0, x, 1)
            return r, exact & ((x == 0) | (r // safe_y == y))
        safe = np.where(y != 0, y, 1)
        return np.remainder(x, safe), y != 0


def _float_op(op: str, x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            return np.where(y != 0, x / np.where(y != 0, y, 1), np.nan)
        return np.where(y != 0, np.remainder(x, np.where(y != 0, y, 1)), np.nan)


def _plus_with_strings(a: Vals, b: Vals) -> Vals:
    strings = (a.kind == STRING) & (b.kind == STRING) & a.valid & b.valid
    out = arithmetic("+", a, b)
    rows = np.flatnonzero(strings)
    out.kind[rows] = STRING
    out.text[rows] = [x + y for x, y in zip(a.text[rows].tolist(), b.text[rows].tolist())]
    out.valid[rows] = True
    return out


@evaluate.register
def _func(expr: Func, frame: Frame, d: Dictionary) -> Vals:
    args = [evaluate(arg, frame, d) for arg in expr.args]
    return FUNCTIONS[expr.name](*args)


def _abs(a: Vals) -> Vals:
    out = Vals(a.kind.copy(), np.abs(a.i), np.abs(a.f), a.text, a.valid & a.numeric)
    out.valid &= (a.kind != INT) | (a.i != np.iinfo(np.int64).min)
    return out


def _pick(take_first: np.ndarray, a: Vals, b: Vals) -> Vals:
    w = take_first
    return Vals(np.where(w, a.kind, b.kind).astype(np.uint8), np.where(w, a.i, b.i), np.where(w, a.f, b.f),
                np.where(w, a.text, b.text), a.valid & b.valid)


def _min(a: Vals, b: Vals) -> Vals:
    return _pick(order_compare("<=", a, b, tie_break=True), a, b)


def _max(a: Vals, b: Vals) -> Vals:
    return _pick(order_compare(">=", a, b, tie_break=True), a, b)


def texts_of(a: Vals) -> list[str]:
    return [value_text(KIND_NAMES[k], t if k >= STRING else (i if k == INT else f))
            for k, i, f, t in zip(a.kind.tolist(), a.i.tolist(), a.f.tolist(), a.text.tolist())]


def _strings(texts: list[str], valid: np.ndarray) -> Vals:
    n = len(texts)
    return Vals(np.full(n, STRING, np.uint8), np.zeros(n, np.int64), np.full(n, np.nan),
                np.array(texts + [None], object)[:n], valid)


def _concat(*args: Vals) -> Vals:
    parts = [texts_of(a) for a in args]
    valid = np.logical_and.reduce([a.valid for a in args])
    return _strings(["".join(row) for row in zip(*parts)], valid)


def _str(a: Vals) -> Vals:
    return _strings(texts_of(a), a.valid.copy())


def _from_text(a: Vals, wanted: int) -> Vals:
    """int(x) / float(x): numbers convert, strings convert when they read as a number."""
    n = a.kind.size
    out = make_ints(np.zeros(n, np.int64), np.zeros(n, bool)) if wanted == INT else \
        make_floats(np.zeros(n), np.zeros(n, bool))
    for row, (k, i, f, t) in enumerate(zip(a.kind.tolist(), a.i.tolist(), a.f.tolist(), a.text.tolist())):
        value = _convert(k, i, f, t, wanted)
        if value is not None and a.valid[row]:
            out.i[row], out.f[row], out.valid[row] = (value, value, True) if wanted == INT else (0, value, True)
    return out


def _convert(kind: int, i: int, f: float, text, wanted: int):
    if kind == STRING:
        _, parsed = parse_number_text(text.strip())   # an int, a float, or the text (no number)
        if isinstance(parsed, int):
            kind, i, f = INT, parsed, 0.0
        elif isinstance(parsed, float) and wanted == INT:
            return None   # int("1.5"): only a string that reads as an int has an int (semantics.md)
        elif isinstance(parsed, float):
            kind, i, f = FLOAT, 0, parsed
        else:
            kind, i, f = IRI, 0, 0.0
    if kind == INT:
        return i if wanted == INT else float(i)
    if kind == FLOAT and np.isfinite(f):
        return (int(f) if abs(f) < _INT_LIMIT else None) if wanted == INT else f
    return None


FUNCTIONS: dict[str, Callable[..., Vals]] = {
    "abs": _abs, "min": _min, "max": _max, "concat": _concat, "str": _str,
    "int": lambda a: _from_text(a, INT), "float": lambda a: _from_text(a, FLOAT),
}


def _rank(v: Vals) -> np.ndarray:
    """Kind group of the total order: numbers 0, strings 1, IRIs 2, literals 3."""
    return np.where(v.kind <= FLOAT, 0, v.kind.astype(np.int64) - 1)


def order_compare(op: str, a: Vals, b: Vals, *, tie_break: bool = False) -> np.ndarray:
    """a op b as docs/semantics.md says: numbers numerically, other values by the total order.
    With ``tie_break`` an int sorts before an equal float (for min and max)."""
    if op == "same":
        return _less_equal(a, b, True)[1]
    less, equal = _less_equal(a, b, tie_break)
    return {"=": equal, "!=": ~equal, "<": less, "<=": less | equal, ">": ~less & ~equal, ">=": ~less}[op]


def _less_equal(a: Vals, b: Vals, tie_break: bool) -> tuple[np.ndarray, np.ndarray]:
    ra, rb = _rank(a), _rank(b)
    both_int = (a.kind == INT) & (b.kind == INT)
    numeric_less = np.where(both_int, a.i < b.i, a.f < b.f)
    numeric_equal = np.where(both_int, a.i == b.i, a.f == b.f)
    tied = np.flatnonzero(numeric_equal & (a.kind != b.kind))   # an int and a float with one double
    if tied.size:   # decided by the int's exact value (residuals)
        res_a = residuals(a.kind[tied], a.i[tied], a.f[tied])
        res_b = residuals(b.kind[tied], b.i[tied], b.f[tied])
        numeric_less[tied], numeric_equal[tied] = res_a < res_b, res_a == res_b
    if tie_break:
        numeric_less |= numeric_equal & (a.kind < b.kind)
        numeric_equal &= a.kind == b.kind
    textual = np.flatnonzero((ra == rb) & (ra > 0))
    text_less = np.zeros(a.kind.size, bool)
    text_equal = np.zeros(a.kind.size, bool)
    if textual.size:
        left, right = a.text[textual].tolist(), b.text[textual].tolist()
        text_less[textual] = [x < y for x, y in zip(left, right)]
        text_equal[textual] = [x == y for x, y in zip(left, right)]
    same_rank = ra == rb
    less = (ra < rb) | (same_rank & np.where(ra == 0, numeric_less, text_less))
    equal = same_rank & np.where(ra == 0, numeric_equal, text_equal)
    return less, equal


def condition_mask(cond: Compare, frame: Frame, d: Dictionary) -> np.ndarray:
    """Rows satisfying a comparison; comparing two columns for (in)equality needs no decoding."""
    if cond.op == "same" and isinstance(cond.left, Col) and isinstance(cond.right, Col):
        return frame.columns[cond.left.name] == frame.columns[cond.right.name]
    if cond.op in ("=", "!=") and isinstance(cond.left, Col) and isinstance(cond.right, Col):
        left, right = frame.columns[cond.left.name], frame.columns[cond.right.name]
        same = left == right
        differ = np.flatnonzero(~same)
        if differ.size:   # an int and a float with the same value are equal numbers
            kinds, ints, numbers = d.kinds.view(), d.ints.view(), d.numbers.view()
            l_ids, r_ids = left[differ], right[differ]
            numeric = (kinds[l_ids] <= FLOAT) & (kinds[r_ids] <= FLOAT)
            exact = residuals(kinds[l_ids], ints[l_ids], numbers[l_ids]) == \
                residuals(kinds[r_ids], ints[r_ids], numbers[r_ids])
            same[differ] = numeric & (numbers[l_ids] == numbers[r_ids]) & exact
        return same if cond.op == "=" else ~same
    a, b = evaluate(cond.left, frame, d), evaluate(cond.right, frame, d)
    return a.valid & b.valid & order_compare(cond.op, a, b)
