"""Typed journal records of what coffer changed in agents' own places and on the system:
an agent's memory directory linked into the store, its native memory switched off, the
entries `coffer setup` wrote into its config, the watcher's service file.

Built apart from coffer/projection/journal/records.py (whose :func:`parse` imports this
module the first time it reads such a record), so a write's refresh, which reads only
blocks and git's lines, does not build their frozen dataclasses (docs/adr/0049).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from coffer.projection.journal.fields import JournalRecord

__all__ = ["BY_KIND", "LinkRecord", "NativeRecord", "ServiceRecord", "SetupRecord"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkRecord(JournalRecord):
    """An agent's memory directory replaced by a link into the store (SYMLINK)."""

    OPTIONAL = frozenset({"modes", "rest", "restoring"})

    kind: str = "symlink"
    link_target: str = ""
    before: str = "absent"  # "absent", "dir", or "unknown" (a link adopted as found)
    backup: str | None = None
    created_dirs: tuple[str, ...] = ()
    created_at: str | None = None
    updated_at: str | None = None
    modes: Mapping[str, Any] | None = None
    rest: Mapping[str, str] | None = None
    restoring: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NativeRecord(JournalRecord):
    """An agent's own memory switched off in its config file."""

    OPTIONAL = frozenset({"link", "after_sha256", "updated_at"})

    kind: str = "native"
    previous: Mapping[str, Any] = field(default_factory=dict)
    created_file: bool = False
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    created_at: str | None = None
    link: Mapping[str, str] | None = None  # a dotfile manager's link, followed
    after_sha256: str | None = None
    updated_at: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SetupRecord(JournalRecord):
    """Entries `coffer setup` added to one agent's config file (coffer/setup/wiring.py):
    ``edits`` are what coffer.setup.config_docs needs to find and remove each one again."""

    OPTIONAL = frozenset({"seq", "link"})

    kind: str = "setup"
    format: str = "json"
    edits: tuple[Mapping[str, Any], ...] = ()
    created_file: bool = False
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    after_sha256: str | None = None
    # False once someone changed the file between coffer's writes: undo then removes only
    # coffer's entries, since the pre-image no longer holds everything that should survive
    exact: bool = True
    eof: str | None = None  # how the original ended (a TOML file's last blank lines)
    created_at: str | None = None
    updated_at: str | None = None
    seq: int = 0  # orders writes within one second
    link: Mapping[str, str] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceRecord(JournalRecord):
    """The watcher's service file `coffer setup` installed (coffer/setup/service.py)."""

    OPTIONAL = frozenset({"seq"})

    kind: str = "service"
    manager: str = ""  # systemd, launchd
    service: str = ""
    created_file: bool = True
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    seq: int = 0


BY_KIND: Mapping[str, type[JournalRecord]] = {
    "symlink": LinkRecord,
    "native": NativeRecord,
    "setup": SetupRecord,
    "service": ServiceRecord,
}
