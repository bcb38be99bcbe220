"""The vault's error type: every message is the reference's exact text.

The messages are listed in docs/vault-format.md §2.5–§10.9.
"""

from __future__ import annotations

import errno
import os

from coffer.base.errors import CofferError


class VaultError(CofferError):
    """A vault operation refused or failed; ``str(exc)`` is the exact reference message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class VaultOSError(VaultError):
    """A raw operating-system failure, worded like Node's ``fs`` errors (§6.11, Q10)."""

    def __init__(self, message: str, errno_code: int | None) -> None:
        super().__init__(message)
        self.errno = errno_code


# §6.11: libuv's descriptions, which Node puts into its error messages.
_LIBUV_DESCRIPTIONS: dict[int, str] = {
    errno.EACCES: "permission denied",
    errno.EBUSY: "resource busy or locked",
    errno.EEXIST: "file already exists",
    errno.EIO: "i/o error",
    errno.EISDIR: "illegal operation on a directory",
    errno.ELOOP: "too many symbolic links encountered",
    errno.EMFILE: "too many open files",
    errno.ENAMETOOLONG: "name too long",
    errno.ENOENT: "no such file or directory",
    errno.ENOSPC: "no space left on device",
    errno.ENOTDIR: "not a directory",
    errno.ENXIO: "no such device or address",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ETXTBSY: "text file is busy",
}


def raw_os_error(exc: OSError, syscall: str, path: str | None) -> VaultOSError:
    """``<CODE>: <description>, <syscall> '<path>'`` (§6.11); ``opendir`` has no path."""
    code = exc.errno
    name = errno.errorcode.get(code, "UNKNOWN") if code is not None else "UNKNOWN"
    # Codes outside the table fall back to the C library's wording (accepted divergence, Q10).
    description = _LIBUV_DESCRIPTIONS.get(code, "") if code is not None else ""
    if not description:
        description = (os.strerror(code) if code is not None else str(exc)).lower()
    message = f"{name}: {description}, {syscall}"
    if path is not None:
        message += f" '{path}'"
    return VaultOSError(message, code)
