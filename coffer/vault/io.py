"""Safe reads and create-only writes (docs/vault-format.md §6.5, §6.6).

Writes never replace anything: the content goes to an exclusive temp file which is then
hard-linked to its final name, and a link fails with EEXIST whatever occupies the name.
"""

# Paths stay `str` with os/os.path on purpose: the rules mirror Node's `path` semantics
# (lexical resolve, relative, realpath of a prefix) and the walk handles thousands of entries.

from __future__ import annotations

import errno
import os
import stat
import sys
from typing import TYPE_CHECKING

from coffer.base import platform
from coffer.base.reads import read_at_most
from coffer.vault.errors import VaultError, raw_os_error
from coffer.vault.jscompat import encode_utf8
from coffer.vault.roots import assert_contained, is_within

if TYPE_CHECKING:
    from typing import Any

_PROC_FD = "/proc/self/fd" if sys.platform.startswith("linux") else None


def same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """§6.5 "same file": equal inodes; devices compared only when both are non-zero (Q23)."""
    if a.st_ino != b.st_ino:
        return False
    return not (a.st_dev and b.st_dev and a.st_dev != b.st_dev)


def decode_text(data: bytes, label: str) -> str:
    """R4: strict UTF-8, then exactly one leading U+FEFF removed."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise VaultError(f"{label} must contain valid UTF-8 text.") from None


def _fd_inside(fd: int, canonical_root: str) -> bool:
    # Where the opened file really lives; stronger than re-resolving the path (§6.5 step 5).
    if _PROC_FD is None:
        return False
    try:
        real = os.readlink(f"{_PROC_FD}/{fd}")
    except OSError:
        return False
    return is_within(real, canonical_root)


def safe_read_bytes(
    path: str,
    label: str,
    maximum: int,
    trusted_root: str | None = None,
    *,
    canonical_root: str | None = None,
) -> bytes:
    """§6.5 steps 1–7: the bytes of a regular, non-symlink file of at most ``maximum`` bytes.

    ``canonical_root`` is a fast path for files the vault walk found under ``trusted_root``
    (whose canonical form the caller computed once): the path-based check before opening is
    then true by construction, and the check after opening is made on the descriptor's real
    location, falling back to the path-based check where that is not available.
    """
    fast = bool(canonical_root) and trusted_root is not None
    if trusted_root is not None and not fast:
        assert_contained(path, trusted_root, f"read {label}")
    try:
        fd = platform.open_nofollow(path, os.O_RDONLY | platform.NONBLOCK)
    except platform.NotRegularFile:
        # A FIFO, refused before the open where O_NONBLOCK is missing: §6.5's regular-file
        # check, as when the open succeeds.
        raise VaultError(f"{label} must be a regular, non-symlink file.") from None
    except OSError as exc:
        raise raw_os_error(exc, "open", path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise VaultError(f"{label} must be a regular, non-symlink file.")
        try:
            lst = os.lstat(path)
        except OSError:
            lst = None
        if lst is None or not stat.S_ISREG(lst.st_mode) or not same_file(st, lst):
            raise VaultError(f"{label} must remain a regular, non-symlink file while it is opened.")
        verified = fast and _fd_inside(fd, canonical_root or "")
        if trusted_root is not None and not verified:
            assert_contained(path, trusted_root, f"read {label}")
        if st.st_size > maximum:
            raise VaultError(f"{label} is too large ({st.st_size} bytes).")
        data = read_at_most(fd, maximum)
        if len(data) > maximum:
            raise VaultError(f"{label} is too large (maximum {maximum} bytes).")
        return data
    finally:
        os.close(fd)


def safe_read_text(path: str, label: str, maximum: int, trusted_root: str | None = None) -> str:
    """§6.5 in full: safe read, then R4 decoding."""
    return decode_text(safe_read_bytes(path, label, maximum, trusted_root), label)


class DestinationExistsError(VaultError):
    """Step 6 of the create-only write found something at the final name (EEXIST)."""


def create_only_write(final: str, content: str, trusted_root: str) -> None:
    """§6.6: publish ``content`` at ``final`` without ever replacing or following anything."""
    assert_contained(final, trusted_root, "write memory")
    temp = os.path.join(os.path.dirname(final), f".ecc-memory-{os.getpid()}-{_uuid4()}.tmp")
    fd: int | None = None
    error: BaseException | None = None
    try:
        try:
            fd = platform.open_nofollow(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as exc:
            raise raw_os_error(exc, "open", temp) from None
        st = os.fstat(fd)
        try:
            lst: os.stat_result | None = os.lstat(temp)
        except OSError:
            lst = None
        assert_contained(temp, trusted_root, "write memory")
        if (
            not stat.S_ISREG(st.st_mode)
            or lst is None
            or not stat.S_ISREG(lst.st_mode)
            or not same_file(st, lst)
        ):
            raise VaultError("Memory destination changed while it was being created.")
        data = encode_utf8(content)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        os.close(fd)
        fd = None
        assert_contained(final, trusted_root, "write memory")
        try:
            os.link(temp, final, follow_symlinks=False)
        except FileExistsError:
            raise DestinationExistsError(f"EEXIST: file already exists, link '{final}'") from None
        except OSError as exc:
            raise raw_os_error(exc, "link", final) from None
    except BaseException as exc:
        error = exc
        raise
    finally:
        if fd is not None:
            os.close(fd)
        try:
            os.unlink(temp)
        except OSError as cleanup:
            # §6.6 step 7: a cleanup failure surfaces only if the write itself succeeded.
            if cleanup.errno != errno.ENOENT and error is None:
                raise raw_os_error(cleanup, "unlink", temp) from None


def make_dirs(path: str) -> None:
    """``mkdir -p`` with mode 0700 on *every* directory it creates (§6.8).

    ``os.makedirs`` applies ``mode`` to the leaf only (Python >= 3.7), hence this loop.
    Existing directories are left as they are, never chmod-ed.
    """
    missing: list[str] = []
    current = path
    while True:
        try:
            st = os.stat(current)
        except FileNotFoundError:
            parent = os.path.dirname(current)
            missing.append(current)
            if parent == current:
                break
            current = parent
            continue
        except OSError as exc:
            raise raw_os_error(exc, "mkdir", path) from None
        if not stat.S_ISDIR(st.st_mode):
            code = errno.EEXIST if current == path else errno.ENOTDIR
            raise raw_os_error(OSError(code, os.strerror(code)), "mkdir", path)
        break
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            if not os.path.isdir(directory):
                raise raw_os_error(
                    OSError(errno.EEXIST, os.strerror(errno.EEXIST)), "mkdir", path
                ) from None
        except OSError as exc:
            raise raw_os_error(exc, "mkdir", path) from None


def _uuid4() -> Any:
    # Imported on first write only: searches and reads never need it.
    import uuid

    return uuid.uuid4()
