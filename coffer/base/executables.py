"""Finding a command on a PATH, as ``shutil.which`` does, without importing shutil.

shutil brings its compression modules (``bz2``, ``lzma`` and their libraries) with it,
about 6 million instructions, and ``which`` makes three checks a directory where one
``stat`` answers. Detection asks this for thirty-odd agents on every audit and session
start, and the service status once more (docs/adr/0023). Written out for POSIX; on Windows
(PATHEXT, the current directory first) it is shutil's own.
"""

from __future__ import annotations

import os
import stat


def which(command: str, path: str | None) -> str | None:
    """The file ``command`` runs, looked up on ``path`` (``os.pathsep``-separated; None:
    this process's PATH, else the system's default), or None."""
    if os.name == "nt":
        import shutil

        return shutil.which(command, path=path)
    if os.path.dirname(command):
        return command if _runnable(command) else None  # a path: PATH plays no part
    if path is None:
        path = os.environ.get("PATH")
        if path is None:
            try:
                path = os.confstr("CS_PATH")
            except (AttributeError, ValueError):
                path = os.defpath
    if not path:
        return None
    seen: set[str] = set()
    for folder in path.split(os.pathsep):
        if folder not in seen:
            seen.add(folder)
            candidate = os.path.join(folder, command)
            if _runnable(candidate):
                return candidate
    return None


def _runnable(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISDIR(mode) and os.access(path, os.X_OK)
