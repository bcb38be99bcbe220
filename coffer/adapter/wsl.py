"""Agents installed on the Windows side of a WSL machine (docs/adr/0057).

A Windows-native agent reads its memory and config from the Windows user's home, which
WSL sees under ``/mnt/c/Users/<name>``; it does not see a store inside WSL, and coffer
never links across ``/mnt`` (a Linux symlink there is not one Windows follows). Which
directory says an agent is installed is each adapter's data (its config directory);
this module only looks for those directories in the Windows homes and says so.
"""

from __future__ import annotations

from pathlib import Path

from coffer.adapter import Context
from coffer.adapter.deferred import presence
from coffer.adapter.registry import Loaded
from coffer.base import wsl as wsl_seam


def _windows_context(home: Path) -> Context:
    """A context for the Windows user at ``home``, resolved by each agent's Windows rules
    (``system="win32"``: VS Code's and Zed's %APPDATA%, an xdg-basedir agent's
    ``~/.config``); no variables of this shell apply to programs started in Windows, so
    %APPDATA% is where Windows puts it, ``<home>/AppData/Roaming``."""
    return Context(home, {}, home, None, "win32")


def windows_side(loaded: Loaded) -> list[tuple[str, Path]]:
    """(agent, its config directory in a Windows home) for each agent installed there, by
    the config directory each adapter names (its ``config_dir`` or its spec's presence);
    none outside WSL."""
    out: list[tuple[str, Path]] = []
    for home in wsl_seam.windows_homes():
        ctx = _windows_context(Path(home))
        for name, adapter in sorted(loaded.adapters.items()):
            found = presence(adapter)  # a spec's: read without importing the module
            config_dir = found.config_dir if found else loaded.features(name).config_dir
            path = config_dir(ctx) if config_dir is not None else None
            if path is not None and path.is_dir():
                out.append((name, path))
    return out


def notice(found: list[tuple[str, Path]]) -> str | None:
    """What to tell the user about agents on the Windows side, or None."""
    if not found:
        return None
    where = ", ".join(f"{name} ({path})" for name, path in found)
    return (
        f"WSL: found on the Windows side: {where}; agents running in Windows do not see "
        "this store, and coffer never links across /mnt (run them inside WSL to share it)"
    )
