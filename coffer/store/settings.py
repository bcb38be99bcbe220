"""User choices coffer keeps in ``<store>/config.json``: adapters on or off, paused projects,
directories outside git the user made projects, projects whose block git may commit, and
how often ``coffer watch`` syncs (``sync_interval``, seconds; docs/adr/0035), and the tiers
whose stale entries agents find by recall only (``stale_recall``, docs/adr/0053), and the
tiers that hold agents' writes until a person accepts them (``hold_agent_writes``, 0054)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from coffer.base import fsutil
from coffer.base.errors import StoreError

CONFIG = "config.json"


@dataclass(slots=True)
class Settings:
    """The choices, mutable: a command changes them, then saves."""

    adapters: dict[str, bool] = field(default_factory=dict)  # explicit enable/disable
    paused: list[str] = field(default_factory=list)  # project roots `unproject` paused
    # Directories outside git that `coffer init` made projects (no other is one).
    opted_in: list[str] = field(default_factory=list)
    # Project roots whose blocks git sees and commits (`coffer project --git-block commit`).
    git_commit: list[str] = field(default_factory=list)
    sync_interval: float | None = None  # None: coffer watch's default
    # Tiers (a project root, or "global") whose stale entries leave what agents load at
    # session start for what recall finds; every other tier marks them in place.
    stale_recall: list[str] = field(default_factory=list)
    # Tiers whose entries written by agents wait, pending, for a person (coffer.store.pending).
    hold_agent_writes: list[str] = field(default_factory=list)

    def enabled(self, name: str, detected: bool) -> bool:
        """Explicit choice wins; otherwise an adapter is on when its agent is present."""
        return self.adapters.get(name, detected)


def load(store_root: Path) -> Settings:
    data = fsutil.read_bytes_or_none(store_root / CONFIG)
    if data is None:
        return Settings()
    try:
        raw = json.loads(data)
        return Settings(
            adapters={str(k): bool(v) for k, v in raw.get("adapters", {}).items()},
            paused=[str(p) for p in raw.get("paused", [])],
            opted_in=[str(p) for p in raw.get("opted_in", [])],
            git_commit=[str(p) for p in raw.get("git_commit", [])],
            sync_interval=_seconds(raw.get("sync_interval")),
            stale_recall=[str(p) for p in raw.get("stale_recall", [])],
            hold_agent_writes=[str(p) for p in raw.get("hold_agent_writes", [])],
        )
    except (ValueError, AttributeError, TypeError) as exc:
        raise StoreError(f"{store_root / CONFIG} is not valid coffer settings: {exc}") from exc


def _seconds(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 10 <= value <= 86400:
        raise ValueError(
            f"sync_interval must be a number of seconds from 10 to 86400, not {value!r}"
        )
    return float(value)


# The choices made per tier, each a list of tier keys (Tier.key).
TierChoice = Literal["stale_recall", "hold_agent_writes"]


def choose(store_root: Path, choice: TierChoice, key: str, on: bool) -> bool:
    """Put ``key`` in (``on``) or out of the list ``choice``; whether it changed. The
    caller holds the store's lock."""
    chosen = load(store_root)
    keys: list[str] = getattr(chosen, choice)
    before = key in keys
    setattr(chosen, choice, [k for k in keys if k != key] + ([key] if on else []))
    save(store_root, chosen)
    return before != on


def save(store_root: Path, settings: Settings) -> None:
    fsutil.ensure_dir(store_root)
    payload: dict[str, object] = {
        "adapters": dict(sorted(settings.adapters.items())),
        "paused": sorted(set(settings.paused)),
    }
    # Written only when used, so a config.json from before these choices stays as it was.
    if settings.opted_in:
        payload["opted_in"] = sorted(set(settings.opted_in))
    if settings.git_commit:
        payload["git_commit"] = sorted(set(settings.git_commit))
    if settings.sync_interval is not None:
        payload["sync_interval"] = settings.sync_interval
    if settings.stale_recall:
        payload["stale_recall"] = sorted(set(settings.stale_recall))
    if settings.hold_agent_writes:
        payload["hold_agent_writes"] = sorted(set(settings.hold_agent_writes))
    fsutil.write_if_changed(store_root / CONFIG, (json.dumps(payload, indent=2) + "\n").encode())
