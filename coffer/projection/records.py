"""Typed journal records: one frozen dataclass per kind, and the JSON they are stored as.

The journal (coffer/projection/journal.py) validates a record file's JSON with
:func:`validate`, then parses it here into the record of its kind; the rest of coffer reads
attributes, never string keys. :meth:`JournalRecord.to_json` gives back the same JSON the
record was read from: a key an older coffer did not write stays absent while its value is
the default, and keys this coffer does not know are kept as they were (docs/adr/0024).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

Json = dict[str, Any]
R = TypeVar("R", bound="JournalRecord")

# What each kind of record needs for its undo: (field, accepted types). A record without
# them cannot be undone as written, and coffer never fills a pre-image in by guessing.
_COMMON: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("key", (str,)),
    ("path", (str,)),
    ("kind", (str,)),
)
_ADAPTERS = ("adapters", (list,))
_BY_KIND: dict[str, tuple[tuple[str, tuple[type, ...]], ...]] = {
    "block": (_ADAPTERS, ("before_sha256", (str, type(None)))),
    "team": (_ADAPTERS, ("before_sha256", (str, type(None)))),
    "symlink": (_ADAPTERS, ("link_target", (str,)), ("before", (str,))),
    "native": (_ADAPTERS, ("previous", (dict,))),
    "setup": (_ADAPTERS, ("edits", (list,)), ("before_sha256", (str, type(None)))),
    "service": (_ADAPTERS,),
    "git-lines": (("users", (dict,)), ("before_sha256", (str, type(None)))),
    "git-config": (("users", (dict,)), ("before_sha256", (str, type(None)))),
}
_OPTIONAL: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("adapters", (list,)),
    ("created_file", (bool,)),
    ("created_dirs", (list,)),
    ("after_sha256", (str, type(None))),
    ("tier", (str, type(None))),
    ("project_id", (str, type(None))),
)


def validate(record: object) -> str | None:
    """Why ``record`` cannot be undone as written, or None when it can."""
    if not isinstance(record, dict):
        return "not a JSON object"
    kind = record.get("kind")
    fields = _COMMON + _BY_KIND.get(kind if isinstance(kind, str) else "", ())
    for name, types in fields:
        if name not in record:
            return f"the field {name!r} is missing"
        if not isinstance(record[name], types):
            return f"the field {name!r} has the wrong type"
    for name, types in _OPTIONAL:
        if name in record and not isinstance(record[name], types):
            return f"the field {name!r} has the wrong type"
    if not all(isinstance(a, str) for a in record.get("adapters", [])):
        return "the field 'adapters' has the wrong type"
    return None


# A field written only when it differs from its default (as earlier coffers wrote them).
_ONLY_IF_SET = {"optional": True}


J = TypeVar("J", bound="JsonObject")


@dataclass(frozen=True)
class JsonObject:
    """A JSON object read into typed fields. ``absent`` names the keys the file did not
    have (written back absent while still at their default); ``extra`` holds keys coffer
    does not know, written back as they were."""

    absent: frozenset[str] = field(default=frozenset(), compare=False, kw_only=True)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, kw_only=True)

    _NOT_JSON = ("absent", "extra")

    @classmethod
    def from_json(cls: type[J], raw: Mapping[str, Any]) -> J:
        names = [f.name for f in dataclasses.fields(cls) if f.name not in cls._NOT_JSON]
        values = {n: cls._read(n, raw[n]) for n in names if n in raw}
        extra = {k: v for k, v in raw.items() if k not in names}
        return cls(**values, absent=frozenset(n for n in names if n not in raw), extra=extra)

    @classmethod
    def _read(cls, name: str, value: Any) -> Any:
        # Only a record's own lists become tuples: a nested value (an agent's previous
        # setting) goes back to its adapter exactly as it was read.
        return tuple(value) if isinstance(value, list) else value

    def to_json(self) -> Json:
        out: Json = dict(self.extra)
        for f in dataclasses.fields(self):
            if f.name in self._NOT_JSON:
                continue
            value = getattr(self, f.name)
            at_default = value == f.default or (
                f.default_factory is not dataclasses.MISSING and value == f.default_factory()
            )
            if at_default and (f.name in self.absent or f.metadata.get("optional")):
                continue
            out[f.name] = _thawed(value)
        return out

    def but(self: J, **changes: Any) -> J:
        """This object with ``changes`` (each one now present in the file)."""
        return dataclasses.replace(self, absent=self.absent - set(changes), **changes)


@dataclass(frozen=True)
class JournalRecord(JsonObject):
    """What every record holds."""

    key: str
    path: str
    kind: str = ""
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()


@dataclass(frozen=True)
class GitState(JsonObject):
    """How a block file is kept out of git: ``how`` is "exclude" (a line in info/exclude),
    "filter" (info/attributes and the clean filter) or "none"."""

    how: str | None = None
    commit: bool = False
    common: str = ""
    top: str = ""
    pattern: str = ""


@dataclass(frozen=True)
class BlockRecord(JournalRecord):
    """A managed block in a file (RENDER)."""

    kind: str = "block"
    created_file: bool = False
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    git: GitState | None = field(
        default=None, metadata=_ONLY_IF_SET
    )  # how the block is kept out of git

    @classmethod
    def _read(cls, name: str, value: Any) -> Any:
        if name == "git" and isinstance(value, dict):
            return GitState.from_json(value)
        return super()._read(name, value)


@dataclass(frozen=True)
class TeamRecord(BlockRecord):
    """The team block in a file (docs/adr/0036), keyed ``team:<path>``; never hidden from git."""

    kind: str = "team"


@dataclass(frozen=True)
class LinkRecord(JournalRecord):
    """An agent's memory directory replaced by a link into the store (SYMLINK)."""

    kind: str = "symlink"
    link_target: str = ""
    before: str = "absent"  # "absent", "dir", or "unknown" (a link adopted as found)
    backup: str | None = None
    created_dirs: tuple[str, ...] = ()
    created_at: str | None = None
    updated_at: str | None = None
    modes: Mapping[str, Any] | None = field(default=None, metadata=_ONLY_IF_SET)
    rest: Mapping[str, str] | None = field(default=None, metadata=_ONLY_IF_SET)
    restoring: bool | None = field(default=None, metadata=_ONLY_IF_SET)


@dataclass(frozen=True)
class NativeRecord(JournalRecord):
    """An agent's own memory switched off in its config file."""

    kind: str = "native"
    previous: Mapping[str, Any] = field(default_factory=dict)
    created_file: bool = False
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    created_at: str | None = None
    link: Mapping[str, str] | None = field(
        default=None, metadata=_ONLY_IF_SET
    )  # a dotfile manager's link, followed
    after_sha256: str | None = field(default=None, metadata=_ONLY_IF_SET)
    updated_at: str | None = field(default=None, metadata=_ONLY_IF_SET)


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class SetupRecord(JournalRecord):
    """Entries `coffer setup` added to one agent's config file (coffer/setup/wiring.py):
    ``edits`` are what coffer.setup.config_docs needs to find and remove each one again."""

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
    seq: int = field(default=0, metadata=_ONLY_IF_SET)  # orders writes within one second
    link: Mapping[str, str] | None = field(default=None, metadata=_ONLY_IF_SET)


@dataclass(frozen=True)
class ServiceRecord(JournalRecord):
    """The watcher's service file `coffer setup` installed (coffer/setup/service.py)."""

    kind: str = "service"
    manager: str = ""  # systemd, launchd
    service: str = ""
    created_file: bool = True
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    seq: int = field(default=0, metadata=_ONLY_IF_SET)


@dataclass(frozen=True)
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


def _thawed(value: Any) -> Any:
    if isinstance(value, JsonObject):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_thawed(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    return value
