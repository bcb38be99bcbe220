"""The watcher's files in the store: ``<store>/state/watch.lock`` (held for the daemon's
lifetime, holds its pid) and ``watch.json`` (its status, rewritten atomically at most once a
second).

The daemon (coffer.watch) writes them; ``coffer watch --status``, ``coffer adapter list`` and
``coffer setup --service`` only read them, so they live here, below every front end, and
reading them imports neither watchdog nor the daemon (docs/adr/0026).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil, platform
from coffer.base.errors import CofferError

if TYPE_CHECKING:
    from typing import Any

# `coffer watch --status` when no daemon holds the lock; here, not in the daemon, so the
# status check does not import the watcher (ADR 0023).
EXIT_NOT_RUNNING = 3
LOCK_NAME = "watch.lock"
STATUS_NAME = "watch.json"
STATUS_VERSION = 1


def state_dir(store_root: Path) -> Path:
    return store_root / "state"


def status_path(store_root: Path) -> Path:
    return state_dir(store_root) / STATUS_NAME


def lock_path(store_root: Path) -> Path:
    return state_dir(store_root) / LOCK_NAME


def read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


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
    return platform.process_alive(pid) is True


# ---- status -------------------------------------------------------------------------------


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
        holder = read_pid(lock_path(store_root))
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
        from coffer.base.report import plural  # its dataclasses: only a running watcher needs it

        lines = [
            f"coffer watch: running (pid {data.get('pid')}) since {data.get('started_at', '?')}",
            f"store: {store}",
        ]
        mode = data.get("mode", "?")
        if mode == "polling":
            mode = f"polling every {data.get('poll_interval')} s"
            if data.get("polling_reason"):
                mode += f" because {data['polling_reason']}"
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
        lines += sync_lines(data.get("sync"))
    problems = data.get("problems") or []
    for p in problems:
        lines.append(f"problem: {p}")
    if data.get("last_error"):
        lines.append(f"last error: {data['last_error']} ({data.get('last_error_at')})")
    return lines


def sync_lines(sync: object) -> list[str]:
    """The background sync's part of ``--status`` (docs/adr/0035)."""
    if not isinstance(sync, dict):
        return []
    every = sync.get("interval")
    lines = [
        f"sync: {sync.get('state', '?')}, every {every:g} s"
        if isinstance(every, int | float)
        else f"sync: {sync.get('state', '?')}"
    ]
    if sync.get("last_round_at"):
        lines.append(f"sync: last round {sync['last_round_at']}: {sync.get('last_result')}")
    if sync.get("next_round_at"):
        lines.append(f"sync: next round {sync['next_round_at']}")
    if sync.get("offline_since"):
        lines.append(
            f"sync: offline since {sync['offline_since']} ({sync.get('failures')} failed tries)"
        )
    if sync.get("held_back"):
        lines.append(f"sync: held back by the secret gate: {sync['held_back']}")
    if sync.get("last_error"):
        lines.append(f"sync: last error: {sync['last_error']} ({sync.get('last_error_at')})")
    return lines
