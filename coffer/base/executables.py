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
import time


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
    for folder in _folders(path):
        candidate = os.path.join(folder, command)
        if _runnable(candidate):
            return candidate
    return None


# PATH -> (when, its folders, each with whether it existed). The duplicates found are kept
# for a second, the span of one command's detection; a folder missing then is looked at
# again each time, so one made later (a first install, a test) is searched at once.
_FOLDERS: dict[str, tuple[float, tuple[tuple[str, bool], ...]]] = {}
_KEEP_SECONDS = 1.0


def _folders(path: str) -> list[str]:
    """The PATH's directories that exist, each once: the first of those that are one
    directory (``/bin`` and ``/usr/bin`` on a merged-usr system, a folder listed twice).
    The same file is found either way; detection asks for thirty-odd names, so this saves
    a ``stat`` per name for every duplicate."""
    now = time.monotonic()
    known = _FOLDERS.get(path)
    if known is None or now - known[0] >= _KEEP_SECONDS:
        known = (now, _survey(path))
        # A relative entry (or an empty one: the working directory) means another folder
        # once the process changes directory: such a PATH is looked at afresh each time.
        if all(os.path.isabs(f) for f, _ in known[1]):
            _FOLDERS[path] = known
    return [f for f, existed in known[1] if existed or os.path.isdir(f or ".")]


def _survey(path: str) -> tuple[tuple[str, bool], ...]:
    out: list[tuple[str, bool]] = []
    seen: set[tuple[int, int]] = set()
    for folder in path.split(os.pathsep):
        try:
            st = os.stat(folder or ".")
        except (OSError, ValueError):
            out.append((folder, False))
            continue
        if not stat.S_ISDIR(st.st_mode):
            out.append((folder, False))
        elif (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            out.append((folder, True))
    return tuple(out)


def _runnable(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISDIR(mode) and os.access(path, os.X_OK)
