"""Typed journal records: one record shape, a table of the fields each kind holds, and the
JSON they are stored as (docs/adr/0024).

The journal (coffer/projection/journal/ledger.py) checks a record file's JSON with
:func:`validate`, then reads it here into a :class:`JournalRecord`; the rest of coffer reads
attributes, never string keys. Every kind is the same class: :data:`SHAPES` says which of
its fields a kind keeps in its file, which of them it writes only once they are set, and
where its defaults differ. :meth:`JournalRecord.to_json` gives back the JSON the record was
read from: a key an older coffer did not write stays absent while its value is the default,
and keys this coffer does not know (a newer coffer's kind, or a field another kind keeps)
are written back as they were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from coffer.projection.journal.undoable import validate

__all__ = ["SHAPES", "GitState", "JournalRecord", "Json", "Shape", "parse", "validate"]

Json = dict[str, Any]

# The empty default of the mapping fields: shared, so read-only (typed ``Mapping``; a
# change is a new record, never a change in place).
_NOTHING: Mapping[str, Any] = {}


class GitState(NamedTuple):
    """How a block file is kept out of git (a block record's ``git``): ``how`` is "exclude"
    (a line in info/exclude), "filter" (info/attributes and the clean filter) or "none"."""

    how: str | None = None
    commit: bool = False
    common: str = ""
    top: str = ""
    pattern: str = ""
    absent: frozenset[str] = frozenset()  # as JournalRecord's
    extra: Mapping[str, Any] = _NOTHING

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> GitState:
        names = cls._fields[:-2]
        return cls(
            **{n: raw[n] for n in names if n in raw},
            absent=frozenset(n for n in names if n not in raw),
            extra={k: v for k, v in raw.items() if k not in names},
        )

    def to_json(self) -> Json:
        out = dict(self.extra)
        for name in self._fields[:-2]:
            value = getattr(self, name)
            if not (name in self.absent and value == self._field_defaults[name]):
                out[name] = value
        return out


class JournalRecord(NamedTuple):
    """One change coffer made outside the store: the path it describes (under ``key``,
    which names it in the journal), its kind, the tier, project and adapters it serves, and
    what that kind needs to undo it. A kind keeps only the fields :data:`SHAPES` names for
    it; the others stay at their defaults. A change is a new record: :meth:`but`."""

    kind: str
    key: str
    path: str
    tier: str | None = None
    project_id: str | None = None
    adapters: tuple[str, ...] = ()
    # a file coffer wrote (every kind but "symlink"), and when
    created_file: bool = False
    created_dirs: tuple[str, ...] = ()
    before_sha256: str | None = None
    before_mtime_ns: int | None = None
    after_sha256: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    seq: int = 0  # orders writes within one second ("setup", "service")
    link: Mapping[str, str] | None = None  # a dotfile manager's link, followed
    # "block" and "team": how the block is kept out of git
    git: GitState | None = None
    # "git-lines" and "git-config": the lines coffer added, and the block files using each
    users: Mapping[str, Sequence[str]] = _NOTHING
    added: tuple[str, ...] = ()
    # "symlink": an agent's memory directory replaced by a link into the store
    link_target: str = ""
    before: str = "absent"  # "absent", "dir", or "unknown" (a link adopted as found)
    backup: str | None = None
    modes: Mapping[str, Any] | None = None
    rest: Mapping[str, str] | None = None
    restoring: bool | None = None
    # "native": what the agent's own memory settings were before coffer switched them off
    previous: Mapping[str, Any] = _NOTHING
    # "setup": the entries `coffer setup` added to an agent's config (coffer/setup/wiring.py),
    # as coffer.setup.config_docs finds and removes them again
    format: str = "json"
    edits: tuple[Mapping[str, Any], ...] = ()
    # False once someone changed the file between coffer's writes: undo then removes only
    # coffer's entries, since the pre-image no longer holds everything that should survive
    exact: bool = True
    eof: str | None = None  # how the original ended (a TOML file's last blank lines)
    # "service": the watcher's service file (coffer/setup/service.py)
    manager: str = ""  # systemd, launchd
    service: str = ""
    # the keys of the kind's fields its file did not have: written back absent while they
    # hold their default, as an older coffer wrote them
    absent: frozenset[str] = frozenset()
    # the keys this coffer does not keep for the kind, written back as they were
    extra: Mapping[str, Any] = _NOTHING

    def to_json(self) -> Json:
        shape = SHAPES.get(self.kind, _UNKNOWN)
        out = dict(self.extra)
        for name in _FIELDS:
            value = getattr(self, name)
            at_default = value == shape.default(name)
            if name not in shape.fields:
                if not at_default:  # set by a caller on a kind that does not keep it
                    out[name] = _thawed(value)
            elif not (at_default and (name in self.absent or name in shape.optional)):
                out[name] = _thawed(value)
        return out

    def but(self, **changes: Any) -> JournalRecord:
        """This record with ``changes``, each one now present in the file (so a change
        back to a default value is written, as ``_replace`` alone would not)."""
        return self._replace(absent=self.absent - changes.keys(), **changes)


class Shape(NamedTuple):
    """What one kind keeps in its record file: its fields (the six every kind keeps first),
    those it writes only once set, and the defaults that differ from the record's."""

    fields: tuple[str, ...]
    # fields written only once they differ from their default (as earlier coffers did)
    optional: frozenset[str] = frozenset()
    defaults: Mapping[str, Any] = _NOTHING

    def default(self, name: str) -> Any:
        return self.defaults.get(name, JournalRecord._field_defaults.get(name))


_COMMON = ("kind", "key", "path", "tier", "project_id", "adapters")
_FILE = ("created_file", "created_dirs", "before_sha256", "after_sha256", "created_at")
_BLOCK = Shape(
    (*_COMMON, *_FILE, "before_mtime_ns", "updated_at", "git"), optional=frozenset({"git"})
)
_GIT = Shape((*_COMMON, "users", "added", *_FILE, "updated_at"))

# The one table of kinds and their fields.
SHAPES: Mapping[str, Shape] = {
    "block": _BLOCK,
    "team": _BLOCK,  # the team block (docs/adr/0036), keyed "team:<path>"
    "git-lines": _GIT,  # lines in git's info files
    "git-config": _GIT,  # coffer's clean filter in git's config
    "symlink": Shape(
        (
            *_COMMON,
            *("link_target", "before", "backup", "created_dirs", "created_at", "updated_at"),
            *("modes", "rest", "restoring"),
        ),
        optional=frozenset({"modes", "rest", "restoring"}),
    ),
    "native": Shape(
        (
            *_COMMON,
            *("previous", "created_file", "before_sha256", "before_mtime_ns", "created_at"),
            *("link", "after_sha256", "updated_at"),
        ),
        optional=frozenset({"link", "after_sha256", "updated_at"}),
    ),
    "setup": Shape(
        (
            *_COMMON,
            *("format", "edits", *_FILE, "before_mtime_ns", "exact", "eof", "updated_at"),
            *("seq", "link"),
        ),
        optional=frozenset({"seq", "link"}),
    ),
    "service": Shape(
        (*_COMMON, "manager", "service", *_FILE, "updated_at", "seq"),
        optional=frozenset({"seq"}),
        defaults={"created_file": True},
    ),
}
_UNKNOWN = Shape(_COMMON)  # a kind a newer coffer wrote: kept, and written back, as read
_FIELDS = JournalRecord._fields[:-2]


def parse(raw: Mapping[str, Any]) -> JournalRecord:
    """The record of a JSON object :func:`validate` accepted, read as its own kind."""
    shape = SHAPES.get(str(raw["kind"]), _UNKNOWN)
    values = {n: _read(n, raw[n]) for n in shape.fields if n in raw}
    return JournalRecord(
        **{**shape.defaults, **values},
        absent=frozenset(n for n in shape.fields if n not in raw),
        extra={k: v for k, v in raw.items() if k not in shape.fields},
    )


def _read(name: str, value: Any) -> Any:
    if name == "git" and isinstance(value, dict):
        return GitState.from_json(value)
    # Only a record's own lists become tuples: a nested value (an agent's previous
    # setting) goes back to its adapter exactly as it was read.
    return tuple(value) if isinstance(value, list) else value


def _thawed(value: Any) -> Any:
    if isinstance(value, GitState):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_thawed(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    return value
