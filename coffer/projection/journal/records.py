"""Typed journal records: one per kind, and the JSON they are stored as.

The journal (coffer/projection/journal/ledger.py) validates a record file's JSON with
:func:`validate`, then parses it here into the record of its kind; the rest of coffer reads
attributes, never string keys. :meth:`JsonObject.to_json` gives back the same JSON the
record was read from: a key an older coffer did not write stays absent while its value is
the default, and keys this coffer does not know are kept as they were (docs/adr/0024).
Each record is a frozen dataclass: :class:`JournalRecord` holds what every kind holds, and
each kind adds only its own fields (and the default of ``kind``). The records of blocks and
of git's files are here; those of agents' own places and of `coffer setup` are in
coffer/projection/journal/agent_records.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from coffer.projection.journal.fields import JournalRecord, Json, JsonObject
from coffer.projection.journal.undoable import validate

__all__ = [
    "BlockRecord",
    "GitRecord",
    "GitState",
    "JournalRecord",
    "Json",
    "OtherRecord",
    "TeamRecord",
    "parse",
    "validate",
]


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
class OtherRecord(JournalRecord):
    """A record of a kind this coffer does not know (written by a newer one): kept, and
    written back, exactly as it was read."""


# What the refresh after every write reads (blocks and the git lines hiding them) is built
# here; the kinds of agents' own places and of `coffer setup` only when a record of theirs
# is read (coffer.projection.journal.agent_records): a write's refresh builds 7 of the 11
# frozen dataclasses (with fields.JsonObject), not all (docs/adr/0049).
_TYPES: dict[str, type[JournalRecord]] = {
    "block": BlockRecord,
    "team": TeamRecord,
    "git-lines": GitRecord,
    "git-config": GitRecord,
}
_ELSEWHERE = frozenset({"symlink", "native", "setup", "service"})


def parse(raw: Mapping[str, Any]) -> JournalRecord:
    """The typed record of a JSON object :func:`validate` accepted."""
    kind = str(raw["kind"])
    if kind in _ELSEWHERE:
        from coffer.projection.journal.agent_records import BY_KIND

        return BY_KIND[kind].from_json(raw)
    return _TYPES.get(kind, OtherRecord).from_json(raw)
