"""One recall across tiers (``Store.recall``): each tier searched, the best
hits counted where they were found (coffer.store.recalls), MEMORY.md rewritten when a count
moves an entry in the order agents load (docs/adr/0055).

A tier's lock, when free, is taken before its search and held through its count: a count
that moves an entry then renders MEMORY.md from the rows the search synced, which no coffer
writer can have changed meanwhile, without listing the directory a second time
(coffer.store.index_rows; at 10,000 entries a fifth of a recall). The lock is never waited
for before the search: a busy one is waited for at the count, as a recall always did, and
only once this recall holds no lock, so two recalls never wait on each other's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coffer.base.errors import LockTimeoutError
from coffer.store import freshness, locking, recalls, search_cache
from coffer.store.cache_open import connected
from coffer.store.tier import Found, Tier

if TYPE_CHECKING:
    from coffer.store.index_rows import Shown

Lock = Callable[[Tier], AbstractContextManager[None]]  # the store's lock of a tier


def recall(
    tiers: Sequence[Tier],
    query: str,
    limit: int,
    store_root: Path,
    shown: Shown,
    lock: Lock,
) -> list[Found]:
    """The ``limit`` best entries of ``tiers`` for ``query``, each counted. The rest is
    the store's: its root, what agents load of a tier and a tier's lock."""
    found: list[Found] = []
    listed: dict[Path, str] = {}  # by tier.base: its search's listing, its lock held since
    with contextlib.ExitStack() as held:
        for tier in (t for t in tiers if t.dir.is_dir()):
            ours = lock_if_free(held, tier.lock_file)
            with connected(tier.base / "cache.sqlite") as conn:
                hits, listing = search_cache.searched(conn, tier.dir, query, limit)
            listed.update({tier.base: listing} if ours else {})
            seen = freshness.marked([h.entry for h in hits], tier.root)
            found += [Found(tier, e, h.score) for e, h in zip(seen, hits, strict=True)]
        found.sort(key=lambda f: (-f.score, f.tier.scope != "project", f.entry.name))
        found = found[:limit]
        for tier in (t for t in tiers if t.base in listed):
            # A count is a hint: a store it cannot write to, or a busy lock, loses a count.
            with contextlib.suppress(OSError):
                _count(tier, found, listed[tier.base], store_root, shown)
    for tier in (t for t in tiers if t.base not in listed):
        with contextlib.suppress(OSError, LockTimeoutError):
            if any(f.tier == tier for f in found):
                with lock(tier):
                    _count(tier, found, None, store_root, shown)
    return found


def _count(
    tier: Tier, found: Sequence[Found], listed: str | None, root: Path, shown: Shown
) -> None:
    # What agents look up often comes first where they load memory.
    names = [f.entry.name for f in found if f.tier == tier]
    if names and recalls.add(tier, names):  # MEMORY.md in the new order
        from coffer.store import index_rows  # most recalls move no entry

        index_rows.regenerate(tier, root, shown, listed)


def lock_if_free(held: contextlib.ExitStack[Any], path: Path) -> bool:
    """Take the lock at ``path`` (in a directory that exists) into ``held`` when no process
    holds it now, never waiting; whether it did. A store coffer cannot write to gives none."""
    try:
        held.enter_context(locking.exclusive(path, 0.0))
    except (OSError, locking.Busy):
        return False
    return True
