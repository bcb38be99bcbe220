"""The platform seam: every call whose behaviour differs between Linux, macOS and Windows.

Standard library only and cheap to import: the session-start no-op writes through it. Each
difference is a module-level switch read at call time (``NOFOLLOW``, ``UTIME_NOFOLLOW``,
``RETRY_REPLACE``, ``JUNCTIONS``, ``WINDOWS``, ``FOLDS_CASE``) or a seam function
(``make_junction``, ``is_junction``, ``remove_junction``, ``lstat``, ``list_names``), so
tests can run the Windows and macOS branches on Linux by patching them (tests/conftest.py,
``COFFER_SIMULATE=windows``; docs/adr/0057).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import time

# Windows has no O_NOFOLLOW: there ``open_nofollow`` refuses links by lstat instead.
NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
# Not on Windows either; there no handle is inherited by default and reads do not block.
NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
# Windows opens a descriptor in text mode unless told otherwise: os.read/os.write would turn
# "\n" into "\r\n" and stop at Ctrl-Z. Every os.open of data names it
# (tests/base/test_binary_guard.py); open_nofollow adds it itself.
BINARY: int = getattr(os, "O_BINARY", 0)
# Windows' os.utime cannot act on a link itself.
UTIME_NOFOLLOW: bool = os.utime in os.supports_follow_symlinks
# On Windows a rename fails while another program (an editor, an indexer, a virus scanner)
# holds the target open; it is let go within milliseconds, so a replace is retried briefly.
RETRY_REPLACE: bool = sys.platform == "win32"
# Agents run hook commands through cmd.exe or PowerShell there, not a POSIX shell: the
# session-start hook is rendered for the shell each adapter declares (coffer.adapter.hookshell).
WINDOWS: bool = sys.platform == "win32"
REPLACE_DELAYS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2, 0.4)
# Which operating system's conventions apply (the watcher's service manager, macOS privacy
# checks): sys.platform, a switch so tests run the Windows and macOS branches on Linux.
SYSTEM: str = sys.platform

# Where a symlink is refused (Windows without Developer Mode: ERROR_PRIVILEGE_NOT_HELD), a
# directory junction takes its place: it needs no privilege on NTFS and ReFS.
JUNCTIONS: bool = sys.platform == "win32"
PRIVILEGE_NOT_HELD = 1314
_MOUNT_POINT: int = getattr(stat, "IO_REPARSE_TAG_MOUNT_POINT", 0xA0000003)
NO_DIR_LINK = (
    "Windows refused a symlink (turn on Developer Mode: Settings > System > For developers) "
    "and a directory junction (the volume is not NTFS or ReFS)"
)

_REPARSE_POINT: int = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)
# The tag bit of reparse points that redirect to another name (IsReparseTagNameSurrogate):
# symlinks (0xA000000C) and junctions (0xA0000003), never cloud placeholders (0x9000001A).
_NAME_SURROGATE = 0x20000000
# Device names Windows reserves in every directory, with or without an extension.
RESERVED_NAMES: frozenset[str] = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{i}" for i in range(1, 10)}
    | {f"LPT{i}" for i in range(1, 10)}
)


def is_link(st: os.stat_result) -> bool:
    """Whether an lstat result is a symlink, or a reparse point that names another file (a
    junction). A reparse point whose tag is no name surrogate (a cloud placeholder, a
    deduplicated file) is the file itself: opened, read and replaced as any other."""
    if stat.S_ISLNK(st.st_mode):
        return True
    reparse = getattr(st, "st_file_attributes", 0) & _REPARSE_POINT
    return bool(reparse) and bool(getattr(st, "st_reparse_tag", 0) & _NAME_SURROGATE)


def is_junction(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a directory junction (never on a POSIX system)."""
    check = getattr(os.path, "isjunction", None)  # Python 3.12+
    if check is not None:
        return bool(check(path))
    try:
        st = os.lstat(path)
    except OSError:
        return False
    reparse = getattr(st, "st_file_attributes", 0) & _REPARSE_POINT
    return bool(reparse) and getattr(st, "st_reparse_tag", 0) == _MOUNT_POINT


def link_at(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` itself is a link: a symlink or a junction (never followed)."""
    try:
        return is_link(os.lstat(path)) or is_junction(path)
    except OSError:
        return False


def read_link(path: str | os.PathLike[str]) -> str:
    """What the symlink or junction ``path`` points to; OSError when it is neither."""
    text = os.readlink(path)  # reads junctions too on Windows (Python 3.8+)
    # A junction's target comes back in the NT form, ``\\?\C:\...``: shown without it.
    return text[4:] if text.startswith("\\\\?\\") and text[5:6] == ":" else text


def make_junction(link: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Make ``link`` a directory junction to ``target`` (OSError when it cannot be made).

    The standard library has no public call for it; cmd's ``mklink /J`` is the public
    way, and needs no privilege (a symlink does, without Developer Mode)."""
    if not JUNCTIONS:
        raise OSError(errno.ENOTSUP, "no directory junctions on this system", os.fspath(link))
    import subprocess  # only here: the session-start no-op imports this module

    from coffer.base.wincmd import cmd_path, oem_text

    # One command line, handed to cmd as is (a string is not requoted on Windows): no
    # AutoRun commands (/d), no !delayed! expansion (/v:off), each path a cmd literal.
    line = f"cmd /d /v:off /c mklink /J {cmd_path(link)} {cmd_path(target)}"
    done = subprocess.run(line, capture_output=True, check=False)
    if done.returncode != 0 or not link_at(link):
        said = oem_text(done.stderr or done.stdout).strip() or "mklink /J failed"
        raise OSError(errno.EPERM, said, os.fspath(link))


def remove_junction(path: str | os.PathLike[str]) -> None:
    """Remove the junction ``path`` itself: rmdir removes a junction, never what it holds."""
    os.rmdir(path)


def remove_link(path: str | os.PathLike[str]) -> None:
    """Remove the symlink or junction ``path``, never the directory it points to."""
    if is_junction(path):
        remove_junction(path)
    else:
        os.unlink(path)  # Windows' os.unlink removes a directory symlink too


def symlink_dir(target: str | os.PathLike[str], link: str | os.PathLike[str]) -> None:
    """``os.symlink`` to a directory (a seam function: the Windows refusal is simulated)."""
    os.symlink(target, link, target_is_directory=True)


def privilege_refused(exc: OSError) -> bool:
    """Whether ``exc`` is Windows refusing a symlink to an account without the privilege."""
    return getattr(exc, "winerror", None) == PRIVILEGE_NOT_HELD


def make_dir_link(target: str | os.PathLike[str], link: str | os.PathLike[str]) -> str:
    """Make ``link`` point to the directory ``target``: a symlink, or where symlinks are
    refused a junction; which one ("symlink", "junction"). OSError naming the fix when
    neither can be made."""
    try:
        symlink_dir(target, link)
        return "symlink"
    except OSError as exc:
        if not (JUNCTIONS and privilege_refused(exc)):
            raise
    try:
        make_junction(link, target)
    except OSError as exc:
        raise OSError(
            errno.EPERM, f"{NO_DIR_LINK}: {exc.strerror or exc}", os.fspath(link)
        ) from exc
    return "junction"


class NotRegularFile(OSError):
    """``open_nofollow`` refused a FIFO unopened (no ``O_NONBLOCK`` to open it safely):
    callers report it as they report any file that is not a regular one."""


# How often open_nofollow looks again at a file renamed over between its lstat and open.
_NOFOLLOW_TRIES = 5


def _loop(path: str | os.PathLike[str]) -> OSError:
    # ELOOP is what O_NOFOLLOW raises on a link: callers test for it on every platform.
    return OSError(errno.ELOOP, "refusing to follow a link", os.fspath(path))


def open_nofollow(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
    """``os.open`` that never follows a final link (ELOOP instead), on every platform.

    Without ``O_NOFOLLOW`` the path is lstat-checked before the open and the opened file
    is checked, through fstat, to be the one lstat saw (no link swapped in between).
    """
    flags |= BINARY
    if NOFOLLOW:
        return os.open(path, flags | NOFOLLOW, mode)
    # Another program renaming a new file over ``path`` between the lstat and the open (as
    # an agent saving its config does) is no link: look again, a few times.
    for _ in range(_NOFOLLOW_TRIES):
        try:
            before: os.stat_result | None = os.lstat(path)
        except FileNotFoundError:
            before = None
        if before is not None and is_link(before):
            raise _loop(path)
        if before is not None and not NONBLOCK and stat.S_ISFIFO(before.st_mode):
            # Without O_NONBLOCK opening a FIFO waits for a writer, for ever: refuse it
            # unopened. (Windows has no FIFOs on disk; a host that lacks only the flag must
            # not hang.)
            raise NotRegularFile(errno.ENXIO, "not a regular file (a FIFO)", os.fspath(path))
        fd = os.open(path, flags, mode)
        try:
            opened = os.fstat(fd)
            after = before if before is not None else os.lstat(path)
            if is_link(after):
                raise _loop(path)
        except BaseException:
            os.close(fd)
            raise
        if (after.st_ino, after.st_dev) == (opened.st_ino, opened.st_dev):
            return fd
        os.close(fd)
    raise _loop(path)


def set_mtime_ns(path: str | os.PathLike[str], ns: int) -> None:
    """Give ``path`` itself (never a link's target) the mtime ``ns``; a link is left alone
    where the platform cannot set a link's own times."""
    if UTIME_NOFOLLOW:
        os.utime(path, ns=(ns, ns), follow_symlinks=False)
    elif not is_link(os.lstat(path)):
        os.utime(path, ns=(ns, ns))


def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """``os.replace``, retried briefly where another program's open handle blocks it."""
    if RETRY_REPLACE:
        for delay in REPLACE_DELAYS:
            try:
                os.replace(src, dst)
                return
            except PermissionError:
                time.sleep(delay)
    os.replace(src, dst)


def process_alive(pid: int) -> bool | None:
    """Whether process ``pid`` runs (None: cannot tell), without signalling it."""
    if pid <= 0:
        return None  # os.kill(0, 0) would probe our own process group
    if sys.platform == "win32":
        # os.kill(pid, 0) is no probe there: it sends CTRL_C_EVENT or calls TerminateProcess.
        return _windows_alive(pid)
    else:  # if/else, not an early return: mypy then checks each branch on its platform
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # exists, owned by someone else
        except (OverflowError, OSError):
            return None
        return True


def host_name() -> str:
    """This machine's short name (``vm`` of ``vm.example.org``), "" when it has none."""
    if sys.platform == "win32":
        import platform  # here: it costs 2 ms to import, and only Windows lacks os.uname

        name = platform.node()
    else:  # the kernel's node name, what socket.gethostname() returns, without importing
        # socket (3 ms of every write that stamps where it was made)
        name = os.uname().nodename
    return name.partition(".")[0]


def reserved_name(name: str) -> bool:
    """Whether Windows reserves ``name`` as a device (``nul.md`` is ``NUL`` there too)."""
    return name.split(".", 1)[0].rstrip(" ").upper() in RESERVED_NAMES


if sys.platform == "win32":
    _QUERY_LIMITED = 0x1000  # PROCESS_QUERY_LIMITED_INFORMATION: granted to standard users
    _STILL_ACTIVE, _ACCESS_DENIED = 259, 5
    _INVALID_PARAMETER = 87  # what OpenProcess says for a pid no process has

    def _windows_alive(pid: int) -> bool | None:
        # ctypes only here: the session-start no-op imports this module, never asks this.
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.OpenProcess.restype = wintypes.HANDLE
        kernel32.OpenProcess.argtypes = (wintypes.DWORD, wintypes.BOOL, wintypes.DWORD)
        kernel32.GetExitCodeProcess.argtypes = (wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD))
        kernel32.CloseHandle.argtypes = (wintypes.HANDLE,)
        handle = kernel32.OpenProcess(_QUERY_LIMITED, False, pid)
        if not handle:
            err = ctypes.get_last_error()
            return True if err == _ACCESS_DENIED else False if err == _INVALID_PARAMETER else None
        try:
            code = wintypes.DWORD()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return None
            return code.value == _STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)


# ---- Case-insensitive volumes (APFS and NTFS by default): one spelling per directory ------

# Whether this system's volumes may fold case: only then does coffer look for a path's
# on-disk spelling (identity's project root). Linux volumes are case-sensitive but for rare
# casefold mounts, which the cost on every session start is not worth.
FOLDS_CASE: bool = sys.platform in ("darwin", "win32")


def lstat(path: str | os.PathLike[str]) -> os.stat_result:
    """``os.lstat`` (a seam function: tests simulate a case-folding volume through it)."""
    return os.lstat(path)


def list_names(directory: str | os.PathLike[str]) -> list[str]:
    """The names in ``directory`` as stored on disk (a seam function, as ``lstat``)."""
    return os.listdir(directory)


def _folds_at(path: str, st: os.stat_result) -> bool:
    """Whether the directory holding ``path`` (whose lstat is ``st``) folds case: its last
    component spelled with the case of every letter swapped is the same file."""
    head, tail = os.path.split(path)
    swapped = tail.swapcase()
    if swapped == tail:
        return False  # no letters to tell by
    try:
        other = lstat(os.path.join(head, swapped))
    except (OSError, ValueError):
        return False
    return (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino)


def folds_case(path: str | os.PathLike[str]) -> bool:
    """Whether the volume at ``path`` folds case (probed: ``path`` and its case-swapped
    spelling are one file), judged at the deepest component that has letters; False when
    ``path`` is missing or has no letters at all."""
    probe = os.path.abspath(path)
    while True:
        head, tail = os.path.split(probe)
        if tail.swapcase() != tail:
            try:
                return _folds_at(probe, lstat(probe))
            except (OSError, ValueError):
                return False
        if head == probe:
            return False
        probe = head


def _spelled(directory: str, name: str, st: os.stat_result) -> str:
    # The listed name that is the same file as ``name``: on a folding volume the lookup
    # matched it case-insensitively (and, on APFS, normalisation-insensitively too).
    try:
        names = list_names(directory)
    except OSError:
        return name
    if name in names:
        return name
    wanted = name.casefold()
    for found in names:
        if found.casefold() != wanted:
            continue
        try:
            other = lstat(os.path.join(directory, found))
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return found
    return name


def stored_name(directory: str | os.PathLike[str], name: str) -> str | None:
    """How ``name`` is spelled in ``directory`` on disk (None: no such entry). Where the
    volume folds case, ``REPO`` finds ``Repo``; the directory is listed only there."""
    parent = os.fspath(directory)
    path = os.path.join(parent, name)
    try:
        st = lstat(path)
    except (OSError, ValueError):
        return None
    return _spelled(parent, name, st) if _folds_at(path, st) else name


def on_disk(path: str | os.PathLike[str]) -> str:
    """``path`` (made absolute) with every existing component spelled as stored on disk,
    so ``/users/me/repo`` and ``/Users/me/Repo`` on a case-insensitive volume give one
    string. Two lstats per component; a directory is listed only where case folds. A
    string, not a ``pathlib.Path``: the session-start no-op calls it (identity.root_of)."""
    full = os.path.abspath(path)
    drive, rest = os.path.splitdrive(full)
    parts = [p for p in rest.replace(os.altsep or os.sep, os.sep).split(os.sep) if p]
    out = drive + os.sep
    for i, part in enumerate(parts):
        here = os.path.join(out, part)
        try:
            st = lstat(here)
        except (OSError, ValueError):
            return os.path.join(out, *parts[i:])  # the rest does not exist: as given
        out = os.path.join(out, _spelled(out, part, st) if _folds_at(here, st) else part)
    return out
