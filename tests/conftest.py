"""Settings for every test: Hypothesis runs without time limits on a busy machine.

CI and development machines are shared (a training run often holds a core), so Hypothesis's
timing checks (a per-example deadline, the "input generation is slow" health check) fail tests
for the machine's load, not for the code's behaviour; the properties themselves are unchanged.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("fitsub", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("fitsub")
