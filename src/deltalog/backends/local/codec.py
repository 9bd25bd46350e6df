"""Moving values between decoded tables (Polars) and id columns through the dictionary, vectorised."""

from __future__ import annotations

import numpy as np
import polars as pl

from deltalog.storage.dictionary import Dictionary
from deltalog.storage.uniques import unique_inverse
from deltalog.backends.tagged import cells_of_tagged, tagged_of_unique
from deltalog.io.cells import classify
from deltalog.storage.values import FLOAT, INT, IRI, KIND_NAMES, LITERAL, STRING, UnrepresentableValue


def encode_series(series: pl.Series, d: Dictionary) -> np.ndarray:
    """Ids of a column of values: ints and floats by type, text cells read as docs/semantics.md says."""
    if series.dtype.is_integer():
        return d.encode_ints(series.cast(pl.Int64).to_numpy())
    unique = series.unique()
    if series.dtype.is_float():
        if not unique.is_finite().all():
            raise UnrepresentableValue(f"column {series.name!r} holds NaN or an infinity, which are no values")
        unique_ids = d.encode_floats(unique.to_numpy())
    else:
        unique = unique.cast(pl.String)
        unique_ids = encode_cells(unique, d)
        series = series.cast(pl.String)
    return series.replace_strict(unique, pl.Series(unique_ids, dtype=pl.Int64),
                                 return_dtype=pl.Int64).to_numpy()


def encode_cells(cells: pl.Series, d: Dictionary) -> np.ndarray:
    """Ids of text cells, each typed by its canonical form (``deltalog.io.cells.classify``)."""
    out = np.empty(cells.len(), np.int64)
    typed = classify(cells)
    kinds = typed["kind"].to_numpy()
    for kind in (INT, FLOAT, STRING, IRI, LITERAL):
        mask = kinds == kind
        if not mask.any():
            continue
        rows = typed.filter(pl.Series(mask))
        if kind == INT:
            out[mask] = d.encode_ints(rows["int"].to_numpy())
        elif kind == FLOAT:
            out[mask] = d.encode_floats(rows["float"].to_numpy())
        else:
            out[mask] = d.encode_text_column(KIND_NAMES[kind], rows["text"])
    return out


def decode_series(ids: np.ndarray, d: Dictionary, name: str) -> pl.Series:
    """A column of values: Int64 or Float64 when the column holds only that kind, else text."""
    kinds = d.kinds.view()[ids]
    if ids.size and (kinds == INT).all():
        return pl.Series(name, d.ints.view()[ids])
    if ids.size and (kinds == FLOAT).all():
        return pl.Series(name, d.numbers.view()[ids])
    return texts_of_ids(ids, d).rename(name)


def texts_of_ids(ids: np.ndarray, d: Dictionary) -> pl.Series:
    """The text cell (as written to files, docs/semantics.md) of each id; each distinct id formatted once."""
    if ids.size == 0:
        return pl.Series([], dtype=pl.String)
    unique, inverse = unique_inverse(ids)
    return cells_of_tagged(tagged_of_unique(unique, d)).gather(inverse)


def decode_frame(columns: list[np.ndarray], names: list[str], d: Dictionary) -> pl.DataFrame:
    return pl.DataFrame([decode_series(c, d, n) for c, n in zip(columns, names)])

