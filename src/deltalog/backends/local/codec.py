"""Moving values between decoded tables (Polars) and id columns through the dictionary, vectorised."""

from __future__ import annotations

import numpy as np
import polars as pl

from deltalog.storage.dictionary import Dictionary
from deltalog.storage.values import FLOAT, FLOAT_PATTERN, INT, INT_PATTERN, IRI, format_value, parse_cell


def encode_series(series: pl.Series, d: Dictionary) -> np.ndarray:
    """Ids of a column of values: ints and floats by type, text cells read as docs/semantics.md says."""
    if series.dtype.is_integer():
        return d.encode_ints(series.cast(pl.Int64).to_numpy())
    unique = series.unique()
    if series.dtype.is_float():
        unique_ids = d.encode_floats(unique.to_numpy())
    else:
        unique = unique.cast(pl.String)
        unique_ids = encode_cells(unique, d)
        series = series.cast(pl.String)
    return series.replace_strict(unique, pl.Series(unique_ids, dtype=pl.Int64),
                                 return_dtype=pl.Int64).to_numpy()


def encode_cells(cells: pl.Series, d: Dictionary) -> np.ndarray:
    """Ids of text cells, each typed by its lexical form (classified with vectorised regexes)."""
    out = np.empty(cells.len(), np.int64)
    is_int = cells.str.contains(f"^{INT_PATTERN}$").to_numpy()
    is_float = ~is_int & cells.str.contains(f"^{FLOAT_PATTERN}$").to_numpy()
    is_iri = ~is_int & ~is_float & cells.str.starts_with("<").to_numpy() & cells.str.ends_with(">").to_numpy()
    rest = ~(is_int | is_float | is_iri)
    for mask, encode in ((is_int, _ints), (is_float, _floats), (is_iri, _iris), (rest, _strings)):
        if mask.any():
            out[mask] = encode(cells.filter(pl.Series(mask)), d)
    return out


def _ints(cells: pl.Series, d: Dictionary) -> np.ndarray:
    values = cells.cast(pl.Int64, strict=False)
    if values.null_count():   # beyond 64 bits: such a cell is a float (docs/semantics.md)
        return np.array([d.encode_constant(*parse_cell(c)) for c in cells.to_list()], np.int64)
    return d.encode_ints(values.to_numpy())


def _floats(cells: pl.Series, d: Dictionary) -> np.ndarray:
    return d.encode_floats(np.array([parse_cell(c)[1] for c in cells.to_list()], np.float64))


def _iris(cells: pl.Series, d: Dictionary) -> np.ndarray:
    return d.encode_texts("iri", [c[1:-1] for c in cells.to_list()])


def _strings(cells: pl.Series, d: Dictionary) -> np.ndarray:
    return d.encode_texts("string", cells.to_list())


def decode_series(ids: np.ndarray, d: Dictionary, name: str) -> pl.Series:
    """A column of values: Int64 or Float64 when the column holds only that kind, else text."""
    kinds = d.kinds.view()[ids]
    if ids.size and (kinds == INT).all():
        return pl.Series(name, d.ints.view()[ids])
    if ids.size and (kinds == FLOAT).all():
        return pl.Series(name, d.numbers.view()[ids])
    return pl.Series(name, texts_of_ids(ids, d), dtype=pl.String)


def texts_of_ids(ids: np.ndarray, d: Dictionary) -> list[str]:
    """The text form (as written to files) of each id."""
    kinds, ints, numbers, texts = d.kinds.view(), d.ints.view(), d.numbers.view(), d.texts
    out = []
    for i in ids.tolist():
        kind = kinds[i]
        if kind == INT:
            out.append(str(ints[i]))
        elif kind == FLOAT:
            out.append(format_value("float", numbers[i]))
        elif kind == IRI:
            out.append(f"<{texts[i]}>")
        else:
            out.append(texts[i])
    return out


def decode_frame(columns: list[np.ndarray], names: list[str], d: Dictionary) -> pl.DataFrame:
    return pl.DataFrame([decode_series(c, d, n) for c, n in zip(columns, names)])

