"""Parity: every bundled example gives byte-identical outputs (after sorting lines) through the CLI on
both backends; and on Spark a failed write leaves no output directory behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import functions as F

from deltalog.backends.spark.io import write_datasets
from deltalog.cli import main

pytestmark = pytest.mark.spark
EXAMPLES = sorted(p.parent for p in (Path(__file__).parent.parent / "examples").glob("*/program.dl"))


def outputs(out: Path) -> dict[str, list[bytes]]:
    return {f.name: sorted(f.read_bytes().splitlines()) for f in sorted(out.iterdir())}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_examples_give_identical_outputs_on_both_backends(example, tmp_path, spark):
    for backend in ("local", "spark"):
        args = ["run", str(example / "program.dl"), "--out", str(tmp_path / backend), "--quiet",
                "--backend", backend]
        if (example / "facts").is_dir():
            args += ["--facts", str(example / "facts")]
        assert main(args) == 0
    assert outputs(tmp_path / "spark") == outputs(tmp_path / "local")


def test_distributed_parquet_is_partitioned_by_predicate(tmp_path, spark):
    example = Path(__file__).parent.parent / "examples" / "transitive"
    common = [str(example / "program.dl"), "--facts", str(example / "facts"), "--quiet"]
    assert main(["run", *common, "--out", str(tmp_path / "local")]) == 0
    assert main(["run", *common, "--out", str(tmp_path / "out"), "--backend", "spark", "--format", "parquet",
                 "--distributed"]) == 0
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["predicate=path"]
    rows = spark.read.parquet(str(tmp_path / "out")).where(F.col("predicate") == "path").select("c0", "c1")
    lines = sorted(f"{a}\t{b}".encode() for a, b in rows.collect())
    assert lines == outputs(tmp_path / "local")["path.tsv"]


def test_a_failed_write_leaves_no_output_directory(tmp_path, spark):
    good = spark.createDataFrame([("1",)], "c0 string")
    bad = spark.createDataFrame([(1,)], "c0 int").select((F.col("c0") / F.lit(0)).cast("string").alias("c0"))
    out = tmp_path / "out"
    with pytest.raises(Exception):
        write_datasets(spark, {"a": good, "b": bad}, str(out), format="csv")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_distributed_needs_spark(tmp_path):
    example = Path(__file__).parent.parent / "examples" / "transitive"
    assert main(["run", str(example / "program.dl"), "--facts", str(example / "facts"),
                 "--out", str(tmp_path / "o"), "--distributed", "--quiet"]) == 2
    assert not (tmp_path / "o").exists()
