"""Writes that reach every agent: change the store, then refresh the tier's projections.

``coffer remember`` / ``update`` / ``forget`` and the MCP tools of the same names all come
through here, so every write path regenerates ``MEMORY.md`` *and* re-renders the blocks that
show the tier, in the same call, and says which files it updated. The refresh is
:meth:`Engine.refresh` (the watcher's path): it only touches projections that `coffer project`
established and the journal records, never creates one, and reports a hand-edited block
instead of overwriting it (docs/adr/0014-writes-blocks-ranking.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Unpack

from coffer.store import Found, Revision, Saved, Store, Tier

if TYPE_CHECKING:
    from typing import Any

    from coffer.projection.engine import Engine
    from coffer.store.drafts import RememberFields
    from coffer.store.history import Version


class Refreshed(NamedTuple):
    """What refreshing a tier's projections did: files rewritten, and what was refused."""

    updated: tuple[Path, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "updated": [str(p) for p in self.updated],
            "problems": list(self.problems),
        }


class Writer:
    """Store writes plus the refresh of what agents read, for one store."""

    def __init__(self, store: Store, engines: Callable[[], Engine]) -> None:
        self.store = store
        # Called only when a write changed something: the engine pulls in every adapter,
        # which reads do not need (the composition root, coffer.app, supplies it).
        self.engines = engines

    def refresh(self, tier: Tier, *, indexed: bool = False) -> Refreshed:
        """Re-render the projections that show ``tier``; a failure never undoes the write.
        ``indexed``: the write regenerated ``MEMORY.md`` already (coffer.store.Store's own
        writes do, under the tier's lock), so the refresh does not render it a second time."""
        root = Path(tier.info.root) if tier.scope == "project" else None
        try:
            report = self.engines().refresh(tier.scope, root, indexed=indexed)
        except Exception as exc:  # the entry is saved; say why the agents do not see it yet
            return Refreshed((), (f"{type(exc).__name__}: {exc}",))
        updated = tuple(dict.fromkeys(c.path for c in report.changes))
        return Refreshed(updated, tuple(p.line() for p in report.problems))

    def remember(
        self, tier: Tier, text: str, **fields: Unpack[RememberFields]
    ) -> tuple[Saved, Refreshed]:
        """:meth:`Store.remember`, then the refresh (none when nothing changed)."""
        saved = self.store.remember(tier, text, **fields)
        if saved.action == "unchanged":
            return saved, Refreshed()
        return saved, self.refresh(saved.tier, indexed=True)

    def update(self, tier: Tier, name: str, change: Revision) -> tuple[Saved, Refreshed]:
        """:meth:`Store.update`, then the refresh."""
        saved = self.store.update(tier, name, change)
        return saved, self.refresh(saved.tier, indexed=True)

    def edit(self, found: Found, text: str, *, base: str) -> tuple[Saved, Refreshed]:
        """`coffer edit` (coffer.store.edits), then the refresh (none when nothing changed)."""
        from coffer.store import edits

        saved = edits.edit(self.store, found, text, base=base)
        if saved.action == "unchanged":
            return saved, Refreshed()
        return saved, self.refresh(saved.tier)

    def restore(
        self, tier: Tier, name: str, number: int | None = None
    ) -> tuple[Version, bool, Refreshed]:
        """Put a kept version back (coffer.store.history), then the refresh (none when the
        file already held it)."""
        from coffer.store import restoring

        version, changed = restoring.restore(self.store, tier, name, number)
        return version, changed, self.refresh(tier) if changed else Refreshed()

    def forget(self, tier: Tier, name: str) -> tuple[Found, Refreshed]:
        """:meth:`Store.forget`, then the refresh."""
        found = self.store.forget(tier, name)
        return found, self.refresh(found.tier, indexed=True)
