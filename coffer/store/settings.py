"""User choices coffer keeps in ``<store>/config.json``: adapters on or off, paused projects,
directories outside git the user made projects, projects whose block git may commit."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from coffer import fsutil
from coffer.errors import StoreError

CONFIG = "config.json"


@dataclass
class Settings:
    adapters: dict[str, bool] = field(default_factory=dict)  # explicit enable/disable
    paused: list[str] = field(default_factory=list)  # project roots `unproject` paused
    # Directories outside git that `coffer init` made projects (no other is one).
    opted_in: list[str] = field(default_factory=list)
    # Project roots whose blocks git sees and commits (`coffer project --git-block commit`).
    git_commit: list[str] = field(default_factory=list)

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
        )
    except (ValueError, AttributeError, TypeError) as exc:
        raise StoreError(f"{store_root / CONFIG} is not valid coffer settings: {exc}") from exc


def save(store_root: Path, settings: Settings) -> None:
    fsutil.ensure_dir(store_root)
    payload = {
        "adapters": dict(sorted(settings.adapters.items())),
        "paused": sorted(set(settings.paused)),
    }
    # Written only when used, so a config.json from before these choices stays as it was.
    if settings.opted_in:
        payload["opted_in"] = sorted(set(settings.opted_in))
    if settings.git_commit:
        payload["git_commit"] = sorted(set(settings.git_commit))
    fsutil.write_if_changed(store_root / CONFIG, (json.dumps(payload, indent=2) + "\n").encode())
