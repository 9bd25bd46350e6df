"""Text cells, vectorised: typing cells by their canonical form and writing values as cells.

The rules are those of ``deltalog.storage.values.parse_cell`` / ``format_value`` (docs/semantics.md),
applied to whole Polars columns; both backends type cells through ``classify`` so they agree.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from deltalog.io.writers import float_strings
from deltalog.storage.values import (
    CANONICAL_FLOAT, CANONICAL_INT, FLOAT, INT, IRI, IRI_CELL, LANG_STRING, LITERAL, LITERAL_CELL, QUOTED_CELL,
    STRING, XSD_DOUBLE, XSD_INTEGER, XSD_STRING, UnrepresentableValue, unescape,
)


NOT_PLAIN = r'^[-0-9<"]'
"""How every cell that is not a plain string starts: a canonical int or float (a digit or ``-``), an
IRI (``<``), a quoted string or an RDF literal (``"``)."""


def classify(cells: pl.Series) -> pl.DataFrame:
    """Columns ``kind`` (INT/FLOAT/STRING/IRI/LITERAL), ``int``, ``float`` and ``text`` (a string's or
    an IRI's text, a literal's canonical text) of each cell. Raises UnrepresentableValue, naming the
    first row, for a canonical int beyond 64 bits."""
    cells = cells.cast(pl.String)
    if cells.null_count() == 0 and not cells.str.contains(NOT_PLAIN).any():
        # the common column of names: no cell starts as a number, an IRI or a quoted form can
        return pl.DataFrame({"kind": np.full(cells.len(), STRING, np.uint8), "int": np.zeros(cells.len(), np.int64),
                             "float": cells.cast(pl.Float64, strict=False), "text": cells})
    ints = cells.cast(pl.Int64, strict=False)
    int_cells = cells.str.contains(CANONICAL_INT)
    too_big = int_cells & ints.is_null()
    if too_big.any():
        row = int(too_big.arg_true()[0])
        raise UnrepresentableValue(f"row {row + 1}: integer {cells[row]} does not fit 64 bits "
                                   "(quote it to keep it as a string)")
    if cells.null_count() == 0 and int_cells.all():
        # the common column of ids: every cell a canonical int (none of the other kinds can match)
        return pl.DataFrame({"kind": np.full(cells.len(), INT, np.uint8), "int": ints,
                             "float": ints.cast(pl.Float64), "text": cells})
    floats = cells.cast(pl.Float64, strict=False)
    frame = pl.DataFrame({"t": cells, "is_int": int_cells, "is_float": float_mask(cells),
                          "literal": literal_mask(cells)})
    kinds = frame.select(
        pl.when(pl.col("is_int")).then(INT).when(pl.col("is_float")).then(FLOAT)
        .when(pl.col("t").str.contains(IRI_CELL)).then(IRI).when(pl.col("literal")).then(LITERAL)
        .otherwise(STRING).cast(pl.UInt8).alias("kind"),
        pl.col("t").str.contains(QUOTED_CELL).alias("quoted"),
    )
    text = _texts(cells, kinds)
    return pl.DataFrame({"kind": kinds["kind"], "int": ints.fill_null(0), "float": floats, "text": text})


def _texts(cells: pl.Series, kinds: pl.DataFrame) -> pl.Series:
    """The text of string and IRI cells: IRIs without brackets, quoted strings unquoted."""
    iri = kinds["kind"] == IRI
    quoted = (kinds["kind"] == STRING) & kinds["quoted"]
    text = pl.select(pl.when(pl.Series(iri) | pl.Series(quoted))
                     .then(cells.str.slice(1, cells.str.len_chars() - 2)).otherwise(cells)).to_series()
    escaped = quoted & text.str.contains("\\", literal=True)
    if escaped.any():   # rare: escapes undone in Python, only for those cells
        where = escaped.arg_true()
        text = text.scatter(where, pl.Series([unescape(t) for t in text.gather(where).to_list()], dtype=pl.String))
    return text


def string_cells(strings: pl.Series) -> pl.Series:
    """Strings as text cells: as they are, unless they would read back as another value (a canonical
    number, an ``<iri>``, a quoted form), are empty or hold a tab or line break; those are quoted."""
    strings = strings.cast(pl.String)
    if strings.len() == 0:
        return strings
    kinds = classify_lenient(strings)
    plain = (kinds["kind"] == STRING) & ~kinds["quoted"] & (strings != "") & ~strings.str.contains(r"[\t\n\r]")
    if plain.all():
        return strings
    return pl.select(pl.when(plain).then(strings).otherwise(quoted_cells(strings))).to_series().rename(strings.name)


def quoted_cells(strings: pl.Series) -> pl.Series:
    """Strings as quoted cells ``"..."`` (escapes ``\\ \" \t \n \r``, as ``storage.values.quote``);
    also the N-Triples form of a plain literal and the start of a tagged or typed one."""
    escaped = strings.str.replace_all("\\", "\\\\", literal=True).str.replace_all('"', '\\"', literal=True) \
        .str.replace_all("\t", "\\t", literal=True).str.replace_all("\n", "\\n", literal=True) \
        .str.replace_all("\r", "\\r", literal=True)
    return ('"' + escaped + '"').rename(strings.name)


def classify_lenient(strings: pl.Series) -> pl.DataFrame:
    """``kind`` and ``quoted`` of each string as a cell, counting an overlong canonical int as an int."""
    frame = pl.DataFrame({"t": strings, "f": float_mask(strings), "literal": literal_mask(strings)})
    return frame.select(
        pl.when(pl.col("t").str.contains(CANONICAL_INT)).then(INT).when(pl.col("f")).then(FLOAT)
        .when(pl.col("t").str.contains(IRI_CELL)).then(IRI).when(pl.col("literal")).then(LITERAL)
        .otherwise(STRING).cast(pl.UInt8).alias("kind"),
        pl.col("t").str.contains(QUOTED_CELL).alias("quoted"),
    )


def float_mask(strings: pl.Series) -> pl.Series:
    """Which strings are the canonical text of a float (what ``repr`` writes), the candidates found by
    pattern first so that only they are formatted back."""
    maybe = (strings.str.contains(CANONICAL_FLOAT) & (strings != "-0.0")).fill_null(False)
    if not maybe.any():
        return maybe
    where = maybe.arg_true()
    candidates = strings.gather(where)
    floats = candidates.cast(pl.Float64, strict=False).fill_null(float("nan"))
    return maybe.scatter(where, (float_strings(floats) == candidates).fill_null(False))


def literal_mask(cells: pl.Series) -> pl.Series:
    """Which cells are the canonical text of an RDF literal (``deltalog.storage.values.is_literal_cell``):
    the literal form, but not a plain/``xsd:string`` one (a string), nor an ``xsd:integer`` or
    ``xsd:double`` whose lexical form is canonical (an int or a float, written as such)."""
    parts = cells.str.extract_groups(LITERAL_CELL)
    found = parts.struct.field("1").is_not_null()
    if not found.any():   # the usual column: no literal at all
        return found.alias("literal")
    where = found.arg_true()   # only the literal-shaped cells are looked at further
    return found.scatter(where, _literal_mask(parts.gather(where))).alias("literal")


def _literal_mask(parts: pl.Series) -> pl.Series:
    body, datatype = parts.struct.field("1"), parts.struct.field("3").fill_null("")
    frame = pl.DataFrame({"b": body, "d": datatype})
    canonical_float = float_mask(body.fill_null(""))
    plain = frame.select(
        pl.col("d").is_in([XSD_STRING, LANG_STRING])
        | ((pl.col("d") == XSD_INTEGER) & pl.col("b").str.contains(CANONICAL_INT)
           & pl.col("b").cast(pl.Int64, strict=False).is_not_null())
    ).to_series()
    double = (frame["d"] == XSD_DOUBLE) & canonical_float
    return (body.is_not_null() & ~plain.fill_null(False) & ~double).alias("literal")


def iri_cells(iris: pl.Series) -> pl.Series:
    """IRI texts as cells ``<iri>``."""
    return "<" + iris.cast(pl.String) + ">"
