"""What the user told Spark before deltalog starts it, and starting the JVM quietly.

deltalog must not override a user's Spark configuration: ``spark-submit --master ...``, ``--conf``,
``spark-defaults.conf`` and ``PYSPARK_SUBMIT_ARGS`` all win over deltalog's defaults. Under
spark-submit the JVM is already running and its system properties hold every such setting; otherwise
PySpark is about to launch it through ``spark-submit pyspark-shell``, which reads the properties file
and ``PYSPARK_SUBMIT_ARGS``, so those are read here the same way.
"""

from __future__ import annotations

import atexit
import os
import re
import shlex
import tempfile
from pathlib import Path

JAVA_HINT = "Spark 4 needs Java 17 or later: java on PATH, or JAVA_HOME"
SUBMIT_FLAGS = {"--master": "spark.master", "--driver-memory": "spark.driver.memory",
                "--executor-memory": "spark.executor.memory", "--name": "spark.app.name"}


def jvm_running() -> bool:
    """True when a JVM gateway exists already: under spark-submit, or after an earlier session."""
    from pyspark import SparkContext
    return SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ


def preset() -> dict[str, str]:
    """The Spark settings already given by the user (spark-submit, spark-defaults.conf, PYSPARK_SUBMIT_ARGS)."""
    if jvm_running():
        from pyspark import SparkConf, SparkContext
        SparkContext._ensure_initialized()          # connects to spark-submit's JVM; no new process
        return dict(SparkConf().getAll())           # the JVM's spark.* system properties
    args = shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    found = read_properties(_properties_file(args))
    found.update(submit_args(args))
    return found


def _properties_file(args: list[str]) -> Path:
    if "--properties-file" in args[:-1]:
        return Path(args[args.index("--properties-file") + 1])
    conf_dir = os.environ.get("SPARK_CONF_DIR")
    if not conf_dir:
        from pyspark.find_spark_home import _find_spark_home
        conf_dir = os.path.join(_find_spark_home(), "conf")
    return Path(conf_dir) / "spark-defaults.conf"


def read_properties(path: Path) -> dict[str, str]:
    """``key value`` or ``key=value`` lines of a Spark properties file (``#`` comments); none if absent."""
    found: dict[str, str] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        match = re.match(r"\s*([^#\s=:]+)\s*[=:\s]\s*(.*?)\s*$", line)   # java.util.Properties separators
        if match:
            found[match.group(1)] = match.group(2)
    return found


def submit_args(args: list[str]) -> dict[str, str]:
    """The settings in spark-submit style arguments (``--master``, ``--driver-memory``, ``--conf k=v``...)."""
    found: dict[str, str] = {}
    for flag, value in zip(args, args[1:]):
        if flag in SUBMIT_FLAGS:
            found[SUBMIT_FLAGS[flag]] = value
        elif flag == "--conf" and "=" in value:
            key, _, setting = value.partition("=")
            found[key] = setting
    return found


def launch_quietly(settings: dict[str, str]) -> str:
    """Start the JVM with its console output (start-up banner, warnings, progress bars) sent to a log
    file instead of the terminal; returns the file's path (removed when the process exits)."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    handle, log = tempfile.mkstemp(prefix="deltalog-spark-", suffix=".log")
    atexit.register(_remove, log)
    conf = SparkConf(loadDefaults=False).setAll(list(settings.items()))
    with os.fdopen(handle, "wb") as sink:
        try:
            gateway = launch_gateway(conf, popen_kwargs={"stdout": sink, "stderr": sink})
        except Exception as exc:     # the reason is in the log, which is removed at exit: show it
            from deltalog.backends.spark.errors import SparkBackendError
            said = Path(log).read_text(errors="replace").strip().splitlines()[-5:]
            raise SparkBackendError("Spark's JVM did not start", notes=(*said, JAVA_HINT)) from exc
    SparkContext._ensure_initialized(gateway=gateway)
    return log


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
