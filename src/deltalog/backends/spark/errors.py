"""Spark failures as deltalog errors: bad paths, unreadable or mismatched data, memory, lost executors.

PySpark raises JVM exceptions with long stack traces; users of the CLI and of the API
should see what went wrong in deltalog's terms (an ``InputError`` naming the path, or a
``SparkBackendError`` with a hint), not a Py4J dump.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

from deltalog.errors import DeltalogError, InputError

OOM_HINT = ("raise the driver memory (--driver-memory, DELTALOG_SPARK_DRIVER_MEMORY) or executor memory, "
            "or lower --broadcast-rows so that fewer relations are broadcast")


CHECKPOINT_HINT = ("locally checkpointed data lives in the executors and dies with them: use reliable "
                   "checkpoints, --checkpoint-dir DIR (or spark.checkpoint.dir) on storage that the driver and "
                   "every executor share; they are the default on cluster masters")
IMPORT_HINT = ("the executors' Python lacks it: set spark.pyspark.python to an interpreter that has deltalog's "
               "needs, or ship a packed environment with --archives (docs/spark.md, 'Python on the executors')")
TRACE_HINT = "rerun with -v for Spark's own trace"


class SparkBackendError(DeltalogError):
    """Spark failed to run a job for a reason that is not the user's data (memory, a lost executor)."""


def _message(exc: BaseException) -> str:
    text = getattr(exc, "getMessage", lambda: str(exc))() if hasattr(exc, "getErrorClass") else str(exc)
    return text.split("\n")[0]


def _malformed_where(text: str) -> str:
    """`` in FILE: RECORD`` from the JVM's trace of a malformed row (the file Spark was reading and
    the record it could not parse; Spark gives no line number), or "" when it names neither."""
    file = re.search(r"error while reading file (\S+?)\.?(?:\s|$)", text)
    record = re.search(r"Malformed CSV record: (.*?)(?: SQLSTATE|\n|$)", text) or \
        re.search(r"detected in record parsing: (.*?)\.?(?:\n|$)", text)
    where = f" in {file.group(1)}" if file else ""
    return f"{where}: {record.group(1)[:200]}" if record else where


def translate(exc: BaseException) -> DeltalogError | None:
    """The deltalog error for a Spark exception, or None when it is not one users can act on."""
    text = str(exc)
    missing = re.search(r"PATH_NOT_FOUND\].*?[Pp]ath does not exist: (\S+?)\.?(?:\s|$)", text)
    if missing:
        return InputError(f"no such file or directory: {missing.group(1)}")
    if "OutOfMemoryError" in text or "SparkOutOfMemoryError" in text or "Java heap space" in text:
        return SparkBackendError("Spark ran out of memory", notes=(OOM_HINT,))
    if "CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND" in text:
        return SparkBackendError("an executor was lost, and with it checkpointed data the job needed",
                                 notes=(CHECKPOINT_HINT,))
    module = re.search(r"ModuleNotFoundError: No module named '([^']+)'", text)
    if module:
        return SparkBackendError(f"the executors cannot import {module.group(1)}", notes=(IMPORT_HINT,))
    if "MALFORMED_RECORD" in text or "FAILFAST" in text or "Malformed records" in text:
        return InputError(f"malformed input row{_malformed_where(text) or ': ' + _message(exc)}")
    if "UNRESOLVED_COLUMN" in text or "DATATYPE_MISMATCH" in text or "CANNOT_MERGE" in text:
        return InputError(f"the data does not fit the predicate's schema: {_message(exc)}")
    return None


def is_spark_failure(exc: BaseException) -> bool:
    from pyspark.errors import PySparkException
    from py4j.protocol import Py4JError
    return isinstance(exc, (PySparkException, Py4JError))


def translate_any(exc: BaseException, context: str = "Spark failed") -> DeltalogError:
    """A deltalog error for any Spark failure: ``translate``'s when it knows one, else the first line."""
    known = translate(exc)
    if known is not None:
        return known
    if "JAVA_GATEWAY_EXITED" in str(exc):
        from deltalog.backends.spark.launch import JAVA_HINT
        return SparkBackendError("Spark's JVM did not start (its messages are above)", notes=(JAVA_HINT,))
    if "Answer from Java side is empty" in str(exc) or "Connection refused" in str(exc):
        return SparkBackendError("the Spark driver's JVM died", notes=(OOM_HINT, TRACE_HINT))
    return SparkBackendError(f"{context}: {_message(exc)}", notes=(TRACE_HINT,))


@contextmanager
def translated():
    """Run Spark work, raising deltalog errors for the failures users can act on."""
    from pyspark.errors import PySparkException
    from py4j.protocol import Py4JError
    try:
        yield
    except (PySparkException, Py4JError) as exc:
        raise translate_any(exc) from exc
