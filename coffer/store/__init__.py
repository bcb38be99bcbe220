"""The canonical store: entries, MEMORY.md indexes, the project list, settings, health checks.

The names below are what the rest of coffer uses; the modules behind them (``entry``,
``tier``, ``index``, ``search_cache``, …) are the store's own rooms.
"""

from __future__ import annotations

from coffer.store.drafts import RememberOptions, Revision
from coffer.store.entry import Entry
from coffer.store.health import Finding
from coffer.store.here import Here
from coffer.store.projects import ProjectInfo
from coffer.store.store import Store
from coffer.store.tier import Found, Saved, Scope, Tier

__all__ = [
    "Entry",
    "Finding",
    "Found",
    "Here",
    "ProjectInfo",
    "RememberOptions",
    "Revision",
    "Saved",
    "Scope",
    "Store",
    "Tier",
]
