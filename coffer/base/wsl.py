"""WSL: Linux on a Windows machine, whose drives it mounts under ``WINDOWS_MOUNTS``.

Windows-side agents do not see a store inside WSL, and Windows git cannot run the clean
filter of a repository on a Windows drive (docs/adr/0057, docs/platforms.md). Read only by
doctor, adapter list and setup, never at session start; a module of its own beside the
platform seam because no call here differs by platform, only the answers do.
"""

from __future__ import annotations

import os

# None: probe (the kernel's release names Microsoft, or WSL set WSL_DISTRO_NAME); tests
# set True or False. Read only by doctor, adapter list and setup, never at session start.
WSL: bool | None = None
# "0" or "1" overrides the probe in this process and its children: a test suite run inside
# WSL must not see the real Windows side unless a test asks for it (tests/conftest.py).
OVERRIDE_VAR: str = "COFFER_WSL"
OSRELEASE: str = "/proc/sys/kernel/osrelease"
# Where WSL mounts Windows' drives (its automount root; /etc/wsl.conf may move it).
WINDOWS_MOUNTS: str = "/mnt"
# Entries of C:\Users that are no one's home.
_NOT_HOMES: frozenset[str] = frozenset({"all users", "default", "default user", "public"})


def in_wsl() -> bool:
    """Whether this Linux runs inside WSL, beside a Windows whose programs do not see it."""
    if WSL is not None:
        return WSL
    override = os.environ.get(OVERRIDE_VAR, "").strip()
    if override in ("0", "1"):
        return override == "1"
    if os.environ.get("WSL_DISTRO_NAME"):
        return True
    try:
        with open(OSRELEASE, encoding="utf-8", errors="replace") as f:
            return "microsoft" in f.read().lower()
    except OSError:
        return False


def windows_drive(path: str | os.PathLike[str]) -> str | None:
    """The Windows drive letter ``path`` lies on as WSL mounts it (``/mnt/c/...``: ``c``);
    None outside WSL or off those drives."""
    if not in_wsl():
        return None
    rel = os.path.relpath(os.path.abspath(path), WINDOWS_MOUNTS)
    drive = rel.split(os.sep, 1)[0]
    return drive.lower() if len(drive) == 1 and drive.isalpha() else None


def windows_homes() -> list[str]:
    """Windows users' home directories as WSL sees them (``/mnt/c/Users/<name>``); none
    outside WSL."""
    if not in_wsl():
        return []
    users = os.path.join(WINDOWS_MOUNTS, "c", "Users")
    try:
        with os.scandir(users) as it:
            names = [e.name for e in it if e.is_dir() and e.name.lower() not in _NOT_HOMES]
    except OSError:
        return []
    return [os.path.join(users, n) for n in sorted(names)]
