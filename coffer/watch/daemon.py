"""Process plumbing for ``coffer watch``: single-instance lock, logging, the
worker's wake-up pipe, the event coalescer and the network-filesystem check.

No watchdog here (only coffer/watch/watcher.py imports it). The lock and status files
themselves, which front ends read too, are coffer.store.watch_state.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil, platform
from coffer.base.errors import CofferError
from coffer.secrets import redact
from coffer.store.watch_state import EXIT_NOT_RUNNING as EXIT_NOT_RUNNING
from coffer.store.watch_state import lock_path, read_pid, read_status_file

if TYPE_CHECKING:
    from typing import Any

MAX_PROBLEMS = 50  # problems kept in the status file

# File systems whose change notifications miss writes made elsewhere (another machine, the
# Windows side of WSL, the host of a container): polled instead.
NETWORK_FS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "ncpfs",
        "afs",
        "9p",
        "drvfs",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
        "davfs",
        "virtiofs",
        "fuse.sshfs",
        "fuse.rclone",
        "fuse.s3fs",
        "fuse.davfs2",
        "fuse.grpcfuse",
    }
)


class AlreadyRunningError(CofferError):
    """Another ``coffer watch`` holds this store's lock."""


# ---- single instance ----------------------------------------------------------------------


class InstanceLock:
    """An exclusive lock on ``watch.lock`` for the daemon's lifetime.

    POSIX: ``flock`` on a file that is never truncated by a contender, so it can carry the
    holder's pid; the kernel drops the lock when the process dies, so a crash leaves no stale
    lock. Elsewhere: ``filelock`` with the pid taken from the status file.
    """

    def __init__(self, store_root: Path) -> None:
        self.path = lock_path(store_root)
        self._fd: int | None = None
        self._other: Any = None

    def acquire(self) -> None:
        fsutil.ensure_dir(self.path.parent)
        if os.name != "posix":
            from filelock import FileLock, Timeout

            lock = FileLock(str(self.path), timeout=0)
            try:
                lock.acquire()
            except Timeout:
                raise self._running(read_status_file(self.path.parent.parent).get("pid")) from None
            self._other = lock
            return
        import fcntl

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | platform.BINARY, fsutil.PRIVATE_FILE_MODE)
        # A few tries: `--status` probes the lock for a microsecond.
        for attempt in range(5):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == 4:
                    os.close(fd)
                    raise self._running(read_pid(self.path)) from None
                time.sleep(0.02)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def _running(self, pid: object) -> AlreadyRunningError:
        who = f"pid {pid}" if isinstance(pid, int) else "pid unknown"
        return AlreadyRunningError(
            f"a watcher is already running for this store ({who}); `coffer watch --status` shows it"
        )

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing drops the flock
            self._fd = None
        if self._other is not None:
            self._other.release()
            self._other = None


# ---- logging ------------------------------------------------------------------------------


class _OneLine(logging.Formatter):
    def converter(self, secs: float | None) -> time.struct_time:
        return time.gmtime(secs)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        # Paths in the log may be entry file names, and a file name may hold a token.
        return redact(text.replace("\r", "").replace("\n", " | "))


def setup_logging(log_file: Path | None, verbose: bool) -> logging.Logger:
    """The daemon's logger: one line per action, UTC timestamps, to stderr or ``log_file``."""
    log = logging.getLogger("coffer.watch.watcher")
    log.handlers.clear()
    log.propagate = False
    handler: logging.Handler
    if log_file is not None:
        fsutil.ensure_dir(log_file.parent)
        from logging.handlers import WatchedFileHandler  # reopens after logrotate

        handler = WatchedFileHandler(log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        _OneLine("%(asctime)s.%(msecs)03dZ %(levelname)s %(message)s", "%Y-%m-%dT%H:%M:%S")
    )
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if verbose else logging.INFO)
    # watchdog's own warnings (queue overflow, unreadable share) go to the same place.
    wd = logging.getLogger("watchdog")
    wd.handlers.clear()
    wd.addHandler(handler)
    wd.setLevel(logging.WARNING)
    wd.propagate = False
    return log


# ---- the worker's wake-up and the coalescer ---------------------------------------------


class Waker:
    """A socket pair the worker sleeps on: the observer thread wakes it for new work, and
    the signal machinery (``signal.set_wakeup_fd``) wakes it to stop. No polling."""

    def __init__(self) -> None:
        self._r, self._w = socket.socketpair()
        self._r.setblocking(False)
        self._w.setblocking(False)

    @property
    def signal_fd(self) -> int:
        return self._w.fileno()

    def wake(self) -> None:
        with contextlib.suppress(OSError):  # full buffer: a wake-up is already pending
            self._w.send(b"\0")

    def wait(self, timeout: float | None) -> None:
        with contextlib.suppress(InterruptedError):
            select.select([self._r], [], [], timeout)
        with contextlib.suppress(OSError):
            while self._r.recv(4096):
                pass

    def close(self) -> None:
        self._r.close()
        self._w.close()


@dataclass
class Burst:
    """Events for one key since it was last processed."""

    key: str
    first: float
    last: float
    events: int = 0
    index_only: bool = True  # every event was about MEMORY.md (maybe our own write)


class Coalescer:
    """Per-key debounce: a key is due ``quiet`` seconds after its last event, and at the
    latest ``max_wait`` seconds after its first, so a long burst still shows progress.

    The observer thread calls ``add``; the worker calls ``next_due`` and ``pop_due``.
    """

    def __init__(self, quiet: float, max_wait: float) -> None:
        self.quiet = quiet
        self.max_wait = max(max_wait, quiet)
        self._lock = threading.Lock()
        self._pending: dict[str, Burst] = {}

    def add(
        self,
        key: str,
        *,
        index_only: bool = False,
        now: float | None = None,
        immediate: bool = False,
    ) -> bool:
        """Record an event; True when the key was not pending (the worker must re-plan)."""
        t = time.monotonic() if now is None else now
        with self._lock:
            burst = self._pending.get(key)
            new = burst is None
            if burst is None:
                burst = self._pending[key] = Burst(key, t, t)
            burst.last = t
            burst.events += 1
            burst.index_only = burst.index_only and index_only
            if immediate:
                burst.first = burst.last = t - self.max_wait
            return new or immediate

    def _due(self, b: Burst) -> float:
        return min(b.last + self.quiet, b.first + self.max_wait)

    def next_due(self) -> float | None:
        with self._lock:
            return min((self._due(b) for b in self._pending.values()), default=None)

    def pop_due(self, now: float | None = None) -> list[Burst]:
        t = time.monotonic() if now is None else now
        with self._lock:
            due = sorted((b for b in self._pending.values() if self._due(b) <= t), key=self._due)
            for b in due:
                del self._pending[b.key]
        return due

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)


# ---- network file systems -----------------------------------------------------------------


def _unescape_mount(field_: str) -> str:
    # /proc/mounts escapes space, tab, newline and backslash as octal.
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field_ = field_.replace(code, char)
    return field_


def filesystem_type(path: Path, mounts: str | None = None) -> str | None:
    """The type of the file system holding ``path`` (Linux; None elsewhere or unknown)."""
    if mounts is None:
        try:
            mounts = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    target = os.path.realpath(path)
    best: tuple[int, str] | None = None
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        point = _unescape_mount(parts[1])
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) > best[0]):
            best = (len(point), parts[2])
    return best[1] if best else None


def polling_reason(path: Path, mounts: str | None = None) -> str | None:
    """Why native events cannot be trusted for ``path``, or None when they can."""
    fs = filesystem_type(path, mounts)
    if fs is not None and fs in NETWORK_FS:
        return f"{path} is on a {fs} file system, where change events miss remote writes"
    return None
