"""Issue 10 items 4 and 5: empty inputs are zero facts; Spark-style dataset directories are read."""

from __future__ import annotations

import polars as pl
import pytest

from deltalog.api import Reasoner
from deltalog.errors import InputError
from deltalog.io.readers import read_facts_dir, read_table

EDGE = "path(X, Y) :- edge(X, Y).\n"


def paths(facts, backend: str = "local") -> set:
    r = Reasoner(EDGE, backend=backend)
    r.load_directory(facts)
    r.materialise()
    return set(r.relation("path").rows()) if "path" in r.predicates() else set()


@pytest.mark.parametrize("content", ["", "\n", "\n\n  \n"[:2]])
def test_an_empty_or_blank_file_is_zero_facts(tmp_path, content):
    (tmp_path / "edge.tsv").write_text(content)
    (tmp_path / "other.tsv").write_text(content)
    assert read_facts_dir(tmp_path) == {}
    assert paths(tmp_path) == set()


def test_an_empty_file_has_the_known_arity(tmp_path):
    (tmp_path / "edge.tsv").write_text("")
    assert read_facts_dir(tmp_path, arities={"edge": 2})["edge"].shape == (0, 2)
    assert read_table(tmp_path / "edge.tsv", arity=2).shape == (0, 2)


def write_parts(folder, parts: dict[str, str]):
    folder.mkdir(parents=True)
    for name, text in parts.items():
        (folder / name).write_text(text)


DATASETS = [
    ("edge", {"part-00000.tsv": "1\t2\n", "part-00001.tsv": "2\t3\n", "_SUCCESS": ""}),
    ("edge.csv", {"part-00000": "1,2\n", "part-00001": "2,3\n", "._SUCCESS.crc": ""}),
    ("predicate=edge", {"part-00000-abc.txt": "1\t2\n2\t3\n"}),
]


@pytest.mark.parametrize("name, parts", DATASETS, ids=[d[0] for d in DATASETS])
def test_a_dataset_directory_is_read(tmp_path, name, parts):
    write_parts(tmp_path / "facts" / name, parts)
    assert paths(tmp_path / "facts") == {(1, 2), (2, 3)}


def test_parquet_part_files_and_globs(tmp_path):
    folder = tmp_path / "facts" / "edge.parquet"
    folder.mkdir(parents=True)
    pl.DataFrame({"a": [1], "b": [2]}).write_parquet(folder / "part-0.snappy.parquet")
    pl.DataFrame({"a": [2], "b": [3]}).write_parquet(folder / "part-1.snappy.parquet")
    (folder / "_SUCCESS").write_text("")
    assert paths(tmp_path / "facts") == {(1, 2), (2, 3)}
    assert read_table(folder).rows() == [(1, 2), (2, 3)]
    assert read_table(str(folder / "part-1*")).rows() == [(2, 3)]


def test_an_empty_dataset_directory_is_zero_facts(tmp_path):
    (tmp_path / "edge").mkdir()
    assert read_facts_dir(tmp_path) == {}


def test_a_directory_with_no_predicate_name_is_refused(tmp_path):
    (tmp_path / "not-a-name").mkdir()
    with pytest.raises(InputError, match="not a valid predicate name"):
        read_facts_dir(tmp_path)


def test_a_glob_matching_nothing_is_refused(tmp_path):
    with pytest.raises(InputError, match="no file matches"):
        read_table(str(tmp_path / "edge-*.tsv"))
