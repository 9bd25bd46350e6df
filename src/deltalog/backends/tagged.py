"""Tagged text: every constant as one string, its kind as a one-letter prefix (``i42``, ``f1.5``, ``sabc``, ``rhttp://x``,
``l"chat"@fr`` for an RDF literal, by its canonical text).

The exact interchange between backends (``export_rows`` / ``import_rows``) and the Spark
backend's physical form (docs/spark.md). Ints are decimal digits and floats Python's
``repr`` (the text forms of docs/semantics.md), so two tagged strings are equal iff the
constants are the same, and nothing loses its kind on the way. Conversions to and from
Polars columns and dictionary ids are vectorised.

>>> tag_constant("float", -0.0), tag_constant("iri", "http://x"), untag("i42")
('f0.0', 'rhttp://x', ('int', 42))
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from deltalog.io.writers import float_strings
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.uniques import unique_inverse
from deltalog.io.cells import classify, string_cells
from deltalog.storage.values import FLOAT, INT, IRI, KIND_NAMES, LITERAL, STRING, UnrepresentableValue

if TYPE_CHECKING:  # pyarrow costs ~0.1 s to import; only the interchange needs it
    import pyarrow as pa

PREFIX = {"int": "i", "float": "f", "string": "s", "iri": "r", "literal": "l"}
KIND_OF = {p: k for k, p in PREFIX.items()}
TEXT_TAGS = {code: PREFIX[KIND_NAMES[code]] for code in (STRING, IRI, LITERAL)}


def tag_constant(kind: str, value) -> str:
    """The tagged text of one constant."""
    if kind == "float":
        return "f" + repr(float(value) + 0.0)
    return PREFIX[kind] + str(int(value) if kind == "int" else value)


def untag(tagged: str) -> tuple[str, object]:
    """(kind, value) of a tagged text."""
    kind, body = KIND_OF[tagged[0]], tagged[1:]
    if kind == "int":
        return kind, int(body)
    return kind, float(body) if kind == "float" else body


def format_float(value: float | None) -> str | None:
    """Tagged text of a computed float: None when it is no value (NaN or an infinity)."""
    if value is None or not math.isfinite(value):
        return None
    return "f" + repr(value + 0.0)


# ---- Polars (driver side) -----------------------------------------------------------------

def tag_series(series: pl.Series) -> pl.Series:
    """A column of values (ints, floats or text cells typed as docs/semantics.md says) as tagged text."""
    if series.dtype.is_integer():
        return "i" + series.cast(pl.Int64).cast(pl.String)
    if series.dtype.is_float():
        floats = series.cast(pl.Float64)
        if not floats.is_finite().all():
            raise UnrepresentableValue(f"column {series.name!r} holds NaN or an infinity, which are no values")
        return "f" + float_strings(floats.zip_with(floats != 0.0, pl.Series([0.0] * floats.len())))  # -0.0 is 0.0
    return tag_cells(series.cast(pl.String))


def tag_cells(cells: pl.Series) -> pl.Series:
    """Text cells typed by their canonical form (``deltalog.io.cells.classify``), as tagged text."""
    typed = classify(cells)
    floats = typed["float"]
    float_text = float_strings(floats.fill_null(0.0).zip_with(floats != 0.0, pl.Series([0.0] * floats.len())))
    tagged = typed.with_columns(float_text.alias("ft")).select(
        pl.when(pl.col("kind") == INT).then("i" + pl.col("int").cast(pl.String))
        .when(pl.col("kind") == FLOAT).then("f" + pl.col("ft"))
        .when(pl.col("kind") == STRING).then("s" + pl.col("text"))
        .when(pl.col("kind") == IRI).then("r" + pl.col("text"))
        .otherwise("l" + pl.col("text")).alias("v"))
    return tagged["v"].rename(cells.name)


def tag_table(table: pl.DataFrame) -> pl.DataFrame:
    """Every column of a decoded table as tagged text, columns renamed c0..ck."""
    return pl.DataFrame([tag_series(table.to_series(i)).rename(f"c{i}") for i in range(table.width)])


def decode_table(tagged: pa.Table | pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Tagged columns back to values, like the local backend's decode: Int64 / Float64 when a column
    holds only that kind, else text forms (ints digits, floats repr, strings raw, IRIs bracketed)."""
    frame = tagged if isinstance(tagged, pl.DataFrame) else pl.from_arrow(tagged)
    assert isinstance(frame, pl.DataFrame)   # a table converts to a DataFrame
    return pl.DataFrame([_decode(frame.to_series(i), name) for i, name in enumerate(names)])


def _decode(series: pl.Series, name: str) -> pl.Series:
    kinds, body = series.str.slice(0, 1), series.str.slice(1)
    if series.len() and (kinds == "i").all():
        return body.cast(pl.Int64).rename(name)
    if series.len() and (kinds == "f").all():
        return body.cast(pl.Float64).rename(name)
    return cells_of_tagged(series).rename(name)


def cells_of_tagged(tagged: pl.Series) -> pl.Series:
    """Tagged text as text cells: ints digits, floats repr, IRIs ``<iri>``, literals their canonical text
    (which is their cell), strings raw or quoted
    (``deltalog.io.cells.string_cells``), so every cell reads back as the same value."""
    kinds, body = tagged.str.slice(0, 1), tagged.str.slice(1)
    strings = kinds == "s"
    out = pl.DataFrame({"k": kinds, "b": body}).select(
        pl.when(pl.col("k") == "r").then("<" + pl.col("b") + ">").otherwise(pl.col("b"))).to_series()
    if strings.any():
        where = strings.arg_true()
        out = out.scatter(where, string_cells(body.gather(where)))
    return out.cast(pl.String)


def typed_rows(tagged: pa.Table) -> set[tuple[tuple[str, object], ...]]:
    """Rows of tagged text as exact (kind, value) tuples."""
    columns = [tagged.column(i).to_pylist() for i in range(tagged.num_columns)]
    return {tuple(untag(v) for v in row) for row in zip(*columns)}



# ---- dictionary ids (the local backend) ----------------------------------------------------

def tagged_of_ids(ids: np.ndarray, d: Dictionary) -> pl.Series:
    """Tagged text of dictionary ids, each distinct id formatted once."""
    if ids.size == 0:
        return pl.Series([], dtype=pl.String)
    unique, inverse = unique_inverse(ids)
    return tagged_of_unique(unique, d).gather(inverse)


def tagged_of_unique(unique: np.ndarray, d: Dictionary) -> pl.Series:
    """Tagged text of sorted distinct dictionary ids (texts fetched by ``itemgetter``, tagged in Polars)."""
    kinds, ints, numbers = d.kinds.view()[unique], d.ints.view()[unique], d.numbers.view()[unique]
    texts = pl.Series(np.full(unique.size, None), dtype=pl.String)
    textual = np.flatnonzero(kinds >= STRING)
    if textual.size:
        found = itemgetter(*unique[textual].tolist())(d.texts)
        bodies = pl.Series(list(found) if textual.size > 1 else [found], dtype=pl.String)
        tags = pl.Series(kinds[textual]).replace_strict(TEXT_TAGS, return_dtype=pl.String)
        texts = texts.scatter(textual, tags + bodies)
    frame = pl.DataFrame({"k": kinds, "i": ints, "t": texts})
    tagged = frame.select(pl.when(pl.col("k") == INT).then("i" + pl.col("i").cast(pl.String))
                          .when(pl.col("k") == FLOAT).then(pl.lit(None, pl.String))
                          .otherwise(pl.col("t")).alias("v"))["v"]
    floats = np.flatnonzero(kinds == FLOAT)
    if floats.size:
        tagged = tagged.scatter(floats, "f" + float_strings(pl.Series(numbers[floats])))
    return tagged


def ids_of_tagged(cells: pl.Series, d: Dictionary) -> np.ndarray:
    """Dictionary ids of tagged text cells (adding the unknown constants)."""
    out = np.empty(cells.len(), np.int64)
    kinds, body = cells.str.slice(0, 1), cells.str.slice(1)
    for prefix, encode in (("i", lambda b: d.encode_ints(b.cast(pl.Int64).to_numpy())),
                           ("f", lambda b: d.encode_floats(b.cast(pl.Float64).to_numpy())),
                           ("s", lambda b: d.encode_texts("string", b.to_list())),
                           ("r", lambda b: d.encode_texts("iri", b.to_list())),
                           ("l", lambda b: d.encode_texts("literal", b.to_list()))):
        mask = (kinds == prefix).to_numpy()
        if mask.any():
            out[mask] = encode(body.filter(pl.Series(mask)))
    return out
