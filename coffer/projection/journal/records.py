"""Typed journal records: one per kind, and the JSON they are stored as.

The journal (coffer/projection/journal/ledger.py) validates a record file's JSON with
:func:`validate`, then parses it here into the record of its kind; the rest of coffer reads
attributes, never string keys. :meth:`JsonObject.to_json` gives back the same JSON the
record was read from: a key an older coffer did not write stays absent while its value is
the default, and keys this coffer does not know are kept as they were (docs/adr/0024).
Each record is a frozen dataclass: :class:`JournalRecord` holds what every kind holds, and
each kind adds only its own fields (and the default of ``kind``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from coffer.projection.journal.fields import Json, JsonObject, validate

__all__ = [
    "BlockRecord",
    "GitRecord",
    "GitState",
    "JournalRecord",
    "Json",
    "LinkRecord",
    "NativeRecord",
    "OtherRecord",
    "ServiceRecord",
    "SetupRecord",
    "TeamRecord",
    "parse",
    "validate",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalRecord(JsonObject):
    """What every record holds: the path it describes (under ``key``, which names it in the
    journal), its kind, and the tier, project and adapters it serves."""

    key: str
    path: str
    kind: str = ""
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()


R = TypeVar("R", bound=JournalRecord)


@dataclass(frozen=True, slots=True, kw_only=True)
class GitState(JsonObject):
    """How a block file is kept out of git: ``how`` is "exclude" (a line in info/exclude),
    "filter" (info/attributes and the clean filter) or "none"."""

    how: str | None = None
    commit: bool = False
    common: str = ""
    top: str = ""
    pattern: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockRecord(JournalRecord):
    """A managed block in a file (RENDER)."""

    OPTIONAL = frozenset({"git"})
    NESTED: ClassVar[Mapping[str, type[JsonObject]]] = {"git": GitState}

    kind: str = "block"
    created_file: bool = False
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    git: GitState | None = None  # how the block is kept out of git


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamRecord(BlockRecord):
    """The team block in a file (docs/adr/0036), keyed ``team:<path>``; never hidden from git."""

    kind: str = "team"


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
class GitRecord(JournalRecord):
    """Lines coffer added to git's info files ("git-lines") or its filter entry in git's
    config ("git-config"), with the block files using each."""

    kind: str = "git-lines"
    users: Mapping[str, Sequence[str]] = field(default_factory=dict)
    added: tuple[str, ...] = ()
    created_file: bool = False
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    after_sha256: str | None = None
    created_at: str | None = None
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


@dataclass(frozen=True, slots=True, kw_only=True)
class OtherRecord(JournalRecord):
    """A record of a kind this coffer does not know (written by a newer one): kept, and
    written back, exactly as it was read."""


_TYPES: dict[str, type[JournalRecord]] = {
    "block": BlockRecord,
    "team": TeamRecord,
    "symlink": LinkRecord,
    "native": NativeRecord,
    "git-lines": GitRecord,
    "git-config": GitRecord,
    "setup": SetupRecord,
    "service": ServiceRecord,
}


def parse(raw: Mapping[str, Any]) -> JournalRecord:
    """The typed record of a JSON object :func:`validate` accepted."""
    return _TYPES.get(str(raw["kind"]), OtherRecord).from_json(raw)
