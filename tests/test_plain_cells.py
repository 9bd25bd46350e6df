"""The NumPy reader and writer of plain names (io/plain_cells.py) against the general Polars path.

Differential: any file, tricky cells included, reads to the same table (or the same error) through
``read_decoded`` as through ``read_table``; a relation of plain strings is written to the bytes Polars
writes; a load through the PlainTable path stores the same constants as through a DataFrame.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings, strategies as st

from deltalog.backends.local.backend import LocalBackend
from deltalog.backends.local.plain_codec import decode_plain
from deltalog.io import plain_cells
from deltalog.io.datasets import read_facts_dir
from deltalog.io.formats import read_decoded
from deltalog.io.int_columns import as_polars
from deltalog.io.plain_cells import PlainTable, Vocabulary, read_plain_cells, share_vocabulary
from deltalog.io.readers import read_table
from deltalog.io.writers import write_table
from deltalog.storage.dictionary import Dictionary
from readers_alike import outcome, same

TRICKY = ["a", "b", "ab", "abcdefgh", "abcdefghi", "x" * 64, "y" * 65, "été", "日本語の名前", "a b", " a", "a ",
          "", "1", "-a", "<a>", '"q"', "a\"b", "a,b", "a\rb", "\ufeffa", "\x00a", "a'b", "_", "A" * 17,
         "a\x0bb", "\x1fa", "a\u2028b", "a\x85", "\u00a0a"]   # control and Unicode line-separator characters
names = st.one_of(st.sampled_from(TRICKY), st.text("abcxyz_é", min_size=1, max_size=20))


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.lists(names, min_size=1, max_size=3), max_size=10), width=st.integers(1, 3),
       ending=st.sampled_from(["\n", "\r\n"]), last=st.booleans(), blank=st.booleans(),
       suffix=st.sampled_from([".tsv", ".csv", ".facts"]), arity=st.sampled_from([None, 1, 2, 3]))
@example(rows=[["a", "b"], ["b", "c"]], width=2, ending="\n", last=True, blank=False, suffix=".tsv", arity=None)
@example(rows=[["abcdefghij", "b"], ["abcdefghik", "b"]], width=2, ending="\n", last=False, blank=False,
         suffix=".tsv", arity=2)
def test_any_file_reads_as_the_general_reader_reads_it(tmp_path_factory, rows, width, ending, last, blank,
                                                       suffix, arity):
    rows = [(r * width)[:width] for r in rows]
    separator = "," if suffix == ".csv" else "\t"
    lines = [separator.join(r) for r in rows] + ([""] if blank else [])
    text = ending.join(lines) + (ending if last and lines else "")
    path = tmp_path_factory.mktemp("f") / f"p{suffix}"
    path.write_bytes(text.encode())
    assert same(outcome(read_decoded, path, arity=arity), outcome(read_table, path, arity=arity))


@pytest.mark.parametrize("text, taken", [
    ("a\tb\nb\tc\n", True), ("a\tb", True), ("été\tx\n", True), ("a b\tc\n", True), ("x" * 64 + "\ty\n", True),
    ("x" * 65 + "\ty\n", False), ("a\t1\n", False), ("a\t-b\n", False), ("<a>\tb\n", False), ('"a"\tb\n', False),
    ("a\t\n", False), ("a\tb\n\nc\td\n", False), ("a\tb\r\n", False), ("a\tb\tc\nd\te\n", False),
    ("\ufeffa\tb\n", False), ("a\x00\tb\n", False), ("", False),
])
def test_the_reader_takes_only_plain_regular_files(text, taken):
    table = read_plain_cells(text.encode(), "\t", None, None)
    assert (table is not None) == taken
    if taken:
        texts = table.vocabulary.texts()
        rows = [line.split("\t") for line in text.split("\n") if line]
        assert [[texts[c] for c in column] for column in table.arrays] == [list(c) for c in zip(*rows)]


def test_invalid_utf8_and_quoted_csv_go_to_the_general_reader():
    assert read_plain_cells(b"\xff\tb\n", "\t", None, None) is None
    assert read_plain_cells(b'a,"b"\n', ",", '"', None) is None
    assert read_plain_cells(b"a,b\n", ",", '"', None) is not None


def test_a_hash_collision_is_never_taken_for_equality():
    """Cells wider than 8 bytes are keyed by a hash of their words: two rows of one key are compared."""
    a0, a1, b0 = np.uint64(0x6100000000000000), np.uint64(0x6200000000000000), np.uint64(0x6300000000000000)
    with np.errstate(over="ignore"):
        b1 = ((a0 * plain_cells._MIX) ^ a1) ^ (b0 * plain_cells._MIX)   # (b0, b1) hashes as (a0, a1)
    words = np.array([[a0, a1], [b0, b1]], np.uint64)
    assert plain_cells._distinct(words) is None
    distinct, inverse = plain_cells._distinct(np.array([[a0, a1], [a0, a1], [b0, a1]], np.uint64))
    assert len(distinct) == 2 and inverse[0] == inverse[1] != inverse[2]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(names, min_size=2, max_size=2), min_size=1, max_size=12), st.sampled_from(["tsv", "csv"]))
@example([["a", "b,c"], ["d", "e"]], "csv")
@example([["a" * 20, "b"], ["c", "d" * 9]], "tsv")
def test_a_relation_of_plain_strings_is_written_as_polars_writes_it(tmp_path_factory, rows, fmt):
    d = Dictionary()
    columns = [d.encode_texts("string", [r[j] for r in rows]) for j in range(2)]
    table = decode_plain(columns, d)
    plain = all(t and t[0] not in '-0123456789<"' and not any(c in t for c in "\t\n\r\x00") and len(t.encode()) <= 64
                for r in rows for t in r)
    assert (table is not None) == plain
    if table is None:
        return
    frame = pl.DataFrame({"c0": [r[0] for r in rows], "c1": [r[1] for r in rows]})
    folder = tmp_path_factory.mktemp("w")
    write_table(table, folder / f"a.{fmt}", format=fmt)
    write_table(frame, folder / f"b.{fmt}", format=fmt)
    assert (folder / f"a.{fmt}").read_bytes() == (folder / f"b.{fmt}").read_bytes()
    assert same(as_polars(table), frame)


@pytest.mark.parametrize("texts", [[""], ["1"], ["-a"], ["<a>"], ['"a"'], ["a\tb"], ["a\nb"], ["a\rb"], ["a\x00"],
                                   ["x" * 65], ["ok", "\ud800"]])
def test_a_vocabulary_holds_only_strings_written_raw(texts):
    assert Vocabulary.of_texts(texts) is None


def test_a_load_of_several_files_encodes_each_name_once(tmp_path):
    (tmp_path / "e.tsv").write_text("a\tb\nb\tc\n")
    (tmp_path / "f.tsv").write_text("c\td\nabcdefghijk\ta\n")
    (tmp_path / "g.tsv").write_text("a\tz\n")
    (tmp_path / "g.facts").write_text("z\ty\n")   # two files of one predicate: concatenated as codes
    tables = read_facts_dir(tmp_path)
    assert all(isinstance(t, PlainTable) for t in tables.values())
    assert len({id(t.vocabulary) for t in tables.values()}) == 1
    backend = LocalBackend()
    for name, table in tables.items():
        backend.create_relation(relation=name, arity=2)
        backend.load(relation=name, table=table, generation=0)
    assert backend.typed_rows(relation="g") == {(("string", "a"), ("string", "z")), (("string", "z"), ("string", "y"))}
    assert len(backend.dictionary) == 7   # a b c d z y abcdefghijk, each once
    assert sorted(as_polars(backend.read(relation="f")).rows()) == [("abcdefghijk", "a"), ("c", "d")]


def test_names_already_in_the_dictionary_keep_their_ids(tmp_path):
    backend = LocalBackend()
    known = backend.dictionary.encode_texts("string", ["b", "q"])
    iri = backend.dictionary.encode_texts("iri", ["a"])
    table = read_plain_cells(b"a\tb\nc\ta\n", "\t", None, None)
    backend.create_relation(relation="e", arity=2)
    backend.load(relation="e", table=table, generation=0)
    assert backend.typed_rows(relation="e") == {(("string", "a"), ("string", "b")), (("string", "c"), ("string", "a"))}
    assert backend.dictionary.lookup_constant("string", "b") == known[0]
    assert backend.dictionary.lookup_constant("iri", "a") == iri[0]
    assert len(backend.dictionary) == 5


def test_vocabularies_that_cannot_be_merged_exactly_stay_apart(monkeypatch):
    tables = [read_plain_cells(b"a\tb\n", "\t", None, None), read_plain_cells(b"b\tc\n", "\t", None, None)]
    assert len({id(t.vocabulary) for t in share_vocabulary(tables)}) == 1
    monkeypatch.setattr(plain_cells, "_distinct", lambda words: None)
    assert share_vocabulary(tables) == tables


def test_a_relation_of_loaded_names_is_decoded_from_the_loads_rows(tmp_path):
    """The first names a backend loads get consecutive ids; a relation of them is decoded by gathering
    their byte rows (plain_codec.names_by_id), with the same cells as formatting each name again."""
    backend = LocalBackend()
    table = read_plain_cells("b\té\nabcdefghijk\tb\n".encode(), "\t", None, None)
    backend.create_relation(relation="e", arity=2)
    backend.load(relation="e", table=table, generation=0)
    assert backend._names is not None
    backend.dictionary.encode_texts("string", ["later"])   # beyond the loaded range: formatted again
    for relation, rows in (("e", [("b", "é"), ("abcdefghijk", "b")]), ("f", [("b", "later")])):
        if relation == "f":
            backend.create_relation(relation="f", arity=2)
            backend.load(relation="f", table=pl.DataFrame({"c0": ["b"], "c1": ["later"]}), generation=0)
        decoded = backend.read(relation=relation)
        assert isinstance(decoded, PlainTable)
        assert sorted(as_polars(decoded).rows()) == sorted(rows)


PROBE = """
import sys
from deltalog.api import Reasoner
r = Reasoner(sys.argv[1])
r.load_directory(sys.argv[2])
r.load_directory(sys.argv[3])   # names already in the dictionary: looked up without Polars
r.write(sys.argv[4])
print("polars" in sys.modules, len(r.backend.dictionary))
"""


def test_loads_of_plain_names_need_no_polars_and_keep_one_id_per_name(tmp_path):
    import subprocess
    import sys
    program = tmp_path / "p.dl"
    program.write_text('reach(Y) :- edge("n0", Y).\nreach(Z) :- reach(Y), edge(Y, Z).\n')
    for name, edges in (("a", [(f"n{i}", f"n{i + 1}") for i in range(0, 3000)]),
                        ("b", [(f"n{i}", f"n{i + 1}") for i in range(2990, 6000)])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "edge.tsv").write_text("".join(f"{x}\t{y}\n" for x, y in edges))
    out = subprocess.run([sys.executable, "-c", PROBE, str(program), str(tmp_path / "a"), str(tmp_path / "b"),
                          str(tmp_path / "out")], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.split()
    assert out == ["False", "6001"]
    assert sorted((tmp_path / "out" / "reach.tsv").read_text().splitlines()) == sorted(f"n{i}" for i in range(1, 6001))
