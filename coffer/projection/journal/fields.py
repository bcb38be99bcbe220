"""The JSON side of the journal's records: how a record's typed fields go to and from the
JSON it is stored as (:class:`JsonObject`), and the fields every record holds
(:class:`JournalRecord`). Which objects are undoable is coffer.projection.journal.undoable.

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
