"""Settings for every test: Hypothesis runs without time limits on a busy machine, and the
user's cache ($XDG_CACHE_HOME: CTranslate2 conversions, `fitsub.nmt.ct2`) is the session's own.

CI and development machines are shared (a training run often holds a core), so Hypothesis's
timing checks (a per-example deadline, the "input generation is slow" health check) fail tests
for the machine's load, not for the code's behaviour; the properties themselves are unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("fitsub", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("fitsub")


@pytest.fixture(autouse=True, scope="session")
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """$XDG_CACHE_HOME for the session (subprocesses inherit it): converted weights of the
    shipped and test models go there, never into the user's ~/.cache or the models' folders."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before
