"""Where coffer keeps its own data. Front ends call these with ``os.environ``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def store_root(environ: Mapping[str, str]) -> Path:
    """``$COFFER_HOME`` if set, else the platform's user data directory for coffer."""
    explicit = environ.get("COFFER_HOME", "").strip()
    if explicit:
        return Path(explicit).expanduser().absolute()
    # Imported here: platformdirs costs milliseconds that `coffer project` cannot spare
    # when COFFER_HOME is set (docs/adr/0004).
    import platformdirs

    return Path(platformdirs.user_data_dir("coffer", appauthor=False))


def home_dir(environ: Mapping[str, str]) -> Path:
    """The user's home directory as the environment states it."""
    home = environ.get("HOME") or environ.get("USERPROFILE")
    return Path(home) if home else Path.home()
