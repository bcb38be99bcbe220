"""What the page reads and writes, through the core objects the CLI uses: the store and
its tiers, the :class:`~coffer.projection.writes.Writer` (secret gate, refresh of every
projection), the review resolver, the explain facts and the journal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from coffer.base.errors import CofferError, InvalidInputError
from coffer.store import Revision
from coffer.store.tier import Found, Tier

if TYPE_CHECKING:
    from coffer.app import App
    from coffer.base.report import Report
    from coffer.store.entry import Entry
    from coffer.store.review import Item
    from coffer.store.team import TeamScan
    from coffer.sync.control import Status

PAGE = 100  # rows of the Memory view per page: 10,000 rows would be a page nobody reads


class Site:
    """One project's memory as the page shows it."""

    def __init__(self, app: App, project: Path) -> None:
        self.app = app
        self.project = project
        app.store.writer = "ui"  # what the page writes says so (docs/adr/0051's vocabulary)

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

    def team(self) -> TeamScan | None:
        """The project's team tier (docs/adr/0036), or None where it has none."""
        from coffer.store import team

        root = self.app.here(self.project).project
        return team.scan(root) if root is not None else None

    def team_entries(self, query: str) -> list[Entry]:
        """The team tier's entries, or its hits of ``query`` as `coffer recall` ranks them;
        each judged fresh or stale as a personal entry is (its anchors are the repository's)."""
        from coffer.store import freshness, team_search

        scan = self.team()
        if scan is None:
            return []
        root = self.app.here(self.project).require()
        found = list(scan.entries)
        if query.strip():
            found = [h.entry for h in team_search.recall(self.app.store, root, query, 50)]
        return list(freshness.marked(found, root))

    def team_entry(self, name: str) -> tuple[TeamScan, Entry] | None:
        """The team tier and its entry ``name``, judged fresh or stale (None: no such)."""
        from coffer.store import freshness, team

        scan = self.team()
        found = team.find(scan, name) if scan is not None else None
        if scan is None or found is None:
            return None
        root = self.app.here(self.project).require()
        return scan, freshness.marked([found], root)[0]

    def team_remove(self, name: str) -> list[Path]:
        """`coffer team remove`: the file goes, then the projections show the team without it.
        The only team edit the CLI offers (the text is the team's, reviewed in git)."""
        from coffer.store import team_write

        return self._team_projected(team_write.remove(self.app.here(self.project).require(), name))

    def team_add(self, scope: str, name: str) -> list[Path]:
        """`coffer team add`: a personal entry promoted into the team tier (the secret gate,
        the name clash and the pending check are team_write's, as for the CLI)."""
        from coffer.store import team_write

        root = self.app.here(self.project).require()
        return self._team_projected(team_write.add(root, self.found(scope, name).entry))

    def _team_projected(self, changed: Path) -> list[Path]:
        # As the CLI does after a team change: `coffer project`, so the team block shows it.
        report = self.app.engine().project(self.project)
        return [changed, *dict.fromkeys(c.path for c in report.changes)]

    def found(self, scope: str, name: str) -> Found:
        return self.app.store.find([self.tier(scope)], name)

    def history(self, scope: str, name: str) -> list[dict[str, Any]]:
        from coffer.store import history as kept_versions

        tier = self.tier(scope)
        with self.app.store.lock(tier):
            kept = self.app.store.kept(tier)
        return [kept_versions.about(kept, v) for v in kept.versions(name)]

    def provenance(self, found: Found) -> str:
        """Where the entry came from and who changed it last, as `coffer recall` says it."""
        from coffer.store import provenance

        return provenance.line(found.entry, provenance.merged(found.tier.base))

    def update(self, scope: str, name: str, form: dict[str, str]) -> list[Path] | None:
        """The entry page's Save (or Verify) as `coffer update` does it, through the same
        :class:`Revision`: only what the form changes (a part left as it was is not passed,
        so a description derived from the text stays derived), anchors added, a review date
        set, the entry verified. None when the form changes nothing."""
        old = self.found(scope, name).entry
        text, description = form.get("text"), form.get("description")
        kind = form.get("type") or None
        anchors = form.get("anchors", "").replace(",", " ").split()  # PATH[#SYMBOL] each
        change = Revision(
            text if text is not None and text.strip() != old.body.strip() else None,
            description if description and description.strip() != old.description else None,
            kind if kind != old.type else None,
            tuple(anchors),
            form.get("review_after", "").strip() or None,
            verified=form.get("verified") == "1",
        )
        if change.empty:
            return None
        return list(self.app.writer().update(self.tier(scope), name, change)[1].updated)

    def forget(self, scope: str, name: str) -> list[Path]:
        return list(self.app.writer().forget(self.tier(scope), name)[1].updated)

    def restore(self, scope: str, name: str, version: int | None) -> list[Path]:
        return list(self.app.writer().restore(self.tier(scope), name, version)[2].updated)

    def queue(self) -> list[Item]:
        from coffer.store.review import queue

        return queue(self.app.store, self.tiers())

    def resolve(self, item_id: str, action: str, merged: str | None = None,
                description: str | None = None) -> list[Path]:  # fmt: skip
        """A review choice, as `coffer review` makes it; ``merged`` is the edited text of a
        merge (without frontmatter: the page shows the text only), ``description`` its
        one-line description."""
        from coffer.projection.review import merged_file, resolve

        for item in self.queue():
            if item.id == item_id:
                whole = merged_file(item, merged, description) if merged is not None else None
                return resolve(self.app.writer(), item, action, whole)
        raise InvalidInputError("that review item is gone (resolved elsewhere?)")

    def agents(self) -> dict[str, Any]:
        """Per agent, what it loads here at session start: `coffer explain --json`."""
        from coffer.projection.agents import AgentSet
        from coffer.projection.explain import explain

        agents = AgentSet(self.app.store, self.app.environ, self.app.adapters())
        return explain(agents, self.project).json()

    def state(self) -> dict[str, Any]:
        """The watcher's status (with sync's last round) and the journal of coffer's edits."""
        from coffer.projection.journal import Journal
        from coffer.store.watch_state import read_status

        records = Journal(self.app.store.root).load_all()
        watch = read_status(self.app.store.root)
        return {"watch": watch, "sync": self.sync(), "journal": records}

    def undo(self, key: str) -> Report:
        """Undo exactly the journal record ``key``: a setup edit as `coffer setup --undo`
        reverses it, a projection as `coffer unproject` does, and nothing else."""
        from coffer.projection.journal import Journal, parse

        journal = Journal(self.app.store.root)
        raw = journal.get(key)
        if raw is None:
            raise InvalidInputError("that journal record is gone (undone elsewhere?)")
        if parse(raw).kind == "setup":
            from coffer.setup import unwiring

            journal.sweep_tmp()
            return unwiring.undo_one(journal, key)
        return self.app.engine().undo_record(key)

    def sync(self) -> Status | str:
        """`coffer sync status`: the last round, what it moved, the conflict copies waiting;
        or why there is none (not set up, or the sync repository cannot be read)."""
        from coffer.sync import api, control

        if not api.configured(self.app):
            return "not set up (`coffer sync init REMOTE` starts it)"
        try:
            return control.status(self.app)
        except CofferError as exc:
            return f"cannot be read: {exc}"
