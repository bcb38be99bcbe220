"""The store's exclusive locks (coffer.store.locking): flock on POSIX, interoperable with
filelock (which other coffer versions and the tests' own holders use)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coffer.store import locking


def _hold(path: Path, seconds: float) -> subprocess.Popen[str]:
    code = (
        "import sys, time; from filelock import FileLock; l = FileLock(sys.argv[1]); "
        "l.acquire(); print('held', flush=True); time.sleep(float(sys.argv[2]))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


@pytest.mark.posix_only("POSIX permission bits")
def test_lock_is_exclusive_across_processes_and_waits_until_the_deadline(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    holder = _hold(path, 30)
    try:
        started = time.monotonic()
        with pytest.raises(locking.Busy), locking.exclusive(path, 0.3):
            pass
        assert time.monotonic() - started >= 0.3
    finally:
        holder.kill()
        holder.wait()
    # The holder died: the kernel released its lock, nothing stale is left behind.
    with locking.exclusive(path, 0):
        pass
    ours = tmp_path / "ours.lock"
    with locking.exclusive(ours, 0):
        assert stat.S_IMODE(ours.stat().st_mode) & 0o077 == 0  # created private


def test_a_waiter_gets_the_lock_once_it_is_released(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    holder = _hold(path, 0.3)
    try:
        with locking.exclusive(path, 10):
            assert holder.wait(timeout=10) == 0
    finally:
        holder.kill()


def test_the_body_sees_its_own_errors_and_the_lock_is_released(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    with pytest.raises(KeyError), locking.exclusive(path, 1):
        raise KeyError("body")
    with locking.exclusive(path, 0):
        pass
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for _ in range(20):
        with locking.exclusive(path, 0):
            pass
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds  # no descriptor leaks
