"""`coffer restore`: a kept version of an entry back in its tier, through the write path
every write takes (coffer.store.history, docs/adr/0052)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.base import fsutil
from coffer.store.history import Version, chosen

if TYPE_CHECKING:
    from coffer.store.store import Store
    from coffer.store.tier import Tier


def restore(store: Store, tier: Tier, name: str, number: int | None) -> tuple[Version, bool]:
    """Put version ``number`` of ``name`` back (atomically, under the tier's lock, MEMORY.md
    regenerated); the version, and whether the file changed."""
    from coffer.store import index_file

    with store.lock(tier):
        kept = store.kept(tier)
        versions = kept.versions(name)
        now = versions and fsutil.read_bytes_or_none(tier.dir / versions[-1].filename)
        version = chosen(versions, now or None, number)
        path = fsutil.safe_child(tier.dir, version.filename)
        current = fsutil.read_bytes_or_none(path)
        data = kept.blob(version.digest)
        if current == data:
            return version, False
        fsutil.ensure_dir(tier.dir)
        fsutil.atomic_write_bytes(path, data)
        kept.wrote(version.filename)
        index_file.write_if_stale(tier, store.shown)
    return version, True
