"""The JSON side of the journal's records: which objects are undoable (:func:`validate`)
and how a record's typed fields go to and from the JSON it is stored as (:class:`JsonObject`).

The records themselves (one per kind) are in coffer/projection/journal/records.py. A record is a
``NamedTuple`` of its fields with :class:`JournalRecord` mixed in before it: a frozen
dataclass costs six generated functions at import, and the session-start path loads every
kind (docs/adr/0024, amended).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import ClassVar, Self, TypeVar

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


NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
_NOT_JSON = ("absent", "extra")


class JsonObject:
    """A JSON object read into typed fields, mixed in before a ``NamedTuple`` whose last two
    fields are ``absent`` (the keys the file did not have: written back absent while still
    at their default) and ``extra`` (keys coffer does not know, written back as they were).
    Equality ignores those two, as it always has."""

    __slots__ = ()
    # fields written only when they differ from their default (as earlier coffers wrote them)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    if TYPE_CHECKING:  # provided by the NamedTuple each record is made of

        @property
        def absent(self) -> frozenset[str]: ...
        @property
        def extra(self) -> Mapping[str, Any]: ...
        def _replace(self, **changes: Any) -> Self: ...

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Self:
        names = _names(cls)
        values = {n: cls._read(n, raw[n]) for n in names if n in raw}
        values["extra"] = {k: v for k, v in raw.items() if k not in names}
        values["absent"] = frozenset(n for n in names if n not in raw)
        return cls(**values)

    @classmethod
    def _read(cls, name: str, value: Any) -> Any:
        # Only a record's own lists become tuples: a nested value (an agent's previous
        # setting) goes back to its adapter exactly as it was read.
        return tuple(value) if isinstance(value, list) else value

    def to_json(self) -> Json:
        out: Json = dict(self.extra)
        defaults: dict[str, Any] = type(self)._field_defaults  # type: ignore[attr-defined]
        for name in _names(type(self)):
            value = getattr(self, name)
            at_default = name in defaults and value == defaults[name]
            if at_default and (name in self.absent or name in self.OPTIONAL):
                continue
            out[name] = _thawed(value)
        return out

    def but(self, **changes: Any) -> Self:
        """This object with ``changes`` (each one now present in the file)."""
        return self._replace(absent=self.absent - set(changes), **changes)

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in _names(type(self)))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, JsonObject):
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())


class JournalRecord(JsonObject):
    """What every record holds (each kind's NamedTuple starts with these fields)."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def key(self) -> str: ...
        @property
        def path(self) -> str: ...
        @property
        def kind(self) -> str: ...
        @property
        def tier(self) -> str | None: ...
        @property
        def project_id(self) -> str | None: ...
        @property
        def adapters(self) -> tuple[str, ...]: ...


if TYPE_CHECKING:
    R = TypeVar("R", bound=JournalRecord)  # a type only: TypeVar is typing's


def _names(cls: type[JsonObject]) -> tuple[str, ...]:
    fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
    return tuple(n for n in fields if n not in _NOT_JSON)


def _thawed(value: Any) -> Any:
    if isinstance(value, JsonObject):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_thawed(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    return value
