"""Finds adapters through the ``coffer.adapters`` entry-point group (built-ins included).

A plugin that fails to import, or does not satisfy the contract, is reported and skipped:
one broken third-party package must never stop coffer (docs/adr/0003). The entry points
come from coffer.adapter.plugins (kept between runs); an adapter for an agent that is not
installed is often a coffer.adapter.deferred.Deferred, imported only if it is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from coffer.adapter import Features, Mode
from coffer.adapter.deferred import Deferred, deferred, record
from coffer.adapter.facts import AgentFacts
from coffer.adapter.plugins import GROUP, Plugin, entry_points, lookup

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from coffer.adapter import Adapter, ConfigDir, SessionFramer, Wiring

    T = TypeVar("T")

__all__ = ["GROUP", "ContractError", "Loaded", "Plugin", "entry_points", "load_adapters"]

_REQUIRED = ("NAME", "detect", "targets", "native_memory", "inputs")


class ContractError(Exception):
    """An adapter that does not keep the contract (docs/adr/0025-adapter-contract-kit.md)."""


class Loaded:
    """The adapters found, the errors met finding them, and where each came from."""

    def __init__(
        self,
        adapters: dict[str, Adapter],
        errors: tuple[str, ...],
        origins: dict[str, str],  # adapter name -> distribution name
        extras: dict[str, Features] | None = None,
    ) -> None:
        self.adapters = adapters
        self.errors = errors
        self.origins = origins
        # each adapter's optional members, checked; filled in for adapters handed in directly
        self.extras = {} if extras is None else extras
        for name, adapter in adapters.items():
            if name not in self.extras and not isinstance(adapter, Deferred):
                self.extras[name] = features(adapter)

    def features(self, name: str) -> Features:
        """``name``'s optional members (all defaults for an adapter coffer does not know)."""
        adapter = self.adapters.get(name)
        if isinstance(adapter, Deferred):
            return adapter.features()
        return self.extras.get(name, Features())


def _harnesses(value: object) -> tuple[str, ...]:
    if not isinstance(value, tuple | list) or not all(isinstance(v, str) and v for v in value):
        raise ContractError("HARNESSES must be a tuple of non-empty strings")
    return tuple(value)


def _team_files(value: object) -> tuple[str, ...]:
    if not isinstance(value, tuple | list) or not all(
        isinstance(v, str) and v and not v.startswith("/") and ".." not in v.split("/")
        for v in value
    ):
        raise ContractError("TEAM_FILES must be a tuple of relative paths inside the project")
    return tuple(value)


def _wiring(value: object) -> Wiring:
    if not callable(value):
        raise ContractError("wiring must be a function (ctx, launch) -> Sequence[ConfigEdit]")
    return value  # narrowed to a callable, which the protocol accepts


def _framer(value: object) -> SessionFramer:
    if not callable(value):
        raise ContractError("session_context must be a function (text) -> str")
    return value  # narrowed to a callable, which the protocol accepts


def _config_dir(value: object) -> ConfigDir:
    if not callable(value):
        raise ContractError("config_dir must be a function (ctx) -> Path")
    return value  # narrowed to a callable, which the protocol accepts


def _hook_trust(value: object) -> Any:
    if not callable(value):
        raise ContractError("hook_trust must be a function (ctx) -> HookTrust | None")
    return value


def _link_check(value: object) -> Any:
    if not callable(value):
        raise ContractError("link_check must be a function (ctx) -> LinkCheck | None")
    return value


def _limit(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ContractError("SESSION_CONTEXT_LIMIT must be a positive int")
    return value


def _facts(value: object) -> AgentFacts:
    if not isinstance(value, AgentFacts):
        raise ContractError("FACTS must be a coffer.adapter.facts.AgentFacts")
    return value


def _modes(value: object) -> None:
    # Read by nothing any more (the modes come from targets), but a declared table must
    # still be one, as when coffer read it.
    if not isinstance(value, Mapping) or not all(isinstance(m, Mode) for m in value.values()):
        raise ContractError("MODES must map tier names to coffer.adapter.Mode values")


def _optional(obj: object, member: str, check: Callable[[object], T], default: T) -> T:
    return check(getattr(obj, member)) if hasattr(obj, member) else default


def features(obj: object) -> Features:
    """Check ``obj`` against the contract (coffer/adapter/__init__.py); its optional members, typed.
    Raises ContractError saying what is wrong."""
    # The members themselves, as isinstance() against the runtime-checkable Adapter
    # protocol would look at them, without importing typing for the Protocol.
    missing = [m for m in _REQUIRED if not hasattr(obj, m)]
    if missing:
        raise ContractError(
            f"does not implement coffer.adapter.Adapter (missing: {', '.join(missing)})"
        )
    name: object = getattr(obj, "NAME")  # noqa: B009 (an object, not an Adapter, here)
    if not isinstance(name, str) or not name:
        raise ContractError("NAME must be a non-empty string")
    _optional(obj, "MODES", _modes, None)
    return Features(
        harnesses=_optional(obj, "HARNESSES", _harnesses, ()),
        wiring=_optional(obj, "wiring", _wiring, None),
        session_context=_optional(obj, "session_context", _framer, None),
        session_context_limit=_optional(obj, "SESSION_CONTEXT_LIMIT", _limit, None),
        facts=_optional(obj, "FACTS", _facts, None),
        config_dir=_optional(obj, "config_dir", _config_dir, None),
        team_files=_optional(obj, "TEAM_FILES", _team_files, ()),
        hook_trust=_optional(obj, "hook_trust", _hook_trust, None),
        link_check=_optional(obj, "link_check", _link_check, None),
    )


def load_adapters(environ: Mapping[str, str] | None = None) -> Loaded:
    """Every installed adapter, by name, sorted."""
    found: dict[str, Adapter] = {}
    origins: dict[str, str] = {}
    errors: list[str] = []
    extras: dict[str, Features] = {}
    plugins, kept = lookup(GROUP, environ)
    before = kept.data.get("deferred")
    keep: dict[str, Any] = before if isinstance(before, dict) else {}
    now: dict[str, Any] = {}
    for ep in plugins:
        if ep.name in found:
            errors.append(
                f"adapter {ep.name!r} is provided twice ({origins[ep.name]} and "
                f"{ep.dist_name}); using the first"
            )
            continue
        later = deferred(ep, keep, features, moved=kept.moved)
        if later is not None:
            found[ep.name], origins[ep.name], now[ep.name] = later, ep.dist_name, keep[ep.name]
            continue
        loaded = _load(ep, errors)
        if loaded is not None:
            found[ep.name], extras[ep.name] = loaded
            origins[ep.name] = ep.dist_name
            kept_now = record(ep, loaded[0])
            if kept_now is not None:
                now[ep.name] = kept_now
    if now != keep:
        kept.data["deferred"] = now
        kept.save()
    return Loaded(dict(sorted(found.items())), tuple(errors), origins, extras)


def _load(ep: Plugin, errors: list[str]) -> tuple[Adapter, Features] | None:
    """Import and check one adapter; what went wrong goes into ``errors``."""
    try:
        obj = ep.load()
    except Exception as exc:  # a plugin's bug must not become coffer's crash
        errors.append(
            f"adapter {ep.name!r} ({ep.value}, from {ep.dist_name}) failed to load: "
            f"{type(exc).__name__}: {exc}"
        )
        return None
    try:
        return obj, features(obj)
    except ContractError as exc:
        errors.append(f"adapter {ep.name!r} ({ep.value}, from {ep.dist_name}) {exc}")
        return None


def unknown_agents(unknown: Iterable[str], known: Iterable[str]) -> str:
    """The one message for agent names coffer does not know: every command that takes an
    agent name says it this way, listing the names it would accept."""
    from coffer.base.suggest import close_names, phrase

    bad = sorted(set(unknown))
    known = sorted(set(known))
    names = ", ".join(known) or "none (no adapter is installed)"
    meant = phrase([m for b in bad for m in close_names(b, known, limit=1)])
    plural = "s" if len(bad) > 1 else ""
    return f"unknown agent{plural} {', '.join(bad)}{meant}; known agents: {names}"
