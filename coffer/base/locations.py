"""Where coffer keeps its store: the one definition every layer uses.

``$COFFER_HOME``, else platformdirs' user data directory for coffer, on every platform
(issue 28 §1, docs/adr/0048): coffer never spells out a platform's rule itself.

The session-start no-op of ``coffer project`` cannot afford to import platformdirs (~25 ms,
as much as the rest of the no-op; docs/adr/0004), so it knows the store only from
``$COFFER_HOME``, the path ``coffer setup`` records in every hook command and MCP entry it
writes (coffer.setup.launch). Without it the no-op step is skipped and the full path runs.
Standard library only, for that reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def known_store_root(environ: Mapping[str, str]) -> str | None:
    """``$COFFER_HOME`` made absolute, or None when it is not set (then only platformdirs
    knows, and :func:`store_root` asks it)."""
    explicit = environ.get("COFFER_HOME", "").strip()
    return os.path.abspath(os.path.expanduser(explicit)) if explicit else None


def store_root(environ: Mapping[str, str]) -> str:
    """``$COFFER_HOME`` if set, else the platform's user data directory for coffer, as
    platformdirs computes it (from the process environment: ``XDG_DATA_HOME`` on Linux)."""
    known = known_store_root(environ)
    if known is not None:
        return known
    import platformdirs

    return platformdirs.user_data_dir("coffer", appauthor=False)
