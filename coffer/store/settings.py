"""User choices coffer keeps in ``<store>/config.json``: adapters on or off, paused projects,
directories outside git the user made projects, projects whose block git may commit, and
how often ``coffer watch`` syncs (``sync_interval``, seconds; docs/adr/0035), and the tiers
whose stale entries agents find by recall only (``stale_recall``, docs/adr/0053), and the
tiers that hold agents' writes until a person accepts them (``hold_agent_writes``, 0054)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from coffer.base import fsutil
from coffer.base.errors import StoreError

CONFIG = "config.json"


class Settings:
    """The choices, mutable: a command changes them, then saves. A plain class: every
    command reads the settings, and a dataclass costs ``dataclasses`` and ``inspect`` at
    start-up (tests/cli/test_imports.py holds the reads and a full projection to that)."""

    __slots__ = (
        "adapters",
        "git_commit",
        "hold_agent_writes",
        "opted_in",
        "paused",
        "stale_recall",
        "sync_interval",
    )

    def __init__(  # noqa: PLR0913 - one argument per stored choice
        self,
        adapters: dict[str, bool] | None = None,
        paused: list[str] | None = None,
        opted_in: list[str] | None = None,
        git_commit: list[str] | None = None,
        sync_interval: float | None = None,
        stale_recall: list[str] | None = None,
        hold_agent_writes: list[str] | None = None,
    ) -> None:
        self.adapters = {} if adapters is None else adapters  # explicit enable/disable
        self.paused = [] if paused is None else paused  # project roots `unproject` paused
        # Directories outside git that `coffer init` made projects (no other is one).
        self.opted_in = [] if opted_in is None else opted_in
        # Project roots whose blocks git sees and commits (`coffer project --git-block commit`).
        self.git_commit = [] if git_commit is None else git_commit
        self.sync_interval = sync_interval  # None: coffer watch's default
        # Tiers (a project root, or "global") whose stale entries leave what agents load at
        # session start for what recall finds; every other tier marks them in place.
        self.stale_recall = [] if stale_recall is None else stale_recall
        # Tiers whose entries written by agents wait, pending, for a person (coffer.store.pending).
        self.hold_agent_writes = [] if hold_agent_writes is None else hold_agent_writes

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"Settings({shown})"

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
