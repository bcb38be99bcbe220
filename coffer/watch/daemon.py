"""Process plumbing for ``coffer watch``: single-instance lock, status file, logging, the
worker's wake-up pipe, the event coalescer and the network-filesystem check.

No watchdog here (only coffer/watch/watcher.py imports it), so ``coffer watch --status``
stays cheap.
Files live in ``<store>/state/``: ``watch.lock`` (held for the daemon's lifetime, holds its
pid) and ``watch.json`` (the status, rewritten atomically at most once a second).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import socket
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from coffer import fsutil
from coffer.errors import CofferError
from coffer.report import plural
from coffer.secrets import redact
from coffer.store.projects import now_iso

LOCK_NAME = "watch.lock"
STATUS_NAME = "watch.json"
EXIT_NOT_RUNNING = 3  # `coffer watch --status` when no daemon holds the lock
STATUS_VERSION = 1
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


def state_dir(store_root: Path) -> Path:
    return store_root / "state"


def status_path(store_root: Path) -> Path:
    return state_dir(store_root) / STATUS_NAME


def lock_path(store_root: Path) -> Path:
    return state_dir(store_root) / LOCK_NAME


# ---- single instance ----------------------------------------------------------------------


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


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

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, fsutil.PRIVATE_FILE_MODE)
        # A few tries: `--status` probes the lock for a microsecond.
        for attempt in range(5):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == 4:
                    os.close(fd)
                    raise self._running(_read_pid(self.path)) from None
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


def lock_held(store_root: Path) -> bool:
    """Whether some process holds the daemon lock (probes it for a moment)."""
    path = lock_path(store_root)
    if os.name != "posix":
        from filelock import FileLock, Timeout

        if not path.exists():
            return False
        lock = FileLock(str(path), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            return True
        lock.release()
        return False
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also drops the probe's shared lock
    return False


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    return True


# ---- status -------------------------------------------------------------------------------


@dataclass
class Status:
    """What ``coffer watch --status`` shows; the daemon owns and rewrites it."""

    pid: int
    store: str
    started_at: str
    state: str = "starting"  # starting, watching, stopped
    mode: str = "native"  # native or polling
    observer: str = ""
    poll_interval: float | None = None
    projects: int = 0
    events: int = 0
    renders: int = 0
    changes: int = 0
    suppressed: int = 0
    pending: int = 0
    problems: list[str] = field(default_factory=list)
    last_error: str | None = None
    last_error_at: str | None = None
    updated_at: str = ""
    stopped_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"version": STATUS_VERSION, **asdict(self)}


def write_status(store_root: Path, status: Status) -> None:
    status.updated_at = now_iso()
    fsutil.ensure_dir(state_dir(store_root))
    text = json.dumps(status.to_json(), indent=2, ensure_ascii=False) + "\n"
    fsutil.atomic_write_text(status_path(store_root), text)


def read_status_file(store_root: Path) -> dict[str, Any]:
    try:
        data = fsutil.read_bytes_or_none(status_path(store_root))
        parsed = json.loads(data) if data else {}
    except (OSError, ValueError, CofferError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def read_status(store_root: Path) -> dict[str, Any]:
    """The last status the daemon wrote, plus ``running``: the lock is held right now (and the
    recorded pid, if any, is alive)."""
    data = read_status_file(store_root)
    pid = data.get("pid")
    running = lock_held(store_root)
    if running and os.name == "posix":
        holder = _read_pid(lock_path(store_root))
        if holder is not None:
            pid = holder
    if running and isinstance(pid, int) and not pid_alive(pid):
        running = False
    if running and data.get("pid") != pid:
        data = {"pid": pid}  # a daemon that has not written its status yet
    data["running"] = running
    data["store"] = data.get("store") or str(store_root)
    return data


def status_lines(data: Mapping[str, Any]) -> list[str]:
    """Human-readable ``--status``."""
    store = data.get("store")
    if not data.get("running"):
        lines = [f"coffer watch: not running (store {store})"]
        if data.get("pid"):
            lines.append(
                f"last run: pid {data.get('pid')}, {data.get('started_at')} to "
                f"{data.get('stopped_at') or data.get('updated_at') or '?'}"
            )
    else:
        lines = [
            f"coffer watch: running (pid {data.get('pid')}) since {data.get('started_at', '?')}",
            f"store: {store}",
        ]
        mode = data.get("mode", "?")
        if mode == "polling":
            mode = f"polling every {data.get('poll_interval')} s"
        lines.append(
            f"watching {plural(data.get('projects', 0), 'project')} and the global tier ({mode}, "
            f"{data.get('observer', '?')})"
        )
        lines.append(
            f"{plural(data.get('events', 0), 'event')}, "
            f"{plural(data.get('renders', 0), 'refresh', 'refreshes')}, "
            f"{plural(data.get('changes', 0), 'file')} written, "
            f"{plural(data.get('suppressed', 0), 'own write')} ignored "
            f"(as of {data.get('updated_at', '?')})"
        )
    problems = data.get("problems") or []
    for p in problems:
        lines.append(f"problem: {p}")
    if data.get("last_error"):
        lines.append(f"last error: {data['last_error']} ({data.get('last_error_at')})")
    return lines


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
