"""Finds adapters through the ``coffer.adapters`` entry-point group (built-ins included).

A plugin that fails to import, or does not satisfy the contract, is reported and skipped:
one broken third-party package must never stop coffer (docs/adr/0003).

Reading the entry points costs ``importlib.metadata`` (with ``email``, ``zipfile`` and more)
and a walk over every installed distribution: about four times a bare Python start. The
group's entries are kept in the store's state directory, keyed by the modification time of
every directory on the import path (installing or removing a distribution changes its
``site-packages``), and read from there while that key holds (docs/adr/0023).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

from coffer.adapter import Adapter, ConfigDir, Features, Mode, SessionFramer, Wiring
from coffer.adapter.facts import AgentFacts

GROUP = "coffer.adapters"
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
            if name not in self.extras:
                self.extras[name] = features(adapter)

    def features(self, name: str) -> Features:
        """``name``'s optional members (all defaults for an adapter coffer does not know)."""
        return self.extras.get(name, Features())


T = TypeVar("T")

_CACHE_NAME = "adapters.json"
_CACHE_VERSION = 1
# A directory changed this recently may change again within its timestamp's granularity
# (2 s on FAT, 1 s on HFS+): a key taken now could miss that change, so none is kept.
_RACY_SECONDS = 2.0


class Plugin:
    """One entry point of the group: what ``importlib.metadata.EntryPoint`` offers coffer."""

    def __init__(self, name: str, value: str, dist: str) -> None:
        self.name, self.value, self.dist_name = name, value, dist

    def load(self) -> Any:
        # The entry-point value syntax: ``module`` or ``module:attr.attr`` (extras ignored).
        module, _, attrs = self.value.partition("[")[0].partition(":")
        obj: Any = importlib.import_module(module.strip())
        for attr in filter(None, attrs.strip().split(".")):
            obj = getattr(obj, attr)
        return obj


def _path_key() -> tuple[list[list[Any]], float]:
    """Every import-path directory with its mtime, and the newest of those mtimes."""
    key: list[list[Any]] = [[sys.version, sys.executable]]
    newest = 0.0
    for path in sys.path:
        try:
            st = os.stat(path or ".")
        except OSError:
            continue
        key.append([path, st.st_mtime_ns])
        newest = max(newest, st.st_mtime)
    return key, newest


def _cache_file(environ: Mapping[str, str]) -> str | None:
    from coffer.base.locations import known_store_root

    root = known_store_root(environ)
    # Only a store that exists gets a cache: listing adapters must not create one.
    return os.path.join(root, "state", _CACHE_NAME) if root and os.path.isdir(root) else None


def entry_points(group: str, environ: Mapping[str, str] | None = None) -> list[Plugin]:
    """The group's entry points, from the cache while the import path is unchanged."""
    where = _cache_file(os.environ if environ is None else environ)
    key, newest = _path_key()
    cached = _read_cache(where, group, key) if where else None
    if cached is not None:
        return cached
    from importlib.metadata import entry_points as scan

    found = [
        Plugin(ep.name, ep.value, ep.dist.name if ep.dist is not None else "?")
        for ep in scan(group=group)
    ]
    if where and time.time() - newest > _RACY_SECONDS:
        _write_cache(where, group, key, found)
    return found


def _read_cache(where: str, group: str, key: list[list[Any]]) -> list[Plugin] | None:
    try:
        with open(where, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("version") != _CACHE_VERSION or data.get("key") != key:
            return None
        return [Plugin(str(n), str(v), str(d)) for n, v, d in data["groups"][group]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # absent, stale or damaged: scan again


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


def _write_cache(where: str, group: str, key: list[list[Any]], found: list[Plugin]) -> None:
    # A cache, not a change coffer makes: written beside itself and renamed, without the
    # fsync and fault steps of coffer's journaled writes; a torn file just reads as stale.
    entries = [[p.name, p.value, p.dist_name] for p in found]
    data = json.dumps({"version": _CACHE_VERSION, "key": key, "groups": {group: entries}})
    tmp = f"{where}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(where), mode=0o700, exist_ok=True)
        with open(tmp, "w", encoding="utf-8", opener=_private) as f:
            f.write(data)
        os.replace(tmp, where)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # a read-only store: no cache, the next run scans again


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
    return cast(Wiring, value)


def _framer(value: object) -> SessionFramer:
    if not callable(value):
        raise ContractError("session_context must be a function (text) -> str")
    return cast(SessionFramer, value)


def _config_dir(value: object) -> ConfigDir:
    if not callable(value):
        raise ContractError("config_dir must be a function (ctx) -> Path")
    return cast(ConfigDir, value)


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
        config_dir=_optional(obj, "config_dir", _config_dir, None),
        team_files=_optional(obj, "TEAM_FILES", _team_files, ()),
    )


def load_adapters(environ: Mapping[str, str] | None = None) -> Loaded:
    """Every installed adapter, by name, sorted."""
    found: dict[str, Adapter] = {}
    origins: dict[str, str] = {}
    errors: list[str] = []
    extras: dict[str, Features] = {}
    for ep in entry_points(GROUP, environ):
        dist = ep.dist_name
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
