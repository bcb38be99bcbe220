"""Where coffer keeps its own data. Front ends call these with ``os.environ``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from coffer.base import locations


def store_root(environ: Mapping[str, str]) -> Path:
    """``$COFFER_HOME`` if set, else the platform's user data directory for coffer."""
    # One rule for every layer, with the fast path and the vault cache (coffer.base.locations).
    return Path(locations.store_root(environ))


def home_dir(environ: Mapping[str, str]) -> Path:
    """The user's home directory as the environment states it."""
    home = environ.get("HOME") or environ.get("USERPROFILE")
    return Path(home) if home else Path.home()


def ledger_dir(environ: Mapping[str, str], store_root: Path) -> Path:
    """Where coffer keeps a second copy of its journal and of the small pre-images undo
    needs: the XDG state directory (``~/.local/state`` by default, on every platform), never
    inside the store, so deleting the store by hand still leaves everything undo needs
    (docs/adr/0021). One per store, named after the store's path."""
    import hashlib

    base = environ.get("XDG_STATE_HOME", "").strip()
    root = Path(base).expanduser() if base else home_dir(environ) / ".local" / "state"
    tag = hashlib.sha256(str(store_root).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return root / "coffer" / f"undo-{tag}"
