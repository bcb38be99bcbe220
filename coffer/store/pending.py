"""Entries agents wrote, held for a person (issue 25.4, docs/adr/0054): per tier, off by
default (``coffer review --hold-agent-writes``).

When a tier holds agents' writes, an entry an agent wrote there (a file in its linked
folder, found by coffer.store.agent_writes; an MCP client's ``remember``) carries
``pending: true``. It stays where the writer reads it — the tier's ``MEMORY.md``, which a
linked agent loads through its link (marked ``[pending]``), and the MCP ``recall`` of the
same client — and out of what every other agent loads: the blocks (``AGENTS.md``, …) and
the team tier. `coffer review` lists it; accepting it clears the mark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coffer.store import settings
from coffer.store.entry import Entry
from coffer.store.tier import Tier

KEY = "pending"


def is_pending(entry: Entry) -> bool:
    return entry.metadata.get(KEY) is True


def held(store_root: Path, tier: Tier) -> bool:
    """Whether ``tier`` holds what agents write until a person accepts it."""
    return tier.key in settings.load(store_root).hold_agent_writes


def by_agent(origin: str) -> bool:
    """An origin (coffer.store.provenance) that is an agent's, not a person's."""
    return origin.startswith(("agent:", "mcp:"))


def marked(meta: Mapping[str, Any]) -> dict[str, Any]:
    return {**meta, KEY: True}


def accepted(meta: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k != KEY}


def for_others(entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """What every agent but the writer loads: no pending entry."""
    return tuple(e for e in entries if not is_pending(e))


def for_reader(entries: Sequence[Entry], reader: str) -> list[Entry]:
    """What ``reader`` (an origin, e.g. ``mcp:codex``) may see: every accepted entry, and
    the pending ones it wrote itself."""
    return [e for e in entries if not is_pending(e) or e.metadata.get("origin") == reader]
