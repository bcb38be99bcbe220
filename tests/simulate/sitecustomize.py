"""Windows as coffer's platform seam sees it, on this host: ``COFFER_SIMULATE=windows``.

tests/conftest.py patches the seam in the test process and puts this directory first on
``PYTHONPATH``, so every ``python -m coffer`` a test starts runs this file at start-up
and patches the seam there too (docs/platforms.md). Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Callable

SIMULATE = os.environ.get("COFFER_SIMULATE", "")


def simulate_windows(setattr_: Callable[[object, str, object], None]) -> None:
    """What Windows' ``os`` lacks, removed from the seam: no ``O_NOFOLLOW`` (the lstat and
    fstat checks run instead), no ``O_NONBLOCK``/``O_CLOEXEC``, no ``utime`` on a link
    itself; ``os.replace`` retried as on Windows; and hook commands rendered for the
    agents' Windows shells."""
    from coffer.base import platform

    setattr_(platform, "NOFOLLOW", 0)
    setattr_(platform, "NONBLOCK", 0)
    setattr_(platform, "CLOEXEC", 0)
    setattr_(platform, "UTIME_NOFOLLOW", False)
    setattr_(platform, "RETRY_REPLACE", True)
    setattr_(platform, "WINDOWS", True)  # hooks rendered for cmd.exe / PowerShell


if SIMULATE == "windows" and __name__ == "sitecustomize":  # imported by conftest: it patches
    simulate_windows(setattr)
