"""Typed journal records: one per kind, and the JSON they are stored as.

The journal (coffer/projection/journal/ledger.py) validates a record file's JSON with
:func:`validate`, then parses it here into the record of its kind; the rest of coffer reads
attributes, never string keys. :meth:`JournalRecord.to_json` gives back the same JSON the
record was read from: a key an older coffer did not write stays absent while its value is
the default, and keys this coffer does not know are kept as they were (docs/adr/0024).
Each record is its fields (a ``NamedTuple``) with :class:`JournalRecord` mixed in before
them (coffer/projection/journal/fields.py); every kind's fields start with the same six.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from coffer.projection.journal.fields import (
    NO_EXTRA,
    JournalRecord,
    Json,
    JsonObject,
    validate,
)

if TYPE_CHECKING:
    from typing import Any

    from coffer.projection.journal.fields import R as R

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


class _GitState(NamedTuple):
    how: str | None = None
    commit: bool = False
    common: str = ""
    top: str = ""
    pattern: str = ""
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class GitState(JsonObject, _GitState):
    """How a block file is kept out of git: ``how`` is "exclude" (a line in info/exclude),
    "filter" (info/attributes and the clean filter) or "none"."""

    __slots__ = ()


class _Block(NamedTuple):
    key: str
    path: str
    kind: str = "block"
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
    created_file: bool = False
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    git: GitState | None = None  # how the block is kept out of git
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class BlockRecord(JournalRecord, _Block):
    """A managed block in a file (RENDER)."""

    __slots__ = ()
    OPTIONAL = frozenset({"git"})

    @classmethod
    def _read(cls, name: str, value: Any) -> Any:
        if name == "git" and isinstance(value, dict):
            return GitState.from_json(value)
        return super()._read(name, value)


class TeamRecord(BlockRecord):
    """The team block in a file (docs/adr/0036), keyed ``team:<path>``; never hidden from git."""

    __slots__ = ()

    def __new__(cls, *, kind: str = "team", **fields: Any) -> TeamRecord:
        return super().__new__(cls, kind=kind, **fields)


class _Link(NamedTuple):
    key: str
    path: str
    kind: str = "symlink"
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
    link_target: str = ""
    before: str = "absent"  # "absent", "dir", or "unknown" (a link adopted as found)
    backup: str | None = None
    created_dirs: tuple[str, ...] = ()
    created_at: str | None = None
    updated_at: str | None = None
    modes: Mapping[str, Any] | None = None
    rest: Mapping[str, str] | None = None
    restoring: bool | None = None
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class LinkRecord(JournalRecord, _Link):
    """An agent's memory directory replaced by a link into the store (SYMLINK)."""

    __slots__ = ()
    OPTIONAL = frozenset({"modes", "rest", "restoring"})


class _Native(NamedTuple):
    key: str
    path: str
    kind: str = "native"
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
    previous: Mapping[str, Any] = NO_EXTRA
    created_file: bool = False
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    created_at: str | None = None
    link: Mapping[str, str] | None = None  # a dotfile manager's link, followed
    after_sha256: str | None = None
    updated_at: str | None = None
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class NativeRecord(JournalRecord, _Native):
    """An agent's own memory switched off in its config file."""

    __slots__ = ()
    OPTIONAL = frozenset({"link", "after_sha256", "updated_at"})


class _Git(NamedTuple):
    key: str
    path: str
    kind: str = "git-lines"
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
    users: Mapping[str, Sequence[str]] = NO_EXTRA
    added: tuple[str, ...] = ()
    created_file: bool = False
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class GitRecord(JournalRecord, _Git):
    """Lines coffer added to git's info files ("git-lines") or its filter entry in git's
    config ("git-config"), with the block files using each."""

    __slots__ = ()


class _Setup(NamedTuple):
    key: str
    path: str
    kind: str = "setup"
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
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
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class SetupRecord(JournalRecord, _Setup):
    """Entries `coffer setup` added to one agent's config file (coffer/setup/wiring.py):
    ``edits`` are what coffer.setup.config_docs needs to find and remove each one again."""

    __slots__ = ()
    OPTIONAL = frozenset({"seq", "link"})


class _Service(NamedTuple):
    key: str
    path: str
    kind: str = "service"
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
    manager: str = ""  # systemd, launchd
    service: str = ""
    created_file: bool = True
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    seq: int = 0
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class ServiceRecord(JournalRecord, _Service):
    """The watcher's service file `coffer setup` installed (coffer/setup/service.py)."""

    __slots__ = ()
    OPTIONAL = frozenset({"seq"})


class _Other(NamedTuple):
    key: str
    path: str
    kind: str = ""
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
    absent: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = NO_EXTRA


class OtherRecord(JournalRecord, _Other):
    """A record of a kind this coffer does not know (written by a newer one): kept, and
    written back, exactly as it was read."""

    __slots__ = ()


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
