"""What a file event means to ``coffer watch``: which key it wakes, nothing else.

Plain strings in, a :class:`Classified` out, so the rules are testable without watchdog
(only coffer/watch/watcher.py imports it). Keys: ``config`` (coffer's settings),
``projects`` (the project list or the journal: rescan what is watched) and
``tier:<id>`` (refresh that tier's projections).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from coffer.base import fsutil
from coffer.projection.blocks import waiting
from coffer.store.index import INDEX_NAME
from coffer.store.settings import CONFIG

PROJECTS = "projects"
CONFIG_KEY = "config"
TIER = "tier:"
HANDOFFS = "handoffs:"  # role prefix of a watched vault handoffs directory


@dataclass(frozen=True)
class Classified:
    key: str | None = None  # None: the event changes nothing coffer renders
    index_only: bool = False  # only MEMORY.md changed (maybe coffer's own write)
    dead: bool = False  # the watched directory itself was deleted or moved away


@dataclass(frozen=True)
class FileEvent:
    """A watchdog event as plain strings."""

    src: str
    dest: str
    is_directory: bool
    event_type: str

    @property
    def names(self) -> list[str]:
        return [os.path.basename(p) for p in (self.src, self.dest) if p]


def relevant(name: str) -> bool:
    """A name that can change a tier's output: entry files and MEMORY.md (what the catalog
    reads), never coffer's temporary files, hidden files or editor droppings."""
    return name.endswith(".md") and not name.startswith(".") and not fsutil.is_tmp_name(name)


def digest(path: Path) -> str | None:
    try:
        data = fsutil.read_bytes_or_none(path)
    except (OSError, ValueError):
        return None
    return hashlib.sha256(data).hexdigest() if data is not None else None


def classify(role: str, watched: str | None, event: FileEvent) -> Classified:
    """The key ``event`` wakes, seen by the watch ``role`` on directory ``watched``."""
    names = event.names
    if event.is_directory:
        if event.src == watched and event.event_type in ("deleted", "moved"):
            return Classified(PROJECTS, dead=True)  # the rescan watches it again
        return Classified()
    if role == "root":
        if CONFIG in names:
            return Classified(CONFIG_KEY)
        rescan = "projects.json" in names or waiting.NAME in names
        return Classified(PROJECTS if rescan else None)
    if role.startswith(HANDOFFS):
        # A handoff saved, retired or removed: that project's blocks list them.
        if any(n.endswith(".md") for n in names):
            return Classified(TIER + role.removeprefix(HANDOFFS).split(":", 1)[0])
        return Classified()
    if role == "journal":
        if any(n.endswith(".json") and not fsutil.is_tmp_name(n) for n in names):
            return Classified(PROJECTS)
        return Classified()
    shown = [n for n in names if relevant(n)]
    if not shown:
        return Classified()
    return Classified(role, index_only=all(n == INDEX_NAME for n in shown))
