"""The canonical store: two tiers of entry files plus their ``MEMORY.md`` indexes.

Every front end (CLI, watcher, MCP server) goes through this module, so every write takes
the same per-tier lock, passes the same secret gate and regenerates the same index.
Layout (docs/adr/0002-store-layout-and-identity.md)::

    <root>/projects.json                   root path -> project id
    <root>/projects/<id>/memory/           entries + MEMORY.md, nothing else
    <root>/projects/<id>/project.json      root, name, remote, created_at
    <root>/projects/<id>/{.lock,cache.sqlite,index-state.json,trash/}
    <root>/projects/00000000000000000000000000/   the global tier, same shape
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

from coffer.base import fsutil, identity
from coffer.base.errors import EntryNotFoundError, InvalidInputError, LockTimeoutError
from coffer.store import freshness, pending, projects, recalls, settings, trash
from coffer.store.here import Here
from coffer.store.paths import home_dir, store_root
from coffer.store.tier import Found, Saved, Scope, Tier
from coffer.store.ulid import GLOBAL_ID

if TYPE_CHECKING:
    import sqlite3

    from coffer.base.report import Report
    from coffer.store.drafts import RememberFields, Revision
    from coffer.store.entry import Entry
    from coffer.store.history import History
    from coffer.store.index import RenderedIndex
    from coffer.store.search_cache import TierScan

# Entry parser, search cache (sqlite3), index, history: imported by the methods using them, so
# `coffer where` and the session-start hook's checks never pay for them (ADR 0023).

LOCK_TIMEOUT = 15.0
_README = """\
This directory is maintained by coffer (one memory store for every coding agent).

projects/<id>/memory/ holds one markdown file per memory entry plus a generated MEMORY.md.
projects/<id>/project.json says which project directory an id belongs to;
00000000000000000000000000 is the global tier. `coffer where` and `coffer adapter list`
show the same thing. Edit entries freely; coffer regenerates MEMORY.md from them.
"""


class Store:
    """The canonical store rooted at ``root``."""

    def __init__(self, root: Path, home: Path | None = None) -> None:
        self.root = root
        self.home = home if home is not None else Path.home()
        # time.monotonic() after which lock waits give up (a session-start hook's deadline)
        self.wait_until: float | None = None
        self.arrived: list[Report] = []  # entries sync kept waiting, taken by registrations
        # Who writes through this store, as provenance names it (docs/adr/0051): the CLI,
        # or the MCP server once its client said its name.
        self.writer = "cli"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Store:
        return cls(store_root(environ), home_dir(environ))

    # ---- tiers -------------------------------------------------------------------------

    def _ensure_root(self) -> None:
        fsutil.ensure_dir(self.root)
        readme = self.root / "README.md"
        if not readme.exists():
            fsutil.write_if_changed(readme, _README.encode())

    def global_tier(self, *, create: bool = False) -> Tier:
        base = self.root / "projects" / GLOBAL_ID
        if create:
            self._ensure_root()
            fsutil.ensure_dir(base / "memory")
        return Tier("global", projects.GLOBAL, base)

    def here(self, at: Here | Path) -> Here:
        """Resolve ``at`` once (a ``Here`` as is): its root, whether it is a project (ADR 0026)."""
        return at if isinstance(at, Here) else Here.resolve(at, self.home, self.invited)

    def invited(self, root: Path) -> bool:
        """A git root is a project; a directory outside git only once `coffer init` ran
        there, so an agent started in ~/Downloads leaves nothing behind."""
        if identity.in_git(root):
            return True
        return str(root) in settings.load(self.root).opted_in

    def project_tier(self, at: Here | Path, *, create: bool = False) -> Tier | None:
        """The project tier at ``at`` (None if never used); refuses a place that is no project."""
        return self.tier_at(self.here(at).require(), create=create)

    def tier_at(self, root: Path, *, create: bool = False) -> Tier | None:
        """The tier of the already resolved project root ``root`` (None if never used)."""
        project_id = projects.read_project_list(self.root).get(str(root))
        info = projects.load_info(self.root, project_id) if project_id else None
        if info is not None or not create:
            return Tier("project", info, self.root / "projects" / info.id) if info else None
        with self.store_lock():
            info, new = projects.registration(self.root, root)
        tier = Tier("project", info, self.root / "projects" / info.id)
        if new:  # what other machines synced for it, before anything renders it (ADR 0034)
            from coffer.store import waiting

            if (arrived := waiting.adopt(self.root, tier, self.lock)) is not None:
                self.arrived.append(arrived)
                self.regenerate_index(tier)
        return tier

    def tiers(self, at: Here | Path | None, scope: Scope | None) -> list[Tier]:
        """Tiers to read: one scope, or project then global when ``scope`` is None."""
        out: list[Tier] = []
        if scope in (None, "project"):
            if at is None:
                raise InvalidInputError("no project given")
            here = self.here(at)
            # Reading both tiers where there is no project reads the global one.
            root = here.require() if scope == "project" else here.project
            tier = self.tier_at(root) if root is not None else None
            if tier is not None:
                out.append(tier)
        if scope in (None, "global"):
            out.append(self.global_tier())
        return out

    def all_tiers(self) -> list[Tier]:
        tiers = [self.global_tier()]
        for info in projects.all_projects(self.root):
            tiers.append(Tier("project", info, self.root / "projects" / info.id))
        return tiers

    # ---- locking and cache -------------------------------------------------------------

    @contextlib.contextmanager
    def _lock(self, path: Path) -> Iterator[None]:
        from coffer.store import locking  # writers only

        wait = LOCK_TIMEOUT
        if self.wait_until is not None:
            wait = max(0.0, min(wait, self.wait_until - time.monotonic()))
        try:
            with locking.exclusive(path, wait):
                yield
        except locking.Busy as exc:
            raise LockTimeoutError(
                f"another coffer process has held {path} for {wait:.0f}s; try again"
            ) from exc

    def projection_lock(self) -> contextlib.AbstractContextManager[None]:
        """Serialises projection runs: two agents starting at once both run
        `coffer project`, and must not both merge and link the same directory."""
        self._ensure_root()
        fsutil.ensure_dir(self.root / "state")
        return self._lock(self.root / "state" / "projection.lock")

    def store_lock(self) -> contextlib.AbstractContextManager[None]:
        """The store-wide lock (the project registry)."""
        self._ensure_root()
        return self._lock(self.root / ".lock")

    def lock(self, tier: Tier) -> contextlib.AbstractContextManager[None]:
        """The per-tier write lock shared by every coffer process."""
        fsutil.ensure_dir(tier.base)
        return self._lock(tier.lock_file)

    @contextlib.contextmanager
    def _cache(self, tier: Tier) -> Iterator[sqlite3.Connection]:
        from coffer.store.cache_open import connected

        fsutil.ensure_dir(tier.base)
        with connected(tier.base / "cache.sqlite") as conn:
            yield conn

    # ---- reading -----------------------------------------------------------------------

    def scan(self, tier: Tier) -> TierScan:
        """Entries and problem files of ``tier`` (empty for a tier never written)."""
        from coffer.store import search_cache, tier_scan

        if not tier.dir.is_dir():
            return search_cache.TierScan((), ())
        with self._cache(tier) as conn:
            found = tier_scan.scan(conn, tier.dir)
        entries = recalls.with_counts(freshness.marked(found.entries, tier.root), tier)
        return found._replace(entries=entries)

    def shown(
        self, tier: Tier, *, with_pending: bool = False, found: TierScan | None = None
    ) -> TierScan:
        """What agents load of ``tier`` at session start: its entries, less the stale ones
        when the user chose to leave those to recall (docs/adr/0053), and less the pending
        ones unless ``with_pending`` (``MEMORY.md``, their writer's view; ADR 0054).
        ``found``: the tier's scan, when the caller has just read it."""
        found = self.scan(tier) if found is None else found
        entries = found.entries if with_pending else pending.for_others(found.entries)
        if any(e.stale for e in entries) and tier.key in settings.load(self.root).stale_recall:
            entries = tuple(e for e in entries if not e.stale)
        return found._replace(entries=entries)

    def entries(self, tier: Tier) -> list[Entry]:
        from coffer.store import index

        return sorted(self.scan(tier).entries, key=index.priority)

    def stale(self, tiers: Sequence[Tier]) -> list[Found]:
        """The entries of ``tiers`` whose anchors changed or whose review date passed."""
        return [Found(t, e) for t in tiers for e in self.scan(t).entries if e.stale]

    def choose(self, choice: settings.TierChoice, tier: Tier, on: bool) -> bool:
        """Turn a per-tier choice on or off for ``tier``; returns whether it changed."""
        with self.store_lock():
            return settings.choose(self.root, choice, tier.key, on)

    def find(self, tiers: Sequence[Tier], name: str) -> Found:
        """The entry named ``name`` (or stored in ``<name>.md``) in the first tier having it."""
        for tier in tiers:
            if (entry := self._named(tier, name)) is not None:
                return Found(tier, entry)
        where = " or ".join(t.label for t in tiers) or "no tier"
        from coffer.base.suggest import did_you_mean

        meant = did_you_mean(name, [e.name for tier in tiers for e in self.scan(tier).entries])
        raise EntryNotFoundError(f"no entry named {name!r} in {where}{meant}")

    def _named(self, tier: Tier, name: str) -> Entry | None:
        # One row of the cache, not the tier's 10,000 entries (`coffer show`).
        from coffer.store import search_cache

        if not tier.dir.is_dir():
            return None
        with self._cache(tier) as conn:
            found = search_cache.named(conn, tier.dir, name)
        return found and recalls.with_counts(freshness.marked((found,), tier.root), tier)[0]

    def recall(self, tiers: Sequence[Tier], query: str, limit: int = 10) -> list[Found]:
        """BM25-ranked entries across ``tiers``, best first."""
        if not query.strip():
            raise InvalidInputError("the query is empty")
        if limit < 1:
            raise InvalidInputError("--limit must be at least 1")
        from coffer.store.recall import recall

        return recall(tiers, query, limit, self.root, self.shown, self.lock)

    # ---- writing -----------------------------------------------------------------------

    def remember(self, tier: Tier, text: str, **fields: Unpack[RememberFields]) -> Saved:
        """Store ``text`` as an entry; refuses secrets, never silently overwrites. The
        keywords (name, description, type, options) are ``drafts.RememberFields``."""
        from coffer.store import drafts, provenance  # writers only: reads never pay for them

        asked = fields.get("name"), fields.get("description"), fields.get("type")
        d = drafts.draft(text, *asked, tier.scope)
        options = fields.get("options") or drafts.RememberOptions()
        anchors = [freshness.parse_anchor(a) for a in options.anchors]
        self._ensure_root()
        fsutil.ensure_dir(tier.dir)
        with self.lock(tier):
            kept = self.kept(tier)
            current = self.scan(tier).entries
            files = {e.filename for e in current} | set(os.listdir(tier.dir))
            entry, action = drafts.place(d, current, files, options, tier.label)
            if action == "unchanged":
                return Saved(tier, entry, action)
            meta = freshness.stamped(
                entry.metadata,
                tier.root,
                anchors=anchors,
                text=entry.body,
                review_after=options.review_after,
            )
            by = (options.extra or {}).get("origin") or self.writer
            meta = provenance.stamped(meta, action, by, self.root)
            if pending.by_agent(by) and pending.held(self.root, tier):
                meta = pending.marked(meta)  # waits for a person (docs/adr/0054)
            entry = entry._replace(metadata=meta)
            path = fsutil.safe_child(tier.dir, entry.filename)
            fsutil.atomic_write_text(path, drafts.file_text(entry))
            kept.wrote(entry.filename)
            self._regenerate(tier)
        return Saved(tier, entry, action)

    def update(self, tier: Tier, name: str, change: Revision) -> Saved:
        """Change an existing entry's body, description, type, anchors or review date, or
        mark it verified; keeps every other key."""
        from coffer.store import drafts, provenance
        from coffer.store.entry import check_type

        check_type(change.type)
        anchors = [freshness.parse_anchor(a) for a in change.anchors]
        if change.review_after is not None:
            freshness.review_date(change.review_after)  # refused before anything is read
        found = self.find_for_change(tier, name)

        body, desc = drafts.revised_text(found.entry, change.text, change.description)
        with self.lock(tier):
            kept = self.kept(tier)
            meta = dict(provenance.carried(found.entry, provenance.merged(tier.base)))
            if change.type:
                meta["type"] = change.type
            meta["updated_at"] = projects.now_iso()
            meta = freshness.stamped(
                meta,
                tier.root,
                anchors=anchors,
                text=body if change.text is not None else None,
                review_after=change.review_after,
                verified=change.verified,
            )
            meta = provenance.stamped(meta, "updated", self.writer, self.root)
            meta = pending.accepted(meta) if change.accepted else meta
            entry = found.entry._replace(body=body, description=desc, metadata=meta, stale="")
            text = drafts.file_text(entry)
            fsutil.atomic_write_text(fsutil.safe_child(tier.dir, entry.filename), text)
            kept.wrote(entry.filename)
            self._regenerate(tier)
        return Saved(tier, entry, "updated")

    def find_for_change(self, tier: Tier, name: str) -> Found:
        try:
            return self.find([tier], name)
        except EntryNotFoundError:
            other = self.global_tier() if tier.scope == "project" else None
            in_global = False
            if other is not None and other.dir.is_dir():
                with contextlib.suppress(EntryNotFoundError):
                    in_global = bool(self.find([other], name))
            if in_global:
                raise EntryNotFoundError(
                    f"no entry named {name!r} in {tier.label}; it is in the global tier "
                    "(add --scope global)"
                ) from None
            raise

    def forget(self, tier: Tier, name: str) -> Found:
        """Remove an entry; the file is moved to the tier's trash, not destroyed."""
        found = self.find_for_change(tier, name)
        with self.lock(tier):
            kept = self.kept(tier)
            trash.move(tier, found.entry.filename)
            kept.wrote(found.entry.filename)
            self._regenerate(tier)
        return found

    # ---- the index ---------------------------------------------------------------------

    def render_index(
        self, tier: Tier, found: TierScan | None = None
    ) -> tuple[RenderedIndex, bytes | None]:
        """What MEMORY.md should hold now, and what it holds (``found``: as in :meth:`shown`)."""
        from coffer.store import index_file

        return index_file.expected(tier, self.shown(tier, with_pending=True, found=found))

    def _regenerate(self, tier: Tier) -> bool:
        from coffer.store import index_file  # writers only

        return index_file.write_if_stale(tier, partial(self.shown, with_pending=True))

    def regenerate_index(self, tier: Tier) -> bool:
        """Rewrite MEMORY.md if it differs from what the entries give; return whether it did."""
        if not tier.dir.is_dir():
            return False
        with self.lock(tier):
            self.kept(tier)  # what changed since the last look keeps its version (ADR 0052)
            return self._regenerate(tier)

    def kept(self, tier: Tier) -> History:  # brought up to date, under the tier's lock
        from coffer.store.history import History

        return History(self.root, tier).checked()
