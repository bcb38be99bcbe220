"""Swaps: entries exchanged in one atomic step, and the writes built on them that replace
or remove a file only if it still holds what coffer read (docs/adr/0041).

:func:`exchange` swaps two entries (a directory and a symlink, or two files) with no
moment where neither exists; :func:`replace_if` and :func:`unlink_if` use it so another
program's write made between coffer's read and its write is never lost.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from coffer.base import faults, fsutil, platform
from coffer.base.errors import CofferError
from coffer.base.tmpfiles import TMP_PREFIX, fsync_dir, sweep_stale_tmp, write_tmp


def replace_if(
    path: Path, data: bytes, expected: bytes | None, mode: int | None = fsutil.PRIVATE_FILE_MODE
) -> tuple[bool, bytes | None]:
    """Replace ``path`` by ``data`` atomically (as ``fsutil.atomic_write_bytes``), but only
    if it still holds ``expected`` (None: no file). (True, None) when written; otherwise
    (False, what the file holds now): another program's write, left in place.

    There is no compare-and-swap for files, so the check comes after the swap: an atomic
    exchange (or, for a file that does not exist, a hard link) leaves what was at ``path``
    in the temporary file, and a second exchange puts it straight back when it is not
    ``expected``. So a write made at any moment before the swap is never lost, and the
    other program's bytes are out of place only between the two exchanges. Where the file
    system has no atomic exchange the file is read just before the rename instead, which
    narrows the window but cannot close it (docs/adr/0041).
    """
    parent = path.parent
    st = fsutil.replaceable(path)
    mode = fsutil.mode_for(path, st, mode)
    sweep_stale_tmp(parent)
    faults.step(f"tmpfile {path}")
    tmp = Path(write_tmp(parent, data))
    try:
        os.chmod(tmp, mode)
        how, found = _swap(tmp, path)
        if found == expected:
            return True, None
        if how == "link":  # the file had gone: take coffer's away again
            return False, _unlink_if(path, data)[1]
        if how == "exchange":
            return False, _swap_back(tmp, path, data, found)
        if found is not None:  # no exchange here: the old way, read then rename
            fsutil.atomic_write_bytes(path, found, mode=mode)
        return False, found
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        fsync_dir(parent)


def _swap(tmp: Path, path: Path) -> tuple[str, bytes | None]:
    """Put ``tmp`` at ``path``: how, and what was there (None: nothing)."""
    for _ in range(100):  # the file appearing and vanishing under us, again and again
        faults.step(f"link {path}")
        try:
            os.link(tmp, path)  # only where there is no file: nothing to lose
            return "link", None
        except FileExistsError:
            pass
        except OSError as exc:  # no hard links here: the rename, if there still is no file
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            if not os.path.lexists(path):
                platform.replace(tmp, path)
                return "replace", None
        try:
            if exchange(tmp, path):
                return "exchange", fsutil.read_bytes_or_none(tmp)  # whoever wrote it
        except FileNotFoundError:
            continue  # removed since: create it
        current = fsutil.read_bytes_or_none(path)
        faults.step(f"replace {path}")
        platform.replace(tmp, path)
        return "replace", current
    raise CofferError(f"{path} keeps appearing and disappearing; coffer left it alone")


def _swap_back(tmp: Path, path: Path, ours: bytes, theirs: bytes | None) -> bytes | None:
    """After an exchange displaced ``theirs`` into ``tmp``: exchange again, so ``path``
    holds it. Should yet another write have landed in between, that newer one goes back
    instead; the file's bytes at the end."""
    want: bytes | None = theirs
    junk: bytes | None = ours
    for _ in range(100):
        if not exchange(tmp, path):
            break
        back = fsutil.read_bytes_or_none(tmp)
        if back == junk:
            return want
        want, junk = back, want  # newer than what was just put back: it goes back instead
    return fsutil.read_bytes_or_none(path)


def _unlink_if(path: Path, expected: bytes | None) -> tuple[bool, bytes | None]:
    """Remove ``path`` if it holds ``expected``; (removed, what it holds otherwise)."""
    aside = path.with_name(f"{TMP_PREFIX}{os.getpid()}-{os.urandom(6).hex()}")
    faults.step(f"unlink {path}")
    try:
        # moved aside first, so a write just before is seen; retried where Windows refuses
        # to move a file another program holds open
        platform.replace(path, aside)
    except FileNotFoundError:
        return expected is None, None
    try:
        found = fsutil.read_bytes_or_none(aside)
        if found == expected:
            return True, None
        with contextlib.suppress(FileExistsError):  # a newer file there stays
            os.link(aside, path)
        return False, fsutil.read_bytes_or_none(path)
    finally:
        os.unlink(aside)


def unlink_if(path: Path, expected: bytes) -> tuple[bool, bytes | None]:
    """Remove the file ``path`` only if it still holds ``expected``: (True, None), or
    (False, what it holds now: another program's write, left in place)."""
    removed, found = _unlink_if(path, expected)
    fsync_dir(path.parent)
    return removed, found


def exchange(a: Path, b: Path) -> bool:
    """Swap the entries at ``a`` and ``b`` in one atomic step (``renameat2`` with
    ``RENAME_EXCHANGE`` on Linux, ``renamex_np`` with ``RENAME_SWAP`` on macOS).

    This is the only way to replace a directory by a symlink, or back, with no moment
    where neither exists. False when the system or file system cannot do it: the caller
    falls back to two renames and a later run finishes a swap cut between them.
    """
    if faults.NO_EXCHANGE:
        return False
    import ctypes
    import sys

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux"):
            fn = libc.renameat2
            at_fdcwd = -100
            args: tuple[object, ...] = (at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), 2)
        elif sys.platform == "darwin":
            # int renamex_np(const char *from, const char *to, unsigned int flags), RENAME_SWAP
            # 0x2 (rename(2), <stdio.h>); typed so arm64's calling convention is respected.
            fn = libc.renamex_np
            fn.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint)
            fn.restype = ctypes.c_int
            args = (os.fsencode(a), os.fsencode(b), 2)
        else:
            return False
    except (AttributeError, OSError):
        return False  # an old C library without the call
    faults.step(f"exchange {a} {b}")
    if fn(*args) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # a file system without atomic exchange
    raise OSError(err, os.strerror(err), str(a))
