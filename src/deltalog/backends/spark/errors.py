"""Spark failures as deltalog errors: bad paths, unreadable or mismatched data, out of memory.

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


class SparkBackendError(DeltalogError):
    """Spark failed to run a job for a reason that is not the user's data (memory, a lost executor)."""


def _message(exc: BaseException) -> str:
    text = getattr(exc, "getMessage", lambda: str(exc))() if hasattr(exc, "getErrorClass") else str(exc)
    return text.split("\n")[0]


def translate(exc: BaseException) -> DeltalogError | None:
    """The deltalog error for a Spark exception, or None when it is not Spark's."""
    text = str(exc)
    missing = re.search(r"PATH_NOT_FOUND\].*?[Pp]ath does not exist: (\S+?)\.?(?:\s|$)", text)
    if missing:
        return InputError(f"no such file or directory: {missing.group(1)}")
    if "OutOfMemoryError" in text or "SparkOutOfMemoryError" in text or "Java heap space" in text:
        return SparkBackendError("Spark ran out of memory", notes=(OOM_HINT,))
    if "MALFORMED_RECORD" in text or "FAILFAST" in text or "Malformed records" in text:
        return InputError(f"malformed input row: {_message(exc)}")
    if "UNRESOLVED_COLUMN" in text or "DATATYPE_MISMATCH" in text or "CANNOT_MERGE" in text:
        return InputError(f"the data does not fit the predicate's schema: {_message(exc)}")
    return None


@contextmanager
def translated():
    """Run Spark work, raising deltalog errors for the failures users can act on."""
    from pyspark.errors import PySparkException
    from py4j.protocol import Py4JError
    try:
        yield
    except (PySparkException, Py4JError) as exc:
        error = translate(exc)
        if error is None:
            raise
        raise error from exc
