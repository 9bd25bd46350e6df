"""Reading RDF (N-Triples, Turtle) with pyoxigraph into decoded tables of text cells, vectorised with Polars."""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import numpy as np
import polars as pl

from deltalog.errors import InputError
from deltalog.io.cells import float_mask, quoted_cells, string_cells
from deltalog.io.rdf_names import predicate_names
from deltalog.storage.values import (
    CANONICAL_INT, LANGUAGE_TAG, XSD_DOUBLE, XSD_INTEGER, XSD_STRING,
)
from deltalog.syntax.ast import Span

FORMATS = {".nt": "N_TRIPLES", ".ttl": "TURTLE"}
CHUNK = 500_000
_LITERAL_END = r'"(?:@[A-Za-z0-9-]+|\^\^<[^>]*>)?$'  # the closing quote and a language tag or datatype
_DATATYPE = r'"\^\^<([^>]*)>$'
_LANGUAGE = r'"@([A-Za-z0-9-]+)$'
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_SIMPLE = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
INT_KIND, FLOAT_KIND, TEXT_KIND = 0, 1, 2
_IRI = r'<[A-Za-z][A-Za-z0-9+.-]*:(?:[^<>"{}|^`\\\x00-\x20%]|%[0-9A-Fa-f]{2})*>'
PLAIN_LINE = ("^" + _IRI + " " + _IRI + " (?:" + _IRI + r'|"[^"\\\n\r\x1f]*"(?:@' + LANGUAGE_TAG + r"|\^\^"
              + _IRI + r")?) \.$")
"""A line the fast path reads as it is: subject and predicate absolute IRIs, the object one too or a
literal without escapes (a lower-case language tag or a datatype IRI)."""


class RdfTables(dict):
    """The tables read from an RDF file (name -> DataFrame); ``iris`` maps each per-predicate
    table name to the property IRI it holds (without angle brackets; empty for the ``triple`` table)."""

    def __init__(self, tables: dict[str, pl.DataFrame], iris: dict[str, str] | None = None):
        super().__init__(tables)
        self.iris: dict[str, str] = iris or {}


def read_rdf(path: str | os.PathLike, *, per_predicate: bool = False,
             rdf_map: dict[str, str] | None = None) -> RdfTables:
    """An N-Triples (``.nt``) or Turtle (``.ttl``) file as decoded tables (see ``read_rdf_files``)."""
    return read_rdf_files([path], per_predicate=per_predicate, rdf_map=rdf_map)


def read_rdf_files(paths: list, *, per_predicate: bool = False, rdf_map: dict[str, str] | None = None) -> RdfTables:
    """RDF files together as decoded tables.

    Default: one table ``triple`` (c0 subject, c1 predicate, c2 object). With ``per_predicate`` (or an
    ``rdf_map`` IRI -> predicate): one binary table per property, named as
    ``deltalog.io.rdf_names.predicate_names`` says (from all files' properties at once, so names do not
    depend on file order); the result's ``iris`` attribute maps names to IRIs (space-separated when a
    map merges several). Terms become text cells (docs/semantics.md): IRIs ``<iri>``, blank nodes
    ``_:id``, plain and ``xsd:string`` literals strings, canonical ``xsd:integer`` ints, ``xsd:double``
    with a canonical float lexical form floats, every other literal an RDF literal ``"chat"@fr`` /
    ``"1"^^<...#int>`` (lexical form, language tag or datatype kept exactly).
    A column whose cells are all ints (floats) is Int64 (Float64), otherwise String.
    """
    triples = pl.concat([_read_triples(Path(path)) for path in paths]) if paths else _no_triples()
    if not per_predicate and rdf_map is None:
        return RdfTables({"triple": _table(triples, ["s", "p"])})
    names = predicate_names(triples["p"].unique().str.slice(1, None).str.strip_suffix(">").to_list(), rdf_map)
    named = triples.with_columns(pl.col("p").str.slice(1).str.strip_suffix(">")
                                 .replace_strict(names, return_dtype=pl.String).alias("name"))
    tables, iris = {}, {}
    for (name,), group in sorted(named.partition_by("name", as_dict=True, maintain_order=True).items()):
        tables[name] = _table(group, ["s"])
        iris[name] = " ".join(sorted(iri for iri, given in names.items() if given == name))
    return RdfTables(tables, iris)


def _no_triples() -> pl.DataFrame:
    return pl.DataFrame(schema={"s": pl.String, "p": pl.String, "o": pl.String, "kind": pl.Int8})


def _oxigraph():
    try:
        import pyoxigraph
    except ImportError:
        raise InputError("install deltalog[rdf] (pyoxigraph) to read RDF") from None
    return pyoxigraph


def _read_triples(path: Path) -> pl.DataFrame:
    """Columns s, p (text cells), o (text cell) and kind (of o) of every triple, in file order."""
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"cannot tell the RDF format of {path} (use .nt or .ttl)")
    if not path.is_file():
        raise InputError(f"no such file: {path}")
    if path.suffix.lower() == ".nt" and (plain := _plain_ntriples(path)) is not None:
        return plain
    ox = _oxigraph()
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
    return pl.concat(chunks) if chunks else _no_triples()


def _plain_ntriples(path: Path) -> pl.DataFrame | None:
    """The triples of an N-Triples file whose every line is already in the plain form pyoxigraph writes
    back (absolute IRIs, literals without escapes, one space between terms, `` .`` at the end; most
    generated files), split by Polars without parsing and re-serialising it (1M triples: ~1.6 s);
    None for any other file (comments, blank nodes, escapes, CRLF...), which then takes that path."""
    data = path.read_bytes()
    # the pattern refuses backslashes, CRs and (as nulls) blank lines; a unit separator would split a line
    if not data or data.startswith(b"\xef\xbb\xbf") or b"\x1f" in data:
        return None
    try:
        lines = _lines(data)
    except pl.exceptions.PolarsError:   # not UTF-8, say: pyoxigraph's error names the line
        return None
    if lines.null_count() or not lines.str.contains(PLAIN_LINE).all():
        return None
    return _split(lines, path)


def _lines(ntriples: bytes) -> pl.Series:
    return pl.read_csv(ntriples, has_header=False, separator="\x1f", quote_char=None,
                       schema={"line": pl.String})["line"]


def _decode(ntriples: bytes, path: Path) -> pl.DataFrame:
    """Canonical N-Triples lines (one space between terms, `` .`` at the end) split into cells."""
    return _split(_lines(ntriples), path)


def _split(lines: pl.Series, path: Path) -> pl.DataFrame:
    parts = lines.str.splitn(" ", 3).struct.unnest()
    s, p, o = parts["field_0"], parts["field_1"], parts["field_2"].str.strip_suffix(" .")
    if s.str.starts_with("<<").any() or o.str.starts_with("<<").any():
        raise InputError(f"{path}: RDF-star / RDF 1.2 triple terms are not supported")
    cells, kinds = _object_cells(o)
    return pl.DataFrame({"s": s, "p": p, "o": cells, "kind": kinds})


def _object_cells(o: pl.Series) -> tuple[pl.Series, pl.Series]:
    """Text cells for N-Triples objects, and the kind of each (int, float or other text), by the rules of
    ``deltalog.storage.values.rdf_literal`` (vectorised); IRIs and blank nodes are their own cells, so
    only the literals are looked at."""
    literal = o.str.starts_with('"')
    kinds = pl.Series("kind", np.full(o.len(), TEXT_KIND, np.int8))
    if not literal.any():
        return o, kinds
    where = literal.arg_true()
    cells, literal_kinds = _literal_cells(o.gather(where))
    return o.scatter(where, cells), kinds.scatter(where, literal_kinds)


def _literal_cells(o: pl.Series) -> tuple[pl.Series, pl.Series]:
    """``_object_cells`` of literals (every ``o`` starts with a quote)."""
    lexical = _unescape(o.str.replace(_LITERAL_END, "").str.slice(1))
    frame = pl.DataFrame({
        "lex": lexical, "dt": o.str.extract(_DATATYPE, 1), "lang": o.str.extract(_LANGUAGE, 1).str.to_lowercase(),
        "i": lexical.cast(pl.Int64, strict=False), "canonical_float": float_mask(lexical),
        "lexcell": string_cells(lexical), "quoted": quoted_cells(lexical),
    })
    is_int = (pl.col("dt") == XSD_INTEGER) & pl.col("lex").str.contains(CANONICAL_INT) & pl.col("i").is_not_null()
    is_float = (pl.col("dt") == XSD_DOUBLE) & pl.col("canonical_float")
    is_string = pl.col("lang").is_null() & (pl.col("dt").is_null() | (pl.col("dt") == XSD_STRING))
    out = frame.select(
        pl.when(is_int).then(pl.col("lex"))
        .when(is_float).then(pl.col("lex"))
        .when(is_string).then(pl.col("lexcell"))
        .when(pl.col("lang").is_not_null()).then(pl.col("quoted") + "@" + pl.col("lang"))
        .otherwise(pl.col("quoted") + "^^<" + pl.col("dt") + ">").alias("o"),
        pl.when(is_int).then(INT_KIND).when(is_float).then(FLOAT_KIND).otherwise(TEXT_KIND).cast(pl.Int8).alias("kind"),
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


def unescape_text(cell: str) -> str:
    """One cell's N-Triples string escapes undone (the Spark reader applies it per cell)."""
    return _ESCAPE.sub(_unescape_one, cell) if "\\" in cell else cell


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
