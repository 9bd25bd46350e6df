"""Issue 10 item 5 on both backends: Spark-style dataset directories are read by ``--facts`` the same way
(layouts, typing, skipped markers, refusals), and ``run --backend spark --distributed`` output reads back
as the very facts it was written from."""

from __future__ import annotations

import polars as pl
import pytest

from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.errors import InputError

COPY = "got(X, Y) :- edge(X, Y).\n"


def facts_of(facts, backend: str, program: str = COPY, predicate: str = "got") -> set:
    r = Reasoner(program, backend=backend)
    r.load_directory(facts)
    r.materialise()
    return set(r.relation(predicate).rows()) if predicate in r.predicates() else set()


def parquet(path, **columns):
    path.parent.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(columns).write_parquet(path)


def text(path, content: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def layout_parquet_parts(root):
    parquet(root / "edge" / "part-00000.snappy.parquet", a=[1], b=["x"])
    parquet(root / "edge" / "part-00001.snappy.parquet", a=[2], b=["7"])
    text(root / "edge" / "_SUCCESS", "")
    text(root / "edge" / "._SUCCESS.crc", "junk")   # (a junk .crc of a data file would fail Hadoop itself)


def layout_parquet_dir(root):
    parquet(root / "edge.parquet" / "part-00000", a=[1], b=["x"])
    parquet(root / "edge.parquet" / "part-00001", a=[2], b=["7"])


def layout_partitions(root):   # deltalog's --distributed output, and a nested Hive-style partition
    text(root / "predicate=edge" / "part-00000-1.txt", "1\tx\n")
    text(root / "predicate=edge" / "day=2" / "part-00000-2.csv", '2,"""7"""\n')
    text(root / "predicate=edge" / "_SUCCESS", "")


def layout_mixed(root):   # a plain file and a dataset of the same predicate are concatenated
    text(root / "edge.tsv", "1\tx\n")
    text(root / "edge" / "part-0.tsv", '2\t"7"\n')


LAYOUTS = [layout_parquet_parts, layout_parquet_dir, layout_partitions, layout_mixed]


@pytest.mark.parametrize("layout", LAYOUTS, ids=[f.__name__[7:] for f in LAYOUTS])
def test_dataset_layouts_read_the_same_on_both_backends(tmp_path, backend_name, layout):
    layout(tmp_path / "facts")
    assert facts_of(tmp_path / "facts", backend_name) == {(1, "x"), (2, '"7"')}   # the string 7, not the int


REFUSALS = [
    ("not-a-name", "part-0.tsv", "not a valid predicate name"),
    ("edge", "part-0", "cannot tell the format"),
]


@pytest.mark.parametrize("folder, part, message", REFUSALS, ids=["name", "format"])
def test_refusals_are_the_same_on_both_backends(tmp_path, backend_name, folder, part, message):
    text(tmp_path / "facts" / folder / part, "1\t2\n")
    with pytest.raises(InputError, match=message):
        facts_of(tmp_path / "facts", backend_name)


def test_an_empty_dataset_is_zero_facts(tmp_path, backend_name):
    (tmp_path / "facts" / "edge").mkdir(parents=True)
    text(tmp_path / "facts" / "edge" / "_SUCCESS", "")
    assert facts_of(tmp_path / "facts", backend_name) == set()


TRICKY = """
p("7", 7). p(7, 1.5). p("1.50", "x,y"). p(<http://e.org/a>, "say \\"hi\\""). p("", "a\\tb").
p("<http://e.org/a>", -3). p(2.0, "\\"q\\"").
"""


@pytest.mark.spark
@pytest.mark.parametrize("format", ["tsv", "csv", "parquet"])
def test_distributed_output_reads_back_as_the_same_facts(tmp_path, spark, format):
    program = tmp_path / "p.dl"
    program.write_text(TRICKY + "q(X, Y) :- p(X, Y).\n")
    out = tmp_path / "out"
    assert main(["run", str(program), "--out", str(out), "--backend", "spark", "--distributed",
                 "--format", format, "--quiet"]) == 0
    (tmp_path / "none").mkdir()
    expected = facts_of(tmp_path / "none", "local", program.read_text(), "q")
    assert len(expected) == 7
    back = "r(X, Y) :- q(X, Y).\n"
    assert facts_of(out, "local", back, "r") == expected
    assert facts_of(out, "spark", back, "r") == expected
