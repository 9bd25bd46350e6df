"""Shared fixtures: the backends every engine test runs on, and Hypothesis profiles."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("DELTALOG_HYPOTHESIS", "ci"))

BACKENDS = ["local", "spark"]

# The Spark backend under test: one small session per test process, and no driver offload in the
# shared suites, so that they exercise the Spark executor itself (tests/test_spark_offload.py tests offload).
os.environ.setdefault("DELTALOG_SPARK_SHUFFLE_PARTITIONS", "2")
os.environ.setdefault("DELTALOG_SPARK_DRIVER_MEMORY", "2g")
os.environ.setdefault("DELTALOG_OFFLOAD_ROWS", "0")
# parsed program files are cached in a directory of this test process's, not the user's (syntax/parsed_cache.py)
_PARSE_CACHE = tempfile.mkdtemp(prefix="deltalog-parse-cache-")
atexit.register(shutil.rmtree, _PARSE_CACHE, True)
os.environ.setdefault("DELTALOG_PARSE_CACHE", _PARSE_CACHE)
SPARK_EXAMPLES = {"test_seminaive_equals_naive": 5, "test_parsed_text_gives_the_same_result": 3,
                  "test_updates_equal_rematerialisation": 1}
"""Hypothesis examples per property on Spark, where every example costs 10-60 s of Spark jobs on 2 cores
(the Spark part of the suite must stay within ~15 minutes); DELTALOG_SPARK_EXAMPLES overrides them all."""


@pytest.fixture(params=BACKENDS, scope="session")
def backend_name(request) -> str:
    """Every engine test runs once per backend."""
    return request.param


@pytest.fixture(scope="session")
def spark():
    """The test process's one SparkSession (created on first use, shared by every Spark test)."""
    from deltalog.backends.spark.session import get_session
    return get_session(master="local[2]", config={"spark.ui.enabled": "false"})   # no UI port per test process


def pytest_collection_modifyitems(config, items):
    """Mark the Spark cases, and give their Hypothesis properties fewer examples."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or callspec.params.get("backend_name") != "spark":
            continue
        item.add_marker(pytest.mark.spark)
        if getattr(item.obj, "is_hypothesis_test", False):
            examples = os.environ.get("DELTALOG_SPARK_EXAMPLES") or SPARK_EXAMPLES.get(item.originalname, 3)
            item.obj = fewer_examples(item.obj, int(examples))


def fewer_examples(test, examples: int):
    """The test run with at most ``examples`` examples (its settings swapped only while this item runs:
    the local and Spark items share one function object)."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        saved = test._hypothesis_internal_use_settings
        test._hypothesis_internal_use_settings = settings(saved, max_examples=min(examples, saved.max_examples))
        try:
            return test(*args, **kwargs)
        finally:
            test._hypothesis_internal_use_settings = saved
    return run
