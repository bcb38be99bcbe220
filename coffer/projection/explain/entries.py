"""How many of a tier's entries an agent has in view at session start: those whose line
reaches the model in what it loads (a block's headline, an index's link), after every cap
the agent applies; the rest it finds only by recall (issue 25.5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from coffer.projection import managed_block
from coffer.projection.blocks.content import headline
from coffer.projection.explain.caps import Measured
from coffer.store.entry import Entry, one_line


class InView(NamedTuple):
    """One tier, as one agent sees it."""

    shown: int  # entries whose line reaches the model
    total: int  # entries the tier shows agents (coffer.store.Store.shown)


def _visible(m: Measured, start: int, end: int) -> bytes:
    """The bytes of ``start:end`` of the file that the agent's caps let through."""
    if not m.read:
        return b""
    try:
        data = m.found.path.read_bytes()
    except OSError:
        return b""
    head, tail = m.kept[0], m.size - m.kept[1]
    return data[start : min(end, head)] + data[max(start, tail) : end]


def _probe(entry: Entry, kind: str) -> bytes:
    if kind == "index":
        return f"[{entry.name}](".encode()
    # The headline as the block renders it; its first 40 bytes are enough to tell.
    return managed_block.render_fragment(one_line(headline(entry), 10_000)).encode()[:40]


def in_view(files: Sequence[Measured], entries: Mapping[str, Sequence[Entry]]) -> dict[str, InView]:
    """Per tier with entries: how many of them reach the model through ``files``."""
    seen: dict[str, set[str]] = {tier: set() for tier in entries}
    for m in files:
        for s in m.sections:
            if s.tier not in entries:
                continue
            text = _visible(m, s.start, s.end)
            seen[s.tier] |= {e.name for e in entries[s.tier] if _probe(e, s.kind) in text}
    return {t: InView(len(seen[t]), len(es)) for t, es in entries.items() if es}
