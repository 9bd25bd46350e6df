"""Shared fixtures: the backends every engine test runs on, and Hypothesis profiles."""

from __future__ import annotations

import os
import sys
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

BACKENDS = ["local"]


@pytest.fixture(params=BACKENDS, scope="session")
def backend_name(request) -> str:
    """Every engine test runs once per backend."""
    return request.param
