"""How often `recall` returned each entry of a tier: a usage count, one small JSON file per
tier beside its entries (``<tier>/recalls.json``), which the index and the blocks use to put
what agents look up most among the first lines they load (docs/adr/0055).

A count is a hint, not memory: a lost or damaged file only makes every count zero again,
and a count is never synced or shown to agents.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from coffer.base import fsutil
from coffer.store.entry import Entry
from coffer.store.tier import Tier

NAME = "recalls.json"
MAX_NAMES = 50_000  # a file any bigger was not written by coffer: counts start over


def counts(tier: Tier) -> dict[str, int]:
    data = fsutil.read_bytes_or_none(tier.base / NAME)
    try:
        raw = json.loads(data) if data else {}
    except ValueError:
        return {}
    if not isinstance(raw, dict) or len(raw) > MAX_NAMES:
        return {}
    return {str(k): v for k, v in raw.items() if isinstance(v, int) and v > 0}


def with_counts(entries: Sequence[Entry], tier: Tier) -> tuple[Entry, ...]:
    """``entries``, each carrying how often it was recalled."""
    seen = counts(tier)
    if not seen:
        return tuple(entries)
    return tuple(e._replace(recalled=seen[e.name]) if e.name in seen else e for e in entries)


def add(tier: Tier, names: Iterable[str]) -> bool:
    """Count one recall of each of ``names`` (the caller holds the tier's lock); whether
    that moves an entry in the order agents load (a count reached the next doubling)."""
    seen = counts(tier)
    moved = False
    for name in names:
        before = seen.get(name, 0)
        seen[name] = before + 1
        moved = moved or (before + 1).bit_length() != before.bit_length()
    fsutil.atomic_write_text(tier.base / NAME, json.dumps(seen, sort_keys=True) + "\n")
    return moved
