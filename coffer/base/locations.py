"""Where coffer keeps its store: the one definition every layer uses.

Standard library ``os``/``sys`` only, because the session-start fast path of ``coffer
project`` and the vault's parse cache both need it and must stay cheap (docs/adr/0004,
docs/adr/0026). ``platformdirs`` is imported only on a platform whose rule is not
spelled out here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def known_store_root(environ: Mapping[str, str]) -> str | None:
    """``$COFFER_HOME``, or platformdirs' user data directory for coffer on the platforms
    whose rule is written out here (None elsewhere: only platformdirs knows)."""
    explicit = environ.get("COFFER_HOME", "").strip()
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Application Support", "coffer")
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        base = environ.get("XDG_DATA_HOME", "").strip() or os.path.expanduser("~/.local/share")
        return os.path.join(base, "coffer")
    return None


def store_root(environ: Mapping[str, str]) -> str:
    """``$COFFER_HOME`` if set, else the platform's user data directory for coffer."""
    known = known_store_root(environ)
    if known is not None:
        return known
    import platformdirs

    return platformdirs.user_data_dir("coffer", appauthor=False)
