"""The canonical store: entries, MEMORY.md indexes, the project list, settings, health checks.

The names below are what the rest of coffer uses; the modules behind them (``entry``,
``tier``, ``index``, ``search_cache``, …) are the store's own rooms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.store.entry import Entry
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


# Names whose modules load on first use (PEP 562): every command imports this package, and
# only writers need ``drafts``, only `coffer doctor` ``health`` (docs/adr/0049). mypy reads
# the imports themselves, so a misspelled name is still an error there.
if TYPE_CHECKING:
    from coffer.store.drafts import RememberOptions, Revision
    from coffer.store.health import Finding
else:
    _LAZY = {"Finding": "health", "RememberOptions": "drafts", "Revision": "drafts"}

    def __getattr__(name: str) -> object:
        if name in _LAZY:
            from importlib import import_module

            return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
