"""The JSON shape of a tier and of an entry, one for every front end (CLI ``--json``, MCP).

Both front ends print these dicts, so a script reading ``coffer recall --json`` and an agent
calling the ``recall`` tool see the same fields (README, "JSON output"). What a front end
adds around them (``action``, ``refresh``, ``note``) is its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.store.tier import Found, Tier

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


class Sources(NamedTuple):
    """What the provenance of a tier's entries is read against (docs/adr/0051): the tier's
    record of what a first projection merged, and this machine's name."""

    merged: Mapping[str, Mapping[str, str]]
    machine: str


def sources(tier: Tier) -> Sources:
    from coffer.store.provenance import machine, merged

    # the store is two levels above the tier's base
    return Sources(merged(tier.base), machine(tier.base.parent.parent))


def entry_json(
    found: Found, *, body: bool, score: bool = False, known: Sources | None = None
) -> dict[str, Any]:
    """An entry with its ``file`` and ``tier``; ``score`` for a search hit (4 decimals);
    ``metadata`` and ``body`` when the caller reads the entry itself. ``known``: the tier's
    :class:`Sources`, when a listing has read them already."""
    data: dict[str, Any] = {
        "name": found.entry.name,
        "description": found.entry.description,
        "type": found.entry.type,
        "file": str(found.path),
        "tier": tier_json(found.tier),
    }
    from coffer.store.provenance import view

    known = known if known is not None else sources(found.tier)
    came = known.merged if not found.entry.metadata.get("origin") else None
    data["provenance"] = view(found.entry, known.machine, came)  # docs/adr/0051
    if found.entry.stale:
        data["stale"] = found.entry.stale  # why it may no longer be true (docs/adr/0053)
    if score:
        data["score"] = round(found.score, 4)
    if body:
        data["metadata"] = dict(found.entry.metadata)
        data["body"] = found.entry.body
    return data


def entries_json(
    listing: Iterable[Found], *, body: bool, score: bool = False
) -> list[dict[str, Any]]:
    """:func:`entry_json` of each entry of a listing, each tier's :class:`Sources` read
    once (`list --json` shows thousands of entries)."""
    read: dict[Path, Sources] = {}
    out = []
    for found in listing:
        known = read.get(found.tier.base)
        if known is None:
            known = read[found.tier.base] = sources(found.tier)
        out.append(entry_json(found, body=body, score=score, known=known))
    return out
