"""coffer's temporary files: made beside the file they replace, named so that a sweep can
tell coffer's own from anything else, and swept once their writer is gone. Standard library
``os`` only: every write of the session-start path makes one (docs/adr/0023)."""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

from coffer.base import platform

TMP_PREFIX = ".coffer-tmp-"
# A temp file lives for one write (milliseconds); one older than this whose writer cannot be
# identified (an old name without a pid, or a pid that is alive but reused) is stale.
STALE_TMP_SECONDS = 60.0


def create_tmp(parent: Path) -> tuple[int, str]:
    """A new file 0600 beside the target, as ``tempfile.mkstemp`` makes it (its final mode
    is set just before the rename, so a kill before that leaves only a private copy), but
    without importing tempfile and random on every session start that writes."""
    while True:
        tmp = os.path.join(parent, f"{TMP_PREFIX}{os.getpid()}-{os.urandom(6).hex()}")
        try:
            return platform.open_nofollow(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:
            continue


def is_tmp_name(name: str) -> bool:
    """Whether ``name`` is one of coffer's in-flight temporary files."""
    return name.startswith(TMP_PREFIX)


def _writer_alive(name: str) -> bool | None:
    """Whether the process that made temp file ``name`` still runs (None: cannot tell)."""
    pid_text = name[len(TMP_PREFIX) :].split("-", 1)[0]
    if not pid_text.isdigit():
        return None
    pid = int(pid_text)
    if pid == os.getpid():
        return True  # maybe a write of ours in another thread: never ours to remove
    alive = platform.process_alive(pid)
    return True if alive is None else alive  # cannot tell: never remove a live write


def sweep_stale_tmp(directory: Path, now: float | None = None) -> list[str]:
    """Remove coffer's own stale temporary files from ``directory``; return their names.

    Only names with coffer's prefix, only regular files (never a link or a directory), and
    never one a live writer may still rename: a file is removed when its writer's pid is
    gone, or, if that cannot be told, when it is older than ``STALE_TMP_SECONDS``. A temp file
    whose pid is alive is left even when old: it may be another process's write in flight
    (a pid reused since is cleaned once that process ends).
    """
    removed: list[str] = []
    try:
        it = os.scandir(directory)
    except OSError:
        return removed
    with it:
        names = [de.name for de in it if de.name.startswith(TMP_PREFIX)]
    if not names:
        return removed
    now = time.time() if now is None else now
    for name in names:
        path = directory / name
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        alive = _writer_alive(name)
        if alive or (alive is None and now - st.st_mtime < STALE_TMP_SECONDS):
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed.append(name)
    return removed


def write_tmp(parent: Path, data: bytes) -> str:
    """``data`` in a new temp file of coffer's in ``parent``, flushed to disk; its path. Gone
    again if the write fails: the caller renames it into place (or removes it)."""
    fd, tmp = create_tmp(parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if exc.filename is None:  # a write or fsync names no file: say which directory
            raise OSError(exc.errno, exc.strerror, str(parent)) from exc
        raise
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def fsync_dir(path: Path) -> None:
    """Make the renames in ``path`` durable; not every platform lets a directory be opened."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
