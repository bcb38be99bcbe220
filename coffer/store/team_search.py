"""`coffer recall` over the team tier: the store's BM25 search, its cache kept in the store.

The cache lives beside the project tier's (``<store>/projects/<id>/team-cache.sqlite``),
never in the repository, and is filled by the search cache's own reader, which refuses
links, non-regular files, oversized and non-UTF-8 files and hostile frontmatter like a
store tier's (docs/adr/0018); the directory itself is first checked to be the repository's
own (coffer.store.team.refusal), since the cache reader does not look above it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import NamedTuple

from coffer.base import fsutil
from coffer.store import team
from coffer.store.entry import Entry
from coffer.store.store import Store


class TeamHit(NamedTuple):
    entry: Entry
    score: float
    path: Path


def recall(store: Store, root: Path, query: str, limit: int) -> list[TeamHit]:
    """The ``limit`` best team entries of the project at ``root`` for ``query``."""
    if team.refusal(root) is not None:
        return []
    tier = store.tier_at(root)
    if tier is None:
        return []  # a project coffer never projected: its team tier shows after `project`
    from coffer.store import search_cache

    fsutil.ensure_dir(tier.base)
    directory = team.team_dir(root)
    with contextlib.closing(search_cache.open_cache(tier.base / "team-cache.sqlite")) as conn:
        hits = search_cache.search(conn, directory, query, limit)
    return [TeamHit(h.entry, h.score, directory / h.entry.filename) for h in hits]
