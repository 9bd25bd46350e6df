"""Executors that can run deltalog's Python code: ship the package, check the interpreter once.

deltalog's UDFs (float text, sum/avg/median kernels, Arrow transfers) import deltalog, numpy,
pyarrow, polars and pandas on the executors. On a local master the workers run the driver's own
interpreter (``session.use_worker_python``). On a cluster, deltalog itself is added to the job as a
zip built from the installed package (cached by version and content), and one tiny task checks, at
start-up, that the executors' Python can import everything: otherwise the first real task would fail
minutes later with a Py4J dump of ``ModuleNotFoundError``.
"""

from __future__ import annotations

import hashlib
import os
import threading
import uuid
import zipfile
from pathlib import Path

NEEDS = ("numpy", "pyarrow", "polars", "pandas", "deltalog")
PROBE_TIMEOUT = float(os.environ.get("DELTALOG_SPARK_PROBE_TIMEOUT", 180))
"""Seconds to wait for an executor to run the check (a cluster with no free worker never runs it)."""

ARCHIVE_HINT = ("ship a packed environment that has them: `venv-pack -o env.tar.gz` (or conda-pack), then "
                "spark-submit --archives env.tar.gz#env --conf spark.pyspark.python=./env/bin/python ... "
                "(docs/spark.md, 'Python on the executors'); on a one-machine cluster, "
                "--conf spark.pyspark.python=<the driver's python> is enough")

_PROBE_SOURCE = '''
def probe(_, names=NAMES):
    import importlib, sys
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:
            missing.append((name, f"{type(exc).__name__}: {exc}"))
    yield (sys.executable, missing)
'''
_checked: set[str] = set()


def package_zip(cache: Path | None = None) -> Path:
    """A zip of the installed deltalog package, rebuilt only when its version or files change."""
    import deltalog
    root = Path(deltalog.__file__).parent
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and p.suffix not in (".pyc", ".so"))
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    cache = cache or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "deltalog"
    target = cache / f"deltalog-{deltalog.__version__}-{digest.hexdigest()[:12]}.zip"
    if not target.exists():
        cache.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{uuid.uuid4().hex}.tmp")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, Path("deltalog") / path.relative_to(root))
        os.replace(partial, target)     # atomic: concurrent runs never read a half-written zip
    return target


def prepare(spark) -> None:
    """Make deltalog importable on the executors (a local master's workers run the driver's Python unless
    the user chose one; a cluster's get the package zip) and check it once per application."""
    from deltalog.backends.spark.session import configured_python, is_local, use_worker_python
    import sys
    sc = spark.sparkContext
    use_worker_python(sc)       # also for a user's session: PySpark's default is ``python3`` from PATH
    if sc.applicationId in _checked:
        return
    if not is_local(sc.master):
        sc.addPyFile(str(package_zip()))
    if not is_local(sc.master) or configured_python(sc) not in (None, sys.executable):
        check(sc)
    _checked.add(sc.applicationId)


def check(sc, timeout: float = PROBE_TIMEOUT) -> None:
    """Run one tiny task; raise ``SparkBackendError`` naming the modules the executors cannot import."""
    from deltalog.backends.spark.errors import SparkBackendError, translate_any
    namespace = {"__name__": "__main__", "NAMES": NEEDS}   # defined in __main__: pickled by value, so the
    exec(_PROBE_SOURCE, namespace)                           # check runs even where deltalog is missing
    outcome: dict = {}
    group = f"deltalog-probe-{uuid.uuid4().hex[:8]}"

    def run() -> None:
        sc.setJobGroup(group, "deltalog: can the executors import deltalog?", interruptOnCancel=True)
        try:
            outcome["result"] = sc.parallelize([0], 1).mapPartitions(namespace["probe"]).collect()
        except Exception as exc:    # reported to the caller's thread below
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        sc.cancelJobGroup(group)
        raise SparkBackendError(f"no executor ran deltalog's start-up check within {timeout:.0f} s "
                                f"(master {sc.master})", notes=("are workers registered with the master, with "
                                                               "free cores and memory for this application?",))
    if "error" in outcome:
        raise translate_any(outcome["error"], context="the executors could not run Python") from outcome["error"]
    python, missing = outcome["result"][0]
    if missing:
        names = ", ".join(name for name, _ in missing)
        raise SparkBackendError(f"the executors' Python ({python}) cannot import {names}: "
                                f"{missing[0][1]}", notes=(ARCHIVE_HINT,))
