"""What the page reads and writes, through the core objects the CLI uses: the store and
its tiers, the :class:`~coffer.projection.writes.Writer` (secret gate, refresh of every
projection), the review resolver, the explain facts and the journal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from coffer.base.errors import InvalidInputError
from coffer.store import Revision
from coffer.store.tier import Found, Tier

if TYPE_CHECKING:
    from coffer.app import App
    from coffer.store.review import Item


class Site:
    """One project's memory as the page shows it."""

    def __init__(self, app: App, project: Path) -> None:
        self.app = app
        self.project = project

    def tiers(self) -> list[Tier]:
        """The project's tier (when it has one), then the global one."""
        return self.app.store.tiers(self.app.here(self.project), None)

    def tier(self, scope: str) -> Tier:
        for tier in self.tiers():
            if tier.scope == scope:
                return tier
        raise InvalidInputError(f"no {scope} tier here")

    def entries(self, query: str) -> list[Found]:
        """Every entry, or the hits of ``query`` ranked as `coffer recall` ranks them."""
        store = self.app.store
        if query.strip():
            return store.recall(self.tiers(), query, limit=50)
        return [Found(t, e) for t in self.tiers() for e in store.scan(t).entries]

    def found(self, scope: str, name: str) -> Found:
        return self.app.store.find([self.tier(scope)], name)

    def history(self, scope: str, name: str) -> list[dict[str, Any]]:
        from coffer.store import history as kept_versions

        tier = self.tier(scope)
        with self.app.store.lock(tier):
            kept = self.app.store.kept(tier)
        return [kept_versions.about(kept, v) for v in kept.versions(name)]

    def update(self, scope: str, name: str, form: dict[str, str]) -> list[Path]:
        kind = form.get("type") or None
        change = Revision(form.get("text"), form.get("description"), kind)
        return list(self.app.writer().update(self.tier(scope), name, change)[1].updated)

    def forget(self, scope: str, name: str) -> list[Path]:
        return list(self.app.writer().forget(self.tier(scope), name)[1].updated)

    def restore(self, scope: str, name: str, version: int | None) -> list[Path]:
        return list(self.app.writer().restore(self.tier(scope), name, version)[2].updated)

    def queue(self) -> list[Item]:
        from coffer.store.review import queue

        return queue(self.app.store, self.tiers())

    def resolve(self, item_id: str, action: str, merged: str | None) -> list[Path]:
        from coffer.projection.review import resolve

        for item in self.queue():
            if item.id == item_id:
                return resolve(self.app.writer(), item, action, merged)
        raise InvalidInputError("that review item is gone (resolved elsewhere?)")

    def agents(self) -> list[dict[str, Any]]:
        """Per agent, what it loads here at session start (`coffer explain --json`)."""
        from coffer.projection.agents import AgentSet
        from coffer.projection.explain import explain

        agents = AgentSet(self.app.store, self.app.environ, self.app.adapters())
        found: list[dict[str, Any]] = explain(agents, self.project).json()["agents"]
        return found

    def state(self) -> dict[str, Any]:
        """The watcher's status (with sync's last round) and the journal of coffer's edits."""
        from coffer.projection.journal import Journal
        from coffer.store.watch_state import read_status

        records = Journal(self.app.store.root).load_all()
        return {"watch": read_status(self.app.store.root), "journal": records}
