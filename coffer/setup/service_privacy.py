"""macOS privacy controls (TCC) and the launchd watcher.

A process launchd starts is not the Terminal the user granted: macOS denies it ``~/Desktop``,
``~/Documents`` and ``~/Downloads`` (EPERM, "Operation not permitted") until the user adds
the program under System Settings → Privacy & Security. So `coffer setup` warns when a
projected project lives there, the watcher probes those projects and records a denial in
its status file, and `coffer setup`, `coffer watch --status` and `coffer adapter list` say
what to grant (docs/adr/0057). Standard library only; reads, and the watcher's one listing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from coffer.base import platform as seam

PROTECTED = ("Desktop", "Documents", "Downloads")  # the folders TCC guards for every app


def protected_folder(root: str | Path, home: Path) -> Path | None:
    """The privacy-protected home folder ``root`` lies in, or None."""
    try:
        rel = Path(os.path.abspath(root)).relative_to(os.path.abspath(home))
    except ValueError:
        return None
    if rel.parts and rel.parts[0] in PROTECTED:
        return home / rel.parts[0]
    return None


def applies() -> bool:
    return seam.SYSTEM == "darwin"


def denied_roots(roots: Iterable[str], home: Path) -> list[str]:
    """The roots under a protected folder this process may not list (the watcher calls it
    for every projected project; it lists nothing elsewhere, or off macOS)."""
    if not applies():
        return []
    out = []
    for root in roots:
        if protected_folder(root, home) is None:
            continue
        try:
            with os.scandir(root) as it:
                next(it, None)
        except PermissionError:
            out.append(str(root))
        except OSError:
            continue  # gone or unmounted: the watcher reports that on its own
    return out


def executable() -> str:
    """The program macOS asks about: the interpreter itself, links resolved (a venv's
    ``python`` is a link to the one System Settings must be given)."""
    import sys

    return os.path.realpath(sys.executable)


def grant(exe: str) -> str:
    return (
        "System Settings → Privacy & Security → Full Disk Access (or Files and Folders): "
        f"add {exe}, then restart the watcher"
    )


def install_warning(roots: Iterable[str], home: Path, exe: str) -> str | None:
    """What `coffer setup` says before loading the launchd agent, when any projected project
    lives in a protected folder."""
    inside = sorted({str(r) for r in roots if protected_folder(r, home) is not None})
    if not inside:
        return None
    shown = ", ".join(inside[:3]) + (f" and {len(inside) - 3} more" if len(inside) > 3 else "")
    return (
        f"coffer watch: macOS may deny the launchd agent access to {shown} (privacy "
        f"controls guard ~/Desktop, ~/Documents, ~/Downloads). If `coffer watch --status` "
        f"says so: {grant(exe)}"
    )


def denial_lines(watcher: Mapping[str, Any]) -> list[str]:
    """What the readers say about a denial the watcher recorded in its status file."""
    denied = watcher.get("denied") or []
    if not denied:
        return []
    exe = str(watcher.get("denied_exe") or executable())
    return [
        f"macOS privacy controls deny coffer watch access to {', '.join(map(str, denied))}: "
        f"{grant(exe)}"
    ]
