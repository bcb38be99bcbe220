"""Windows as coffer's platform seam sees it, on this host: ``COFFER_SIMULATE=windows``.

tests/conftest.py patches the seam in the test process and puts this directory first on
``PYTHONPATH``, so every ``python -m coffer`` a test starts runs this file at start-up
and patches the seam there too (docs/platforms.md). Standard library only.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable

SIMULATE = os.environ.get("COFFER_SIMULATE", "")
# The junctions the fake junction maker made, one ``dev ino target`` a line: set per test by
# tests/conftest.py, so every coffer subprocess of a test sees the same ones.
JUNCTIONS_FILE = "COFFER_SIMULATE_JUNCTIONS"
# Set (to anything): the junction maker fails too, as ``mklink /J`` does off NTFS/ReFS.
NO_JUNCTIONS = "COFFER_SIMULATE_NO_JUNCTIONS"


def _junctions_file() -> str:
    chosen = os.environ.get(JUNCTIONS_FILE)
    if chosen:
        return chosen
    # Imported only here: tests/cli/test_imports.py checks that coffer's reads never load
    # tempfile, and this file runs first in every coffer a simulated test starts.
    import tempfile

    return os.path.join(tempfile.gettempdir(), f"coffer-simulated-junctions-{os.getuid()}")


def _key(path: str | os.PathLike[str]) -> str | None:
    try:
        st = os.lstat(path)
        return f"{st.st_dev} {st.st_ino} {os.readlink(path)}"  # kept by a rename, as a junction
    except OSError:
        return None


def _recorded() -> list[str]:
    try:
        with open(_junctions_file(), encoding="utf-8") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def refuse_symlink(target: str | os.PathLike[str], link: str | os.PathLike[str]) -> None:
    """Windows without Developer Mode: ERROR_PRIVILEGE_NOT_HELD."""
    exc = OSError(errno.EACCES, "A required privilege is not held by the client", os.fspath(link))
    exc.winerror = 1314  # type: ignore[attr-defined]  # Windows sets it; a plain attribute here
    raise exc


def make_junction(link: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """``mklink /J`` as this host can: a symlink to the absolute target, recorded as a
    junction (a directory mount point cannot be made here without root)."""
    if os.environ.get(NO_JUNCTIONS):
        # What mklink prints on a FAT32 or network volume.
        raise OSError(errno.EINVAL, "Local NTFS volumes are required to complete the operation")
    os.symlink(os.path.abspath(target), link)
    with open(_junctions_file(), "a", encoding="utf-8") as f:
        f.write(f"{_key(link)}\n")


def is_junction(path: str | os.PathLike[str]) -> bool:
    key = _key(path)
    return key is not None and key in _recorded()


def remove_junction(path: str | os.PathLike[str]) -> None:
    """``os.rmdir`` as it acts on a junction: the link goes, never what it points to; on
    anything else it is the real ``os.rmdir``."""
    key = _key(path)
    kept = _recorded()
    if key is None or key not in kept:
        os.rmdir(path)
        return
    os.unlink(path)
    kept.remove(key)
    with open(_junctions_file(), "w", encoding="utf-8") as f:
        f.write("".join(f"{line}\n" for line in kept))


def simulate_windows(setattr_: Callable[[object, str, object], None]) -> None:
    """What Windows' ``os`` lacks, removed from the seam: no ``O_NOFOLLOW`` (the lstat and
    fstat checks run instead), no ``O_NONBLOCK``/``O_CLOEXEC``, no ``utime`` on a link
    itself; ``os.replace`` retried as on Windows; symlinks refused as without Developer
    Mode, so coffer's links are directory junctions (from the fake maker above); hook
    commands rendered for the agents' Windows shells; and project roots looked up in their
    on-disk spelling, as on NTFS."""
    from coffer.base import platform

    setattr_(platform, "NOFOLLOW", 0)
    setattr_(platform, "NONBLOCK", 0)
    setattr_(platform, "CLOEXEC", 0)
    setattr_(platform, "UTIME_NOFOLLOW", False)
    setattr_(platform, "RETRY_REPLACE", True)
    setattr_(platform, "JUNCTIONS", True)
    setattr_(platform, "symlink_dir", refuse_symlink)
    setattr_(platform, "make_junction", make_junction)
    setattr_(platform, "is_junction", is_junction)
    setattr_(platform, "remove_junction", remove_junction)
    setattr_(platform, "WINDOWS", True)  # hooks rendered for cmd.exe / PowerShell
    setattr_(platform, "FOLDS_CASE", True)  # roots spelled as stored (this volume: as given)


if SIMULATE == "windows" and __name__ == "sitecustomize":  # imported by conftest: it patches
    simulate_windows(setattr)
