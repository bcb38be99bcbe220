"""The watcher's own status record, which it rewrites as it runs; readers (``coffer watch
--status``, ``coffer adapter list``) read the JSON through coffer.store.watch_state and
never import this module or its dataclass."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil
from coffer.store.watch_state import STATUS_VERSION, state_dir, status_path

if TYPE_CHECKING:
    from typing import Any


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
    polling_reason: str | None = None  # why native events are not used (--poll, a limit)
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
    sync: dict[str, Any] | None = None  # the background sync's state (None: not set up)
    # Projected projects macOS privacy controls keep from the watcher, and the program to
    # grant access to (coffer.setup.service_privacy).
    denied: list[str] = field(default_factory=list)
    denied_exe: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"version": STATUS_VERSION, **asdict(self)}


def write_status(store_root: Path, status: Status) -> None:
    from coffer.store.projects import now_iso  # the daemon's writes only

    status.updated_at = now_iso()
    fsutil.ensure_dir(state_dir(store_root))
    text = json.dumps(status.to_json(), indent=2, ensure_ascii=False) + "\n"
    fsutil.atomic_write_text(status_path(store_root), text)
