"""Settings for the whole suite.

Hypothesis judges each property by its results, never by the machine's speed: CI and development machines are
shared and noisy, and a 200 ms deadline or a "too slow" health check there fails a correct test (seen: the
reader protocol's flipped-byte property at load 12). Properties that bound time say so in their own assertions.
"""

from hypothesis import HealthCheck, settings

settings.register_profile("tablepi", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tablepi")
