"""The Spark backend as a Spark application: whose settings win, executors' Python, checkpoints, errors,
quiet start-up, and Arrow transfers in bounded partitions. Cluster behaviour: test_spark_cluster.py."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pytest

from deltalog.backends.spark import checkpoints
from deltalog.backends.spark.errors import SparkBackendError, translate, translate_any
from deltalog.backends.spark.executors import package_zip
from deltalog.backends.spark.launch import read_properties, submit_args
from deltalog.backends.spark.session import REQUIRED, resolve, shuffle_partitions
from deltalog.errors import InputError

SRC = Path(__file__).resolve().parents[1] / "src"


def test_the_users_settings_win_over_deltalogs_defaults(monkeypatch):
    for name in ("DELTALOG_SPARK_MASTER", "DELTALOG_SPARK_DRIVER_MEMORY", "DELTALOG_SPARK_SHUFFLE_PARTITIONS"):
        monkeypatch.delenv(name, raising=False)
    user = {"spark.master": "yarn", "spark.driver.memory": "6g", "spark.sql.adaptive.enabled": "false",
            "spark.sql.caseSensitive": "false"}
    chosen = resolve(user)
    assert "spark.master" not in chosen and "spark.driver.memory" not in chosen
    assert "spark.sql.adaptive.enabled" not in chosen
    assert chosen["spark.sql.caseSensitive"] == "true"                  # required: plans need it
    assert "spark.ui.enabled" not in chosen and "spark.ui.showConsoleProgress" not in chosen
    assert resolve(user, master="local[3]")["spark.master"] == "local[3]"    # --master when given
    nothing = resolve({})
    assert nothing["spark.master"] == "local[2]" and nothing["spark.sql.shuffle.partitions"] == "4"
    assert {k: nothing[k] for k in REQUIRED} == REQUIRED


def test_shuffle_partitions_follow_the_master():
    assert shuffle_partitions("local[3]") == 6
    assert shuffle_partitions("local") == 2
    assert shuffle_partitions("local[2, 4]") == 4
    assert shuffle_partitions("spark://h:7077") >= 2


def test_spark_defaults_and_submit_args_are_read_like_spark_submit(tmp_path):
    defaults = tmp_path / "spark-defaults.conf"
    defaults.write_text("# comment\nspark.master   spark://h:7077\nspark.driver.memory=3g\n\n"
                        "spark.executor.extraJavaOptions -Da=1 -Db=2\n")
    assert read_properties(defaults) == {"spark.master": "spark://h:7077", "spark.driver.memory": "3g",
                                         "spark.executor.extraJavaOptions": "-Da=1 -Db=2"}
    assert read_properties(tmp_path / "absent.conf") == {}
    assert submit_args(["--master", "local[1]", "--conf", "spark.x=a=b", "pyspark-shell"]) == \
        {"spark.master": "local[1]", "spark.x": "a=b"}


def test_the_package_zip_is_importable_and_cached(tmp_path):
    first = package_zip(tmp_path)
    assert package_zip(tmp_path) == first and len(list(tmp_path.iterdir())) == 1
    with zipfile.ZipFile(first) as archive:
        names = set(archive.namelist())
    assert {"deltalog/__init__.py", "deltalog/backends/spark/transfer.py", "deltalog/syntax/grammar.lark"} <= names
    assert not any("__pycache__" in n for n in names)
    found = subprocess.run([sys.executable, "-c", "import deltalog.backends.tagged as t; print(t.__file__)"],
                           env={"PYTHONPATH": str(first)}, capture_output=True, text=True, timeout=60)
    assert found.returncode == 0 and str(first) in found.stdout


def test_spark_failures_become_errors_with_hints():
    lost = translate(Exception("[CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND] Checkpoint block rdd_9_0 not found!"))
    assert isinstance(lost, SparkBackendError) and "--checkpoint-dir" in lost.render()
    missing = translate(Exception("PythonException: ... ModuleNotFoundError: No module named 'polars'\n at ..."))
    assert "cannot import polars" in missing.message and "--archives" in missing.render()
    other = translate_any(Exception("[SOMETHING_ELSE] it broke\n\tat org.apache.spark..."))
    assert other.message == "Spark failed: [SOMETHING_ELSE] it broke" and "-v" in other.render()


def test_the_cli_prints_spark_failures_as_errors_and_traces_only_with_v(monkeypatch, capsys, tmp_path):
    from pyspark.errors import PySparkRuntimeError
    from deltalog import cli

    def broken(args):
        raise PySparkRuntimeError(errorClass="CANNOT_INFER_TYPE_FOR_FIELD", messageParameters={"field_name": "x"})

    monkeypatch.setitem(cli.COMMANDS, "check", broken)
    assert cli.main(["check", "p.dl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Spark failed: [CANNOT_INFER_TYPE_FOR_FIELD]") and "Traceback" not in err
    assert cli.main(["-v", "check", "p.dl"]) == 2
    assert "Traceback" in capsys.readouterr().err


def test_cluster_masters_need_a_shared_checkpoint_directory():
    context = SimpleNamespace(master="spark://h:7077", getCheckpointDir=lambda: None)
    with pytest.raises(InputError, match="reliable checkpoints"):
        checkpoints.choose(SimpleNamespace(sparkContext=context), mode=None, directory=None, near=None,
                           owns_session=True)
    local = SimpleNamespace(sparkContext=SimpleNamespace(master="local[2]", getCheckpointDir=lambda: None))
    assert checkpoints.choose(local, mode=None, directory=None, near=None, owns_session=True).mode == "local"


@pytest.mark.spark
def test_a_given_checkpoint_directory_is_removed_at_close(spark, tmp_path):
    from deltalog.backends.spark.backend import SparkBackend
    backend = SparkBackend(spark, checkpoint_dir=str(tmp_path / "ckpt"))
    assert backend.checkpoint_mode == "reliable"
    backend.create_relation(relation="e", arity=1)
    backend.checkpoint(spark.range(10))
    assert list((tmp_path / "ckpt").glob("*/rdd-*"))
    backend.close()
    assert list((tmp_path / "ckpt").iterdir()) == []


@pytest.mark.spark
def test_a_users_local_session_runs_workers_with_the_drivers_python(spark, monkeypatch):
    from deltalog.backends.spark.backend import SparkBackend
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    monkeypatch.setattr(spark.sparkContext, "pythonExec", "python3")      # PySpark's default
    SparkBackend(spark)
    assert spark.sparkContext.pythonExec == sys.executable
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/chosen/python")            # the user's choice stays
    SparkBackend(spark)
    assert spark.sparkContext.pythonExec == "/opt/chosen/python"


@pytest.mark.spark
def test_large_arrow_tables_travel_in_small_partitions(spark):
    from deltalog.backends.spark.transfer import PARTITION_BYTES, arrow_frame
    rows = 200_000
    table = pa.table({"c0": [f"i{i}" for i in range(rows)], "c1": [f"sname-{i % 97}" for i in range(rows)]})
    frame = arrow_frame(spark, table)
    assert frame.rdd.getNumPartitions() >= table.nbytes // PARTITION_BYTES
    assert "LocalRelation" not in frame._jdf.queryExecution().optimizedPlan().toString()
    back = frame.toArrow()
    assert back.num_rows == rows and sorted(back.column("c0").to_pylist()) == sorted(table.column("c0").to_pylist())
    small = arrow_frame(spark, table.slice(0, 10))
    assert "LocalRelation" in small._jdf.queryExecution().optimizedPlan().toString()


@pytest.mark.spark
def test_the_users_session_gets_deltalogs_settings_per_query_and_keeps_its_own(spark):
    from deltalog.spark import materialise
    spark.conf.set("spark.sql.constraintPropagation.enabled", "true")
    spark.conf.set("spark.sql.caseSensitive", "false")
    try:
        edges = spark.createDataFrame([(i, i + 1) for i in range(6)], "a long, b long")
        program = ("path(Xa, XA) :- edge(Xa, XA).  path(Xa, Z) :- path(Xa, XA), path(XA, Z).  "
                   "back(XA, Xa) :- path(Xa, XA).")      # Xa and XA: one column, case-insensitively
        found = materialise(spark, program, {"edge": edges}, offload=None)
        expected = [(i, j) for i in range(7) for j in range(i + 1, 7)]
        assert sorted((r.c0, r.c1) for r in found["path"].collect()) == expected
        assert sorted((r.c1, r.c0) for r in found["back"].collect()) == expected
        assert spark.conf.get("spark.sql.constraintPropagation.enabled") == "true"
        assert spark.conf.get("spark.sql.caseSensitive") == "false"
    finally:
        for key, value in REQUIRED.items():
            spark.conf.set(key, value)


@pytest.mark.spark
def test_a_non_activated_venv_runs_quietly(tmp_path):
    """PATH without the driver's interpreter (PySpark's default worker Python is ``python3`` from PATH,
    here the system's, without numpy or deltalog): the workers must run the driver's own Python."""
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "edge.tsv").write_text("1\t2\n2\t3\n")
    (tmp_path / "tc.dl").write_text("path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n")
    result = subprocess.run([sys.executable, "-m", "deltalog", "run", str(tmp_path / "tc.dl"), "--facts",
                             str(tmp_path / "facts"), "--out", str(tmp_path / "out"), "--backend", "spark",
                             "--driver-memory", "1g", "--quiet"], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin",
                                 "PYTHONWARNINGS": "ignore"})    # Python's own warnings: not Spark's log
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == "" and result.stderr == ""
    assert (tmp_path / "out" / "path.tsv").read_text().count("\n") == 3


@pytest.mark.parametrize("quiet", [[], ["--quiet"]])
def test_without_java_the_cli_says_so(tmp_path, quiet):
    (tmp_path / "tc.dl").write_text("p(X) :- q(X).\n")
    result = subprocess.run([sys.executable, "-m", "deltalog", "run", str(tmp_path / "tc.dl"), "--out",
                             str(tmp_path / "out"), "--backend", "spark", *quiet], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PYTHONPATH": str(SRC), "JAVA_HOME": "/nonexistent"})
    assert result.returncode == 2
    assert "error: Spark's JVM did not start" in result.stderr and "JAVA_HOME" in result.stderr
    assert "Traceback" not in result.stderr
