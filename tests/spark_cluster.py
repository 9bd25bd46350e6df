"""A standalone Spark cluster on 127.0.0.1 for tests: a master and workers started from the pyspark
wheel's own ``bin/spark-class``, each in its own process group so that stopping one (by its PID) also
stops the executors it launched. Everything binds to 127.0.0.1 on free ports."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


def spark_home() -> Path:
    from pyspark.find_spark_home import _find_spark_home
    return Path(_find_spark_home())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)


class Cluster:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.conf_dir = workdir / "conf"            # empty: no spark-defaults.conf of the machine applies
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        self.processes: list[subprocess.Popen] = []
        self.workers: list[tuple[subprocess.Popen, int]] = []   # (process, web UI port)
        self.env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_MASTER_HOST": "127.0.0.1",
                    "SPARK_CONF_DIR": str(self.conf_dir), "SPARK_DAEMON_MEMORY": "256m",
                    "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",    # else it listens on 6066
                    "SPARK_LOG_DIR": str(workdir / "logs"), "SPARK_WORKER_DIR": str(workdir / "work")}
        self.port, self.ui_port = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"

    def _start(self, name: str, *args: str) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "wb")
        process = subprocess.Popen([str(spark_home() / "bin" / "spark-class"), *args], env=self.env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.processes.append(process)
        return process

    def start_master(self, timeout: float = 90) -> None:
        self._start("master", MASTER_CLASS, "--host", "127.0.0.1", "--port", str(self.port),
                    "--webui-port", str(self.ui_port))
        self._wait(lambda s: s.get("status") == "ALIVE", timeout, "the master did not come up")

    def start_worker(self, *, cores: int = 1, memory: str = "1g", timeout: float = 90) -> None:
        ui_port = free_port()
        number = len(self.workers)
        process = self._start(f"worker{number}", WORKER_CLASS, "--host", "127.0.0.1", "--port", str(free_port()),
                              "--webui-port", str(ui_port), "--cores", str(cores), "--memory", memory,
                              "--work-dir", str(self.workdir / f"work{number}"), self.url)
        self.workers.append((process, ui_port))
        alive = len(self.workers)
        self._wait(lambda s: s.get("aliveworkers", 0) >= alive, timeout, "a worker did not register")

    def status(self) -> dict:
        return fetch_json(f"http://127.0.0.1:{self.ui_port}/json/")

    def worker_status(self, index: int) -> dict:
        return fetch_json(f"http://127.0.0.1:{self.workers[index][1]}/json/")

    def _wait(self, ready, timeout: float, failure: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if ready(self.status()):
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"{failure} within {timeout:.0f} s; logs in {self.workdir}")

    def kill_worker(self, index: int) -> None:
        """SIGKILL a worker and its executors (its process group), as a machine failure would."""
        _signal_group(self.workers[index][0], signal.SIGKILL)
        self.workers[index][0].wait(timeout=30)

    def stop(self) -> None:
        for process in reversed(self.processes):
            _signal_group(process, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait(timeout=15)


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    """Signal the process group led by ``process`` (start_new_session made its PID the group's id)."""
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass
