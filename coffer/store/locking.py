"""The store's exclusive file locks (per tier, store-wide, projection runs).

On POSIX this is ``fcntl.flock`` on the lock file, retried until a deadline: the kernel
drops the lock when its holder dies, so a killed writer leaves nothing stale. That is what
``filelock`` does on POSIX as well, but importing filelock 4 (``logging``, ``secrets``,
``hmac`` …) costs about five bare Python starts, and the session-start hook takes these
locks whenever memory changed (docs/adr/0023). Elsewhere ``filelock`` does it. The watcher's
single-instance lock (coffer.watch.daemon) made the same choice first.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

POLL_SECONDS = 0.05  # filelock's default poll interval


class Busy(Exception):
    """Another process held the lock until the deadline."""


@contextlib.contextmanager
def exclusive(path: Path, wait: float, mode: int = 0o600) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created with ``mode``) for the ``with`` body;
    Busy if another process holds it for ``wait`` seconds."""
    if os.name != "posix":
        with _portable(path, wait, mode):
            yield
        return
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, mode)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Busy(str(path)) from None
                time.sleep(min(POLL_SECONDS, left))
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _portable(path: Path, wait: float, mode: int) -> Iterator[None]:
    from filelock import FileLock, Timeout

    lock = FileLock(str(path), timeout=wait, mode=mode)
    try:
        lock.acquire()
    except Timeout:
        raise Busy(str(path)) from None
    try:
        yield
    finally:
        lock.release()
