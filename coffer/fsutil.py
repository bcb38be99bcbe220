"""File-system primitives every writer in coffer goes through.

Writes are atomic (temporary file in the same directory, fsync, rename, fsync of the
directory), so a crash leaves either the old or the new content, never a torn file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from coffer.errors import CofferError, StoreError

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_TMP_PREFIX = ".coffer-tmp-"


def ensure_dir(path: Path, mode: int = PRIVATE_DIR_MODE) -> None:
    """Create ``path`` (and parents) with ``mode``; an existing directory is left as it is."""
    missing = []
    probe = path
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    try:
        # One level at a time: Path.mkdir(parents=True) gives parents the default mode.
        for d in reversed(missing):
            d.mkdir(mode=mode, exist_ok=True)
        if not path.is_dir():
            raise FileExistsError(path)
    except FileExistsError as exc:
        raise CofferError(f"{path} exists and is not a directory") from exc
    except OSError as exc:
        raise CofferError(f"cannot create directory {path}: {exc.strerror or exc}") from exc


def _fsync_dir(path: Path) -> None:
    # Makes the rename itself durable; not every platform lets a directory be opened.
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = PRIVATE_FILE_MODE) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode=None`` keeps the mode of the file being replaced (used for files a user owns,
    such as ``AGENTS.md``), falling back to 0644-under-umask for a new file.
    A symlink at ``path`` is replaced by a regular file only if the caller allowed it
    by resolving the path first; here it is refused, so coffer never writes through a link.
    """
    parent = path.parent
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise CofferError(f"refusing to write through symlink {path}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise CofferError(f"refusing to replace {path}: not a regular file")
    if mode is None:
        if st is not None:
            mode = stat.S_IMODE(st.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(parent)


def atomic_write_text(path: Path, text: str, mode: int | None = PRIVATE_FILE_MODE) -> None:
    """Atomic UTF-8 write of ``text`` (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def write_if_changed(path: Path, data: bytes, mode: int | None = PRIVATE_FILE_MODE) -> bool:
    """Write ``data`` only when it differs from what is there; return whether it wrote.

    Skipping identical writes keeps mtimes still, which is what stops watcher loops.
    """
    if read_bytes_or_none(path) == data:
        return False
    atomic_write_bytes(path, data, mode)
    return True


def read_bytes_or_none(path: Path) -> bytes | None:
    """The bytes of a regular file, or None when it does not exist.

    Never follows a final symlink.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CofferError(f"refusing to read through symlink {path}") from exc
        raise
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def safe_child(directory: Path, filename: str) -> Path:
    """``directory / filename`` after checking ``filename`` is one plain path component.

    Rejects separators, ``..``, NUL and hidden names, so no caller can be steered
    outside the directory it meant to write in.
    """
    bad = (
        not filename
        or filename in {".", ".."}
        or "/" in filename
        or "\\" in filename
        or "\0" in filename
        or filename.startswith(".")
    )
    if bad:
        raise StoreError(f"unsafe file name {filename!r}")
    return directory / filename


def is_tmp_name(name: str) -> bool:
    """Whether ``name`` is one of coffer's in-flight temporary files."""
    return name.startswith(_TMP_PREFIX)
