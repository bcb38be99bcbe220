"""Finds adapters through the ``coffer.adapters`` entry-point group (built-ins included).

A plugin that fails to import, or does not satisfy the contract, is reported and skipped:
one broken third-party package must never stop coffer (docs/adr/0003).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TypeVar, cast

from coffer.adapter import Adapter, Features, Mode, SessionFramer, Wiring
from coffer.agent_facts import AgentFacts

GROUP = "coffer.adapters"
_REQUIRED = ("NAME", "detect", "targets", "native_memory", "inputs")


class ContractError(Exception):
    """An adapter that does not keep the contract (docs/adr/0025-adapter-contract-kit.md)."""


@dataclass(frozen=True)
class Loaded:
    adapters: dict[str, Adapter]
    errors: tuple[str, ...]
    origins: dict[str, str]  # adapter name -> distribution name
    # each adapter's optional members, checked; filled in for adapters handed in directly
    extras: dict[str, Features] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, adapter in self.adapters.items():
            if name not in self.extras:
                self.extras[name] = features(adapter)

    def features(self, name: str) -> Features:
        """``name``'s optional members (all defaults for an adapter coffer does not know)."""
        return self.extras.get(name, Features())


T = TypeVar("T")


def _harnesses(value: object) -> tuple[str, ...]:
    if not isinstance(value, tuple | list) or not all(isinstance(v, str) and v for v in value):
        raise ContractError("HARNESSES must be a tuple of non-empty strings")
    return tuple(value)


def _wiring(value: object) -> Wiring:
    if not callable(value):
        raise ContractError("wiring must be a function (ctx, launch) -> Sequence[ConfigEdit]")
    return cast(Wiring, value)


def _framer(value: object) -> SessionFramer:
    if not callable(value):
        raise ContractError("session_context must be a function (text) -> str")
    return cast(SessionFramer, value)


def _limit(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ContractError("SESSION_CONTEXT_LIMIT must be a positive int")
    return value


def _facts(value: object) -> AgentFacts:
    if not isinstance(value, AgentFacts):
        raise ContractError("FACTS must be a coffer.agent_facts.AgentFacts")
    return value


def _modes(value: object) -> None:
    # Read by nothing any more (the modes come from targets), but a declared table must
    # still be one, as when coffer read it.
    if not isinstance(value, Mapping) or not all(isinstance(m, Mode) for m in value.values()):
        raise ContractError("MODES must map tier names to coffer.adapter.Mode values")


def _optional(obj: object, member: str, check: Callable[[object], T], default: T) -> T:
    return check(getattr(obj, member)) if hasattr(obj, member) else default


def features(obj: object) -> Features:
    """Check ``obj`` against the contract (coffer/adapter.py); its optional members, typed.
    Raises ContractError saying what is wrong."""
    if not isinstance(obj, Adapter):
        missing = [m for m in _REQUIRED if not hasattr(obj, m)]
        raise ContractError(
            f"does not implement coffer.adapter.Adapter (missing: {', '.join(missing)})"
        )
    name: object = obj.NAME
    if not isinstance(name, str) or not name:
        raise ContractError("NAME must be a non-empty string")
    _optional(obj, "MODES", _modes, None)
    return Features(
        harnesses=_optional(obj, "HARNESSES", _harnesses, ()),
        wiring=_optional(obj, "wiring", _wiring, None),
        session_context=_optional(obj, "session_context", _framer, None),
        session_context_limit=_optional(obj, "SESSION_CONTEXT_LIMIT", _limit, None),
        facts=_optional(obj, "FACTS", _facts, None),
    )


def load_adapters() -> Loaded:
    """Every installed adapter, by name, sorted."""
    found: dict[str, Adapter] = {}
    origins: dict[str, str] = {}
    errors: list[str] = []
    extras: dict[str, Features] = {}
    for ep in entry_points(group=GROUP):
        dist = ep.dist.name if ep.dist is not None else "?"
        try:
            obj = ep.load()
        except Exception as exc:  # a plugin's bug must not become coffer's crash
            errors.append(
                f"adapter {ep.name!r} ({ep.value}, from {dist}) failed to load: "
                f"{type(exc).__name__}: {exc}"
            )
            continue
        try:
            checked = features(obj)
        except ContractError as exc:
            errors.append(f"adapter {ep.name!r} ({ep.value}, from {dist}) {exc}")
            continue
        if ep.name in found:
            errors.append(
                f"adapter {ep.name!r} is provided twice ({origins[ep.name]} and "
                f"{dist}); using the first"
            )
            continue
        found[ep.name], extras[ep.name] = obj, checked
        origins[ep.name] = dist
    return Loaded(dict(sorted(found.items())), tuple(errors), origins, extras)


def unknown_agents(unknown: Iterable[str], known: Iterable[str]) -> str:
    """The one message for agent names coffer does not know: every command that takes an
    agent name says it this way, listing the names it would accept."""
    bad = sorted(set(unknown))
    names = ", ".join(sorted(set(known))) or "none (no adapter is installed)"
    return f"unknown agent{'s' if len(bad) > 1 else ''} {', '.join(bad)}; known agents: {names}"
