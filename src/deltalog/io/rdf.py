"""Reading RDF (N-Triples, Turtle) with pyoxigraph into decoded tables of text cells, vectorised with Polars."""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import polars as pl

from deltalog.errors import InputError
from deltalog.io.cells import string_cells
from deltalog.io.writers import float_strings
from deltalog.syntax.ast import Span

XSD = "http://www.w3.org/2001/XMLSchema#"
INT_TYPES = [XSD + t for t in (
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte",
)]
FLOAT_TYPES = [XSD + t for t in ("decimal", "double", "float")]
FORMATS = {".nt": "N_TRIPLES", ".ttl": "TURTLE"}
CHUNK = 500_000
_LITERAL_END = r'"(?:@[A-Za-z0-9-]+|\^\^<[^>]*>)?$'  # the closing quote and a language tag or datatype
_DATATYPE = r'"\^\^<([^>]*)>$'
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_SIMPLE = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
INT_KIND, FLOAT_KIND, TEXT_KIND = 0, 1, 2


class RdfTables(dict):
    """The tables read from an RDF file (name -> DataFrame); ``iris`` maps each per-predicate
    table name to the property IRI it holds (without angle brackets; empty for the ``triple`` table)."""

    def __init__(self, tables: dict[str, pl.DataFrame], iris: dict[str, str] | None = None):
        super().__init__(tables)
        self.iris: dict[str, str] = iris or {}


def read_rdf(path: str | os.PathLike, *, per_predicate: bool = False) -> RdfTables:
    """An N-Triples (``.nt``) or Turtle (``.ttl``) file as decoded tables.

    Default: one table ``triple`` (c0 subject, c1 predicate, c2 object). With ``per_predicate``: one
    binary table per property, named by the IRI's local name (after the last ``#`` or ``/``, made a
    valid predicate name; clashes get ``_2``, ``_3``... in order of first appearance); the result's
    ``iris`` attribute maps names to IRIs. Terms become text cells (docs/semantics.md): IRIs ``<iri>``,
    blank nodes ``_:id``, xsd integer types ints, xsd:decimal/double/float floats, every other literal
    the string of its lexical form (language tags and other datatypes are dropped; a plain literal
    such as ``"42"`` or ``"<x>"`` stays a string: its cell is quoted, docs/semantics.md).
    A column whose cells are all ints (floats) is Int64 (Float64), otherwise String.
    """
    triples = _read_triples(Path(path))
    if not per_predicate:
        return RdfTables({"triple": _table(triples, ["s", "p"])})
    tables, iris = {}, {}
    groups = triples.partition_by("p", maintain_order=True, as_dict=True)
    for (iri,), group in groups.items():
        name = _unique_name(_local_name(iri[1:-1]), tables)
        tables[name], iris[name] = _table(group, ["s"]), iri[1:-1]
    return RdfTables(tables, iris)


def _oxigraph():
    try:
        import pyoxigraph
    except ImportError:
        raise InputError("install deltalog[rdf] (pyoxigraph) to read RDF") from None
    return pyoxigraph


def _read_triples(path: Path) -> pl.DataFrame:
    """Columns s, p (text cells), o (text cell) and kind (of o) of every triple, in file order."""
    ox = _oxigraph()
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"cannot tell the RDF format of {path} (use .nt or .ttl)")
    if not path.is_file():
        raise InputError(f"no such file: {path}")
    fmt = getattr(ox.RdfFormat, FORMATS[path.suffix.lower()])
    chunks = []
    try:
        triples = ox.parse(path=str(path), format=fmt, base_iri=path.resolve().as_uri())
        while chunk := ox.serialize(itertools.islice(triples, CHUNK), format=ox.RdfFormat.N_TRIPLES):
            chunks.append(_decode(chunk, path))
    except SyntaxError as exc:
        message = re.sub(r"^Parser error at line \d+ column \d+: ", "", exc.msg or str(exc))
        raise InputError(f"invalid RDF: {message}", Span(str(path), exc.lineno or 0, exc.offset or 0)) from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    if not chunks:
        return pl.DataFrame(schema={"s": pl.String, "p": pl.String, "o": pl.String, "kind": pl.Int8})
    return pl.concat(chunks)


def _decode(ntriples: bytes, path: Path) -> pl.DataFrame:
    """Canonical N-Triples lines (one space between terms, `` .`` at the end) split into cells."""
    lines = pl.read_csv(ntriples, has_header=False, separator="\x1f", quote_char=None,
                        schema={"line": pl.String})["line"]
    parts = lines.str.splitn(" ", 3).struct.unnest()
    s, p, o = parts["field_0"], parts["field_1"], parts["field_2"].str.strip_suffix(" .")
    if s.str.starts_with("<<").any() or o.str.starts_with("<<").any():
        raise InputError(f"{path}: RDF-star / RDF 1.2 triple terms are not supported")
    cells, kinds = _object_cells(o)
    return pl.DataFrame({"s": s, "p": p, "o": cells, "kind": kinds})


def _object_cells(o: pl.Series) -> tuple[pl.Series, pl.Series]:
    """Text cells for N-Triples objects, and the kind of each (int, float or other text)."""
    literal = o.str.starts_with('"')
    lexical = _unescape(pl.select(pl.when(literal).then(o.str.replace(_LITERAL_END, "").str.slice(1))).to_series())
    datatype = o.str.extract(_DATATYPE, 1)
    ints = lexical.str.strip_chars().cast(pl.Int64, strict=False).alias("i")
    floats = lexical.str.strip_chars().cast(pl.Float64, strict=False).alias("f")
    frame = pl.DataFrame({"o": o, "lex": lexical, "dt": datatype, "i": ints, "f": floats,
                          "ftext": float_strings(floats), "lexcell": string_cells(lexical.fill_null(""))})
    is_int = pl.col("dt").is_in(INT_TYPES) & pl.col("i").is_not_null()
    is_float = pl.col("dt").is_in(FLOAT_TYPES) & pl.col("f").is_finite().fill_null(False)
    out = frame.select(
        pl.when(is_int).then(pl.col("i").cast(pl.String))
        .when(is_float).then(pl.col("ftext"))
        .when(pl.col("lex").is_not_null()).then(pl.col("lexcell"))
        .otherwise(pl.col("o")).alias("o"),
        pl.when(is_int).then(INT_KIND).when(is_float).then(FLOAT_KIND).otherwise(TEXT_KIND)
        .cast(pl.Int8).alias("kind"),
    )
    return out["o"], out["kind"]


def _unescape(lexical: pl.Series) -> pl.Series:
    """Undo N-Triples string escapes; only the (rare) cells holding a backslash go through Python."""
    escaped = lexical.str.contains("\\", literal=True).fill_null(False)
    if not escaped.any():
        return lexical
    where = escaped.arg_true()
    plain = [_ESCAPE.sub(_unescape_one, cell) for cell in lexical.gather(where).to_list()]
    return lexical.scatter(where, pl.Series(plain, dtype=pl.String))


def _unescape_one(match: re.Match) -> str:
    short, long, char = match.groups()
    if short or long:
        return chr(int(short or long, 16))
    return _SIMPLE.get(char, char)


def _table(triples: pl.DataFrame, subject_columns: list[str]) -> pl.DataFrame:
    """Columns c0.. from the given term columns plus the object, typed Int64/Float64 when uniform."""
    columns = {f"c{j}": triples[name] for j, name in enumerate(subject_columns)}
    kinds = triples["kind"]
    objects = triples["o"]
    if objects.len() and (kinds == INT_KIND).all():
        objects = objects.cast(pl.Int64)
    elif objects.len() and (kinds == FLOAT_KIND).all():
        objects = objects.cast(pl.Float64)
    columns[f"c{len(columns)}"] = objects
    return pl.DataFrame(columns)


def _local_name(iri: str) -> str:
    """The part of an IRI after its last ``#`` or ``/``, made a valid predicate name."""
    local = re.split(r"[#/]", iri)[-1]
    name = re.sub(r"[^A-Za-z0-9_]", "_", local)
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def _unique_name(name: str, taken: dict) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    return candidate
