"""A tier's trash: where ``forget`` and a pulled deletion move an entry file, never
destroying it (``<tier.base>/trash/<time>-[<source>-][<n>-]<file>``)."""

from __future__ import annotations

import time
from pathlib import Path

from coffer.base import fsutil
from coffer.store.tier import Tier


def move(tier: Tier, filename: str, source: str = "") -> Path:
    """Move ``filename`` out of ``tier``'s entries into its trash; returns where it went.
    ``source`` (e.g. ``sync``) names what deleted it, in the trashed file's name."""
    trash = tier.base / "trash"
    fsutil.ensure_dir(trash)
    stamp = time.strftime("%Y%m%dT%H%M%S") + (f"-{source}" if source else "")
    target, n = trash / f"{stamp}-{filename}", 1
    while target.exists():  # two in the same second
        target, n = trash / f"{stamp}-{n}-{filename}", n + 1
    fsutil.rename(fsutil.safe_child(tier.dir, filename), target)
    return target
