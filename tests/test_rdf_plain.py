"""The fast path for plain N-Triples files (io/rdf.py ``_plain_ntriples``) reads exactly what the
pyoxigraph path reads, and leaves every other file to it."""

from __future__ import annotations

import polars as pl
from hypothesis import HealthCheck, given, settings, strategies as st

from deltalog.io import rdf

XSD = "http://www.w3.org/2001/XMLSchema#"
IRIS = st.sampled_from(["<http://e.org/a>", "<http://e.org/b#x>", "<urn:isbn:0451450523>", "<http://e.org/%C3%A9t%20e>",
                        "<http://é.org/ü>", "<mailto:a@b.c>", "<http://e.org/a?b=c&d>"])
LEXICAL = st.text(alphabet='abé 07.-+e"\\\t\u2028', max_size=6)
DATATYPES = st.sampled_from([f"{XSD}integer", f"{XSD}double", f"{XSD}string", f"{XSD}int", "http://e.org/t"])
TAGS = st.sampled_from(["en", "en-gb", "fr", "EN", "de-CH", "x-private"])


@st.composite
def objects(draw) -> str:
    kind = draw(st.sampled_from(["iri", "plain", "tag", "typed"]))
    if kind == "iri":
        return draw(IRIS)
    body = '"' + draw(LEXICAL) + '"'
    if kind == "tag":
        return body + "@" + draw(TAGS)
    return body + ("^^<" + draw(DATATYPES) + ">" if kind == "typed" else "")


@st.composite
def lines(draw) -> str:
    shape = draw(st.sampled_from(["triple"] * 8 + ["comment", "blank node", "spaces", "relative"]))
    s, p, o = draw(IRIS), draw(IRIS), draw(objects())
    return {"triple": f"{s} {p} {o} .", "comment": "# a comment", "blank node": f"_:b1 {p} {o} .",
            "spaces": f"{s}  {p}\t{o} .", "relative": f"<a> {p} {o} ."}[shape]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=st.lists(lines(), min_size=1, max_size=8), final_newline=st.booleans())
def test_plain_files_read_as_pyoxigraph_reads_them(tmp_path_factory, document, final_newline):
    path = tmp_path_factory.mktemp("nt") / "data.nt"
    path.write_bytes(("\n".join(document) + ("\n" if final_newline else "")).encode())
    plain = rdf._plain_ntriples(path)
    try:
        expected = rdf._decode(b"".join(_serialised(path)), path)
    except SyntaxError:
        assert plain is None   # a file pyoxigraph refuses is never read by the fast path
        return
    if plain is not None:
        assert plain.to_dicts() == expected.to_dicts()
    else:   # only files with a line outside the plain form fall back
        text = path.read_text()
        assert any(not pl.Series([line]).str.contains(rdf.PLAIN_LINE).all() for line in text.splitlines()) \
            or "\\" in text or "\r" in text


def _serialised(path):
    ox = rdf._oxigraph()
    triples = ox.parse(path=str(path), format=ox.RdfFormat.N_TRIPLES, base_iri=path.resolve().as_uri())
    yield ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b""


def test_a_plain_file_is_not_reserialised(tmp_path, monkeypatch):
    path = tmp_path / "g.nt"
    path.write_text('<http://e.org/a> <http://e.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
                    '<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n')
    monkeypatch.setattr(rdf, "_oxigraph", lambda: (_ for _ in ()).throw(AssertionError("pyoxigraph used")))
    table = rdf.read_rdf(path)["triple"]
    assert table.to_dicts() == [{"c0": "<http://e.org/a>", "c1": "<http://e.org/p>", "c2": "1"},
                                {"c0": "<http://e.org/a>", "c1": "<http://e.org/p>", "c2": "<http://e.org/b>"}]


def test_line_ends_and_blank_lines_read_the_same_either_way(tmp_path):
    triple = '<http://e.org/a> <http://e.org/p> "x y"@en .'
    for name, text in {"crlf": f"{triple}\r\n{triple}\r\n", "blank": f"{triple}\n\n{triple}\n",
                       "no final newline": f"{triple}\n{triple}", "lone cr": f'{triple}\r{triple}\n'}.items():
        path = tmp_path / f"{name}.nt"
        path.write_bytes(text.encode())
        plain = rdf._plain_ntriples(path)
        try:
            expected = rdf._decode(b"".join(_serialised(path)), path)
        except SyntaxError:
            assert plain is None, name
            continue
        assert plain is None or plain.to_dicts() == expected.to_dicts(), name
