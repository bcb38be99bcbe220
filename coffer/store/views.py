"""The JSON shape of a tier and of an entry, one for every front end (CLI ``--json``, MCP).

Both front ends print these dicts, so a script reading ``coffer recall --json`` and an agent
calling the ``recall`` tool see the same fields (README, "JSON output"). What a front end
adds around them (``action``, ``refresh``, ``note``) is its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.store.store import Found, Tier

if TYPE_CHECKING:
    from typing import Any


def tier_json(tier: Tier) -> dict[str, Any]:
    """``scope``, the ``project`` name (None for the global tier), its ``root``, ``id``, ``dir``."""
    return {
        "scope": tier.scope,
        "project": tier.info.name if tier.scope == "project" else None,
        "root": tier.info.root or None,
        "id": tier.info.id,
        "dir": str(tier.dir),
    }


def entry_json(found: Found, *, body: bool, score: bool = False) -> dict[str, Any]:
    """An entry with its ``file`` and ``tier``; ``score`` for a search hit (4 decimals);
    ``metadata`` and ``body`` when the caller reads the entry itself."""
    data: dict[str, Any] = {
        "name": found.entry.name,
        "description": found.entry.description,
        "type": found.entry.type,
        "file": str(found.path),
        "tier": tier_json(found.tier),
    }
    from coffer.store.provenance import machine, merged, view

    # where it came from (docs/adr/0051); the store is two levels above the tier's base
    came = merged(found.tier.base) if not found.entry.metadata.get("origin") else None
    data["provenance"] = view(found.entry, machine(found.tier.base.parent.parent), came)
    if found.entry.stale:
        data["stale"] = found.entry.stale  # why it may no longer be true (docs/adr/0053)
    if score:
        data["score"] = round(found.score, 4)
    if body:
        data["metadata"] = dict(found.entry.metadata)
        data["body"] = found.entry.body
    return data
