"""File-system primitives every writer in coffer goes through.

Writes are atomic (temporary file in the same directory, fsync, rename, fsync of the
directory), so a crash leaves either the old or the new content, never a torn file.

A kill before the rename leaves ``.coffer-tmp-<pid>-…`` (a 0600 copy of, say, ``AGENTS.md``);
the next write into that directory removes coffer's own stale ones: those whose writer is
gone, or older than a minute when the writer cannot be told (docs/adr/0018).

Writes that must not overwrite another program's (replace or remove a file only if it still
holds what coffer read), and the atomic exchange they use, are in :mod:`coffer.base.swaps`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from coffer.base import faults, platform
from coffer.base.errors import CofferError, StoreError
from coffer.base.tmpfiles import STALE_TMP_SECONDS as STALE_TMP_SECONDS
from coffer.base.tmpfiles import fsync_dir, write_tmp
from coffer.base.tmpfiles import is_tmp_name as is_tmp_name
from coffer.base.tmpfiles import sweep_stale_tmp as sweep_stale_tmp

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


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
            faults.step(f"mkdir {d}")
            d.mkdir(mode=mode, exist_ok=True)
        if not path.is_dir():
            raise FileExistsError(path)
    except FileExistsError as exc:
        raise CofferError(f"{path} exists and is not a directory") from exc
    except OSError as exc:
        raise CofferError(f"cannot create directory {path}: {exc.strerror or exc}") from exc


def read_only(path: Path) -> str | None:
    """Why coffer must not rewrite the existing file ``path`` (through a link: the file it
    points to): its owner took every write bit away. None when it may be written.

    The bits are read, not ``os.access``: as root every file is writable, and a 0444
    ``AGENTS.md`` is the user saying "leave this as it is" whoever runs coffer.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o222:
        return None
    return (
        f"{path} is read-only (mode {stat.S_IMODE(st.st_mode):04o}), so coffer left it as it "
        f"is; make it writable (`chmod u+w {path}`) and run again to let coffer edit it"
    )


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = PRIVATE_FILE_MODE) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode=None`` keeps the mode of the file being replaced (used for files a user owns,
    such as ``AGENTS.md``), falling back to 0644-under-umask for a new file.
    A symlink at ``path`` is replaced by a regular file only if the caller allowed it
    by resolving the path first; here it is refused, so coffer never writes through a link.
    """
    parent = path.parent
    st = replaceable(path)
    mode = mode_for(path, st, mode)
    sweep_stale_tmp(parent)
    faults.step(f"tmpfile {path}")
    tmp = write_tmp(parent, data)
    try:
        os.chmod(tmp, mode)
        faults.step(f"replace {path}")
        platform.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(parent)


def replaceable(path: Path) -> os.stat_result | None:
    """The lstat of ``path`` (None: absent); CofferError for a link or a non-file.

    Every replacing write checks this first (here and in coffer.base.swaps)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if platform.is_link(st):  # a junction too, which lstat shows as a directory
        raise CofferError(f"refusing to write through symlink {path}")
    if not stat.S_ISREG(st.st_mode):
        raise CofferError(f"refusing to replace {path}: not a regular file")
    return st


def mode_for(path: Path, st: os.stat_result | None, mode: int | None) -> int:
    """The mode a replacement gets: ``mode``, or (None) the replaced file's own."""
    if mode is not None:
        return mode
    if st is None:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
    if not st.st_mode & 0o222:  # a user's file made read-only (callers check it first)
        raise CofferError(read_only(path) or f"{path} is read-only")
    return stat.S_IMODE(st.st_mode)


def rename(src: Path, dst: Path) -> None:
    """``os.replace`` as one counted change (see :mod:`coffer.base.faults`)."""
    faults.step(f"rename {src} {dst}")
    platform.replace(src, dst)


def unlink(path: Path) -> None:
    faults.step(f"unlink {path}")
    os.unlink(path)


def rmdir(path: Path) -> None:
    faults.step(f"rmdir {path}")
    os.rmdir(path)


def rmtree(path: Path) -> None:
    """Remove a directory coffer made (a staging copy); one counted change."""
    import shutil  # imports compression modules: ~3 ms that most commands never need

    faults.step(f"rmtree {path}")
    shutil.rmtree(path)


def symlink(target: Path, link: Path) -> str:
    """Link the directory ``link`` to ``target``: a symlink, or a junction where symlinks
    are refused (coffer.base.platform); which one."""
    faults.step(f"symlink {link}")
    return platform.make_dir_link(target, link)


def remove_link(path: Path) -> None:
    """Remove coffer's link ``path`` (symlink or junction), never what it points to."""
    faults.step(f"unlink {path}")
    platform.remove_link(path)


def move_dir(src: Path, dst: Path) -> None:
    """Move directory ``src`` to a new path ``dst`` so that a kill at any point leaves a
    complete copy at ``src`` or at ``dst`` (``dst`` only ever appears complete)."""
    try:
        rename(src, dst)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    import shutil  # another file system: copy beside the destination, rename it into place

    partial = dst.with_name(dst.name + ".partial")
    if partial.exists():
        rmtree(partial)
    faults.step(f"copytree {src} {partial}")
    shutil.copytree(src, partial, symlinks=True)
    rename(partial, dst)
    rmtree(src)


def edit_target(path: Path) -> Path:
    """The file coffer edits for the config file ``path``: ``path`` itself, or, when it is
    a symlink (stow, chezmoi's symlink mode, home-manager), the regular file it points to.

    The link is never replaced, so it stays a link pointing where it did. A link coffer
    cannot edit through (dangling, to something that is not a file, or read-only like a
    home-manager file in the Nix store) raises a CofferError saying what to do instead.
    """
    try:
        if not stat.S_ISLNK(os.lstat(path).st_mode):
            return path
        shown = os.readlink(path)
    except FileNotFoundError:
        return path
    target = Path(os.path.realpath(path))
    try:
        st = os.stat(path)
    except OSError:
        raise CofferError(
            f"{path} is a symlink to {shown}, which does not exist; coffer does not create "
            "files through a dangling link. Point the link at a file (or replace it with "
            "one), then run again"
        ) from None
    if not stat.S_ISREG(st.st_mode):
        raise CofferError(f"{path} is a symlink to {target}, which is not a regular file")
    if not (os.access(target, os.W_OK) and os.access(target.parent, os.W_OK)):
        raise CofferError(
            f"{path} is a symlink to {target}, which is read-only (a dotfile manager such "
            "as home-manager keeps it); add coffer's change to your dotfile manager's "
            "source for this file instead"
        )
    return target


def link_of(path: Path) -> str | None:
    """What the symlink ``path`` points to (as written), or None when it is no link."""
    try:
        return os.readlink(path)
    except OSError:
        return None


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
        fd = platform.open_nofollow(path, os.O_RDONLY)
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
