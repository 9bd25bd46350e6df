"""Writing ``triple``-shaped relations (arity 3: subject, predicate, object) as N-Triples, vectorised.

Every value has one N-Triples term that ``read_rdf`` reads back as the same value
(docs/semantics.md, RDF): IRIs ``<iri>``, RDF literals their canonical text (which is N-Triples),
strings plain literals ``"..."`` (escapes ``\\\\ \\" \\t \\n \\r``), ints ``"42"^^xsd:integer``, floats
``"1.5"^^xsd:double`` (Python's repr), and strings of the blank-node form ``_:b1`` (what the
reader makes of a blank node) blank nodes. A subject must be an IRI or a blank node and a
predicate an IRI; anything else is refused, naming the row and column.
"""

from __future__ import annotations

import polars as pl

from deltalog.errors import InputError
from deltalog.io.cells import classify, quoted_cells
from deltalog.io.writers import cell_strings
from deltalog.storage.values import FLOAT, INT, IRI, LITERAL, STRING, XSD_DOUBLE, XSD_INTEGER

BLANK_NODE = r"^_:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$"
POSITIONS = ("subject", "predicate", "object")


def ntriples_lines(df: pl.DataFrame, name: str) -> pl.Series:
    """One N-Triples line per row of a relation of arity 3 (``name`` names it in errors)."""
    if df.width != 3:
        raise InputError(f"N-Triples output is for relations of arity 3 (subject, predicate, object); "
                         f"{name} has arity {df.width} (write it as tsv, csv or parquet)")
    subject, predicate, obj = (_terms(df.to_series(j), j, name) for j in range(3))
    return (subject + " " + predicate + " " + obj + " .").rename("line")


def _terms(column: pl.Series, j: int, name: str) -> pl.Series:
    """The N-Triples terms of one column; refuses values that cannot stand in its position."""
    cells = cell_strings(column)
    typed = classify(cells)
    kinds = typed["kind"]
    blank = (kinds == STRING) & typed["text"].str.contains(BLANK_NODE)
    allowed = (kinds == IRI) | (blank if j == 0 else pl.Series([j == 2] * len(kinds)))
    if not allowed.all():
        row = int((~allowed).arg_true()[0])
        wanted = "an IRI or a blank node" if j == 0 else "an IRI"
        raise InputError(f"N-Triples output of {name}: row {row + 1}, the {POSITIONS[j]} (column {j + 1}) "
                         f"is {cells[row]}, which is not {wanted}")
    frame = pl.DataFrame({"cell": cells, "kind": kinds, "blank": blank, "quoted": quoted_cells(typed["text"])})
    return frame.select(
        pl.when(pl.col("kind") == INT).then('"' + pl.col("cell") + f'"^^<{XSD_INTEGER}>')
        .when(pl.col("kind") == FLOAT).then('"' + pl.col("cell") + f'"^^<{XSD_DOUBLE}>')
        .when((pl.col("kind") == IRI) | (pl.col("kind") == LITERAL) | pl.col("blank")).then(pl.col("cell"))
        .otherwise(pl.col("quoted")).alias("term")
    ).to_series()


def write_ntriples(df: pl.DataFrame, path, name: str) -> None:
    """Write a relation of arity 3 to ``path`` as N-Triples (not atomically: writers.py stages it)."""
    pl.DataFrame([ntriples_lines(df, name)]).write_csv(path, include_header=False, quote_style="never")
