"""User choices coffer keeps in ``<store>/config.json``: adapters on or off, paused projects."""

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
        )
    except (ValueError, AttributeError, TypeError) as exc:
        raise StoreError(f"{store_root / CONFIG} is not valid coffer settings: {exc}") from exc


def save(store_root: Path, settings: Settings) -> None:
    fsutil.ensure_dir(store_root)
    payload = {
        "adapters": dict(sorted(settings.adapters.items())),
        "paused": sorted(set(settings.paused)),
    }
    fsutil.write_if_changed(store_root / CONFIG, (json.dumps(payload, indent=2) + "\n").encode())
