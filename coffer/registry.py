"""Finds adapters through the ``coffer.adapters`` entry-point group (built-ins included).

A plugin that fails to import, or does not satisfy the contract, is reported and skipped:
one broken third-party package must never stop coffer (docs/adr/0003).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points

from coffer.adapter import Adapter, Mode

GROUP = "coffer.adapters"


@dataclass(frozen=True)
class Loaded:
    adapters: dict[str, Adapter]
    errors: tuple[str, ...]
    origins: dict[str, str]  # adapter name -> distribution name


def _valid(obj: object) -> str | None:
    if not isinstance(obj, Adapter):
        missing = [
            m
            for m in ("NAME", "MODES", "detect", "targets", "native_memory", "inputs")
            if not hasattr(obj, m)
        ]
        return f"does not implement coffer.adapter.Adapter (missing: {', '.join(missing)})"
    modes = getattr(obj, "MODES", None)
    if not isinstance(modes, dict) or not all(isinstance(m, Mode) for m in modes.values()):
        return "MODES must map tier names to coffer.adapter.Mode values"
    return None


def load_adapters() -> Loaded:
    """Every installed adapter, by name, sorted."""
    found: dict[str, Adapter] = {}
    origins: dict[str, str] = {}
    errors: list[str] = []
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
        problem = _valid(obj)
        if problem:
            errors.append(f"adapter {ep.name!r} ({ep.value}, from {dist}) {problem}")
            continue
        if ep.name in found:
            errors.append(
                f"adapter {ep.name!r} is provided twice ({origins[ep.name]} and "
                f"{dist}); using the first"
            )
            continue
        found[ep.name] = obj
        origins[ep.name] = dist
    return Loaded(dict(sorted(found.items())), tuple(errors), origins)


def unknown_agents(unknown: Iterable[str], known: Iterable[str]) -> str:
    """The one message for agent names coffer does not know: every command that takes an
    agent name says it this way, listing the names it would accept."""
    bad = sorted(set(unknown))
    names = ", ".join(sorted(set(known))) or "none (no adapter is installed)"
    return f"unknown agent{'s' if len(bad) > 1 else ''} {', '.join(bad)}; known agents: {names}"
