"""The JSON side of the journal's records: which objects are undoable (:func:`validate`),
how a record's typed fields go to and from the JSON it is stored as (:class:`JsonObject`),
and the fields every record holds (:class:`JournalRecord`).

The records of each kind (one frozen dataclass per kind, over :class:`JournalRecord`) are in
coffer/projection/journal/records.py and agent_records.py (docs/adr/0024), which both build
on this module and not on each other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

Json = dict[str, Any]

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


_NOT_JSON = ("absent", "extra")


@dataclass(frozen=True, slots=True, kw_only=True)
class JsonObject:
    """A JSON object read into typed fields. ``absent`` names the keys the file did not have
    (written back absent while still at their default); ``extra`` holds the keys coffer does
    not know (written back as they were). Equality ignores both."""

    absent: frozenset[str] = field(default=frozenset(), compare=False)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    # fields written only when they differ from their default (as earlier coffers wrote them)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    # fields holding a JSON object of their own, read into its class
    NESTED: ClassVar[Mapping[str, type[JsonObject]]] = {}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Self:
        names = _names(cls)
        values = {n: cls._read(n, raw[n]) for n in names if n in raw}
        extra = {k: v for k, v in raw.items() if k not in names}
        return cls(**values, absent=frozenset(n for n in names if n not in raw), extra=extra)

    @classmethod
    def _read(cls, name: str, value: Any) -> Any:
        nested = cls.NESTED.get(name)
        if nested is not None and isinstance(value, dict):
            return nested.from_json(value)
        # Only a record's own lists become tuples: a nested value (an agent's previous
        # setting) goes back to its adapter exactly as it was read.
        return tuple(value) if isinstance(value, list) else value

    def to_json(self) -> Json:
        out: Json = dict(self.extra)
        for f in dataclasses.fields(self):
            if f.name in _NOT_JSON:
                continue
            value = getattr(self, f.name)
            at_default = value == f.default or (
                f.default_factory is not dataclasses.MISSING and value == f.default_factory()
            )
            if at_default and (f.name in self.absent or f.name in self.OPTIONAL):
                continue
            out[f.name] = _thawed(value)
        return out

    def but(self, **changes: Any) -> Self:
        """This object with ``changes``, each one now present in the file (so a change back
        to a default value is written, as :func:`dataclasses.replace` alone would not)."""
        return dataclasses.replace(self, absent=self.absent - set(changes), **changes)


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


def _names(cls: type[JsonObject]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.name not in _NOT_JSON)


def _thawed(value: Any) -> Any:
    if isinstance(value, JsonObject):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_thawed(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    return value
