"""deltalog on a real standalone Spark cluster (master + 2 workers on 127.0.0.1, from the pyspark wheel's
scripts): the README's spark-submit form, the pipeline API with the user's own session, a Python on the
executors that lacks deltalog's needs, and a worker killed mid-run. Every driver runs in a subprocess
(one SparkContext per process) with a time limit; the cluster is stopped by PID whatever happens."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spark_cluster import Cluster, spark_home

pytestmark = [pytest.mark.spark, pytest.mark.slow]

TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"
SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        started.start_master()
        started.start_worker(memory="1g")
        started.start_worker(memory="1g")
        yield started
    finally:
        started.stop()


def driver_env(cluster: Cluster, tmp: Path) -> dict[str, str]:
    return {**cluster.env, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
            "PYSPARK_DRIVER_PYTHON": sys.executable, "XDG_CACHE_HOME": str(tmp / "cache")}


def submit(cluster: Cluster, tmp: Path, *args: str, python: str = sys.executable, wait: float = 300,
           watch=None, conf: tuple[str, ...] = (), env: dict | None = None) -> subprocess.CompletedProcess:
    """The README's form: spark-submit --master spark://... deltalog/spark.py run ..."""
    import deltalog.spark
    command = [str(spark_home() / "bin" / "spark-submit"), "--master", cluster.url, "--driver-memory", "1g",
               "--conf", "spark.ui.enabled=false",
               *[arg for c in conf or ("spark.executor.memory=1g",) for arg in ("--conf", c)],
               "--conf", f"spark.pyspark.python={python}",
               "--conf", f"spark.pyspark.driver.python={sys.executable}",   # else the driver runs ``python``
               "--conf", "spark.eventLog.enabled=true", "--conf", f"spark.eventLog.dir={tmp}",
               "--conf", "spark.eventLog.rolling.enabled=false", "--conf", "spark.eventLog.compress=false",
               deltalog.spark.__file__, *args]
    return run(command, {**driver_env(cluster, tmp), **(env or {})}, wait, watch)


def run(command: list[str], env: dict, wait: float, watch=None) -> subprocess.CompletedProcess:
    """Run a driver in its own process group; ``watch(process)`` is called every second while it runs."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True, text=True)
    deadline = time.monotonic() + wait
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if watch is not None:
                watch(process)
            time.sleep(1)
        out, err = process.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def chains(directory: Path, chains: int, length: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "edge.tsv").write_text("".join(f"{c * 1000 + i}\t{c * 1000 + i + 1}\n"
                                                for c in range(chains) for i in range(length)))
    (directory.parent / "tc.dl").write_text(TC)
    return directory.parent / "tc.dl"


def embedded(program: Path, facts: Path, out: Path) -> str:
    from deltalog.cli import main
    assert main(["run", str(program), "--facts", str(facts), "--out", str(out), "--quiet"]) == 0
    return "".join(sorted((out / "path.tsv").read_text().splitlines(keepends=True)))


def sorted_text(path: Path) -> str:
    return "".join(sorted(path.read_text().splitlines(keepends=True)))


def task_executors(event_dir: Path) -> tuple[str, list[str]]:
    """The application id and the executor of every finished task, from Spark's event log."""
    (log,) = [p for p in event_dir.iterdir() if p.name.startswith("app-")]
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return log.name, [e["Task Info"]["Executor ID"] for e in events if e["Event"] == "SparkListenerTaskEnd"]


def test_readme_spark_submit_runs_on_the_executors(cluster, tmp_path):
    program = chains(tmp_path / "facts", chains=3, length=6)
    result = submit(cluster, tmp_path, "run", str(program), "--facts", str(tmp_path / "facts"),
                    "--out", str(tmp_path / "out"), "--quiet")
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted_text(tmp_path / "out" / "path.tsv") == embedded(program, tmp_path / "facts", tmp_path / "local")
    app, executors = task_executors(tmp_path)
    assert executors and "driver" not in executors
    (finished,) = [a for a in cluster.status()["completedapps"] if a["id"] == app]
    assert finished["state"] == "FINISHED" and finished["cores"] >= 1
    assert not list(tmp_path.glob("out.deltalog-checkpoints-*"))        # the derived checkpoints are removed


API_SCRIPT = """
import json, sys
from pyspark.sql import SparkSession
from deltalog.errors import InputError
from deltalog.spark import materialise
spark = (SparkSession.builder.master(sys.argv[1]).config("spark.driver.memory", "1g")
         .config("spark.ui.enabled", "false").config("spark.executor.memory", "1g")
         .config("spark.pyspark.python", sys.executable).getOrCreate())
edges = spark.createDataFrame([(c * 1000 + i, c * 1000 + i + 1) for c in range(3) for i in range(5)],
                              "a long, b long")
try:
    materialise(spark, sys.argv[2], {"edge": edges})
    print("no error without a checkpoint directory", file=sys.stderr)
except InputError as error:
    assert "reliable checkpoints" in str(error), error
spark.sparkContext.setCheckpointDir(sys.argv[3])
before = spark.conf.get("spark.sql.constraintPropagation.enabled")
rows = materialise(spark, sys.argv[2], {"edge": edges}, offload=None)["path"].collect()
assert spark.conf.get("spark.sql.constraintPropagation.enabled") == before, "the user's setting was not restored"
print(json.dumps({"app": spark.sparkContext.applicationId, "rows": sorted([r.c0, r.c1] for r in rows)}))
"""


def test_materialise_with_the_users_cluster_session(cluster, tmp_path):
    program = chains(tmp_path / "facts", chains=3, length=5)
    result = run([sys.executable, "-c", API_SCRIPT, cluster.url, program.read_text(), str(tmp_path / "ckpt")],
                 driver_env(cluster, tmp_path), 300)
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout.splitlines()[-1])
    expected = sorted([int(a), int(b)] for a, b in (line.split("\t") for line in
                      embedded(program, tmp_path / "facts", tmp_path / "local").splitlines()))
    assert answer["rows"] == expected
    (app,) = [a for a in cluster.status()["completedapps"] if a["id"] == answer["app"]]
    assert app["cores"] >= 1


def test_executors_without_numpy_fail_fast_with_the_fix(cluster, tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    program = chains(tmp_path / "facts", chains=1, length=3)
    started = time.monotonic()
    result = submit(cluster, tmp_path, "run", str(program), "--facts", str(tmp_path / "facts"),
                    "--out", str(tmp_path / "out"), "--quiet", python=str(tmp_path / "bare" / "bin" / "python"),
                    wait=240)
    said = result.stdout + result.stderr       # spark-submit merges the driver's stderr into its stdout
    assert result.returncode == 2, said[-3000:]
    assert "error: the executors' Python" in said and "numpy" in said
    assert "--archives" in said and "Traceback" not in said
    assert time.monotonic() - started < 120
    assert not (tmp_path / "out").exists()


def test_a_cluster_that_cannot_run_the_application_fails_in_seconds(cluster, tmp_path):
    """Executors of 4 GB on workers of 1 GB are never granted: without the start-up check's time limit
    the run would wait for them forever ("Initial job has not accepted any resources")."""
    program = chains(tmp_path / "facts", chains=1, length=3)
    started = time.monotonic()
    result = submit(cluster, tmp_path, "run", str(program), "--facts", str(tmp_path / "facts"), "--out",
                    str(tmp_path / "out"), "--quiet", conf=("spark.executor.memory=4g",),
                    env={"DELTALOG_SPARK_PROBE_TIMEOUT": "15"}, wait=180)
    said = result.stdout + result.stderr
    assert result.returncode == 2, said[-3000:]
    assert "error: no executor ran deltalog's start-up check within 15 s" in said and "Traceback" not in said
    assert time.monotonic() - started < 120


def test_a_worker_lost_mid_run_is_survived(cluster, tmp_path):
    """Two workers; one is killed (with its executor) once the run has checkpointed a few rounds
    (seminaive rounds: ``--modules none``, or the closure module would close the chains in one step)."""
    program = chains(tmp_path / "facts", chains=4, length=40)     # 40 rounds on the Spark executor
    killed: list[int] = []

    def kill_when_running(process) -> None:
        rounds = list(tmp_path.glob("out.deltalog-checkpoints-*/*/rdd-*"))
        if not killed and len(rounds) >= 6:
            busy = [i for i in range(2) if cluster.worker_status(i)["executors"]]
            cluster.kill_worker(busy[0])
            killed.append(busy[0])

    result = submit(cluster, tmp_path, "run", str(program), "--facts", str(tmp_path / "facts"), "--out",
                    str(tmp_path / "out"), "--offload-rows", "0", "--modules", "none", "--quiet", wait=420,
                    watch=kill_when_running)
    assert killed, "the run ended before a worker could be killed"
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted_text(tmp_path / "out" / "path.tsv") == embedded(program, tmp_path / "facts", tmp_path / "local")
    assert [w["state"] for w in cluster.status()["workers"]].count("DEAD") == 1
