"""`coffer recall` over the team tier: the store's BM25 search, its cache kept in the store.

The cache lives in the store (``<store>/state/team-<digest of the root>.sqlite``), never in
the repository, and is filled by the search cache's own reader, which refuses
links, non-regular files, oversized and non-UTF-8 files and hostile frontmatter like a
store tier's (docs/adr/0018); the directory itself is first checked to be the repository's
own (coffer.store.team.refusal), since the cache reader does not look above it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.base import fsutil
from coffer.store import team
from coffer.store.entry import Entry, withheld
from coffer.store.store import Store

if TYPE_CHECKING:
    from typing import Any


class TeamHit(NamedTuple):
    entry: Entry
    score: float
    path: Path

    def as_json(self) -> dict[str, Any]:
        """The hit as `coffer recall --json` and the MCP recall tool give it."""
        from coffer.store.provenance import view

        e = self.entry
        return {
            "tier": "team",
            "name": e.name,
            "description": e.description,
            "type": e.type,
            "body": e.body,
            "score": self.score,
            "path": str(self.path),
            "provenance": view(e),  # who added it, and where it came from (docs/adr/0051)
        }


def recall(store: Store, root: Path, query: str, limit: int) -> list[TeamHit]:
    """The ``limit`` best team entries of the project at ``root`` for ``query``."""
    if team.refusal(root) is not None:
        return []
    import hashlib

    from coffer.store import cache_open, search_cache

    # Keyed by the root, not the project id: a read must not register a project.
    state = store.root / "state"
    fsutil.ensure_dir(state)
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    directory = team.team_dir(root)
    with cache_open.connected(state / f"team-{digest}.sqlite") as conn:
        hits = search_cache.search(conn, directory, query, limit)
    # A teammate's file may hold what the gate refuses: like a block, recall never shows it.
    return [
        TeamHit(h.entry, h.score, directory / h.entry.filename)
        for h in hits
        if not withheld(h.entry)
    ]
