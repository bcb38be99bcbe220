"""How hard the property tests try.

The default suite runs each property with a small example count so the whole directory stays
well under a minute on a busy machine. ``COFFER_PROPERTY_EXAMPLES=<n>`` runs every property
here with ``n`` examples instead, for a deep run (lift pytest-timeout's per-test limit too):
``COFFER_PROPERTY_EXAMPLES=3000 .venv/bin/python -m pytest tests/properties --timeout=0``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

ENV = "COFFER_PROPERTY_EXAMPLES"


def examples(default: int) -> settings:
    """Settings for one property: ``default`` examples unless the environment asks for more."""
    raw = os.environ.get(ENV, "").strip()
    count = int(raw) if raw.isdigit() and int(raw) > 0 else default
    return settings(
        max_examples=count,
        deadline=None,  # a loaded 2-core machine makes per-example timing meaningless
        # The autouse fake-home fixture is function-scoped; these properties never use it
        # between examples (each makes its own temporary directory).
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
