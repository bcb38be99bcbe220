"""Dispatches every enabled adapter's targets to their projection kind. Names no agent.

``project`` establishes, ``unproject`` undoes from the journal, ``refresh`` re-renders what
a store write changed, ``status`` audits. What each kind does is in coffer/projection/kinds.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import Target
from coffer.base.errors import CofferError, InvalidInputError, LockTimeoutError
from coffer.base.report import Problem, Report
from coffer.projection import kinds
from coffer.projection.agents import (
    NO_TARGETS,
    AgentSet,
    BlockPlan,
    HandoffSource,
    Reader,
    Targets,
    block_title,
)
from coffer.projection.hook import Deadline
from coffer.projection.run import Run, run_of
from coffer.store import projects, settings

if TYPE_CHECKING:
    from coffer.projection.status import AdapterStatus, Scans
    from coffer.store import Entry, Here, ProjectInfo, Store, Tier
    from coffer.store.agent_writes import Stamped
    from coffer.store.search_cache import TierScan

__all__ = ["BlockPlan", "Engine", "HandoffSource", "block_title"]


class _Options(NamedTuple):
    dry_run: bool
    replace_edited: bool
    resume: bool


class Engine(AgentSet):
    """The projection engine over one store."""

    # ---- project -----------------------------------------------------------------------

    def project(
        self,
        at: Here | Path,
        *,
        dry_run: bool = False,
        replace_edited: bool = False,
        resume: bool = False,
        deadline: Deadline | None = None,
    ) -> Report:
        """Establish every enabled adapter's projection for the project and global tier.

        With ``deadline`` (a session-start hook), lock waits end at it and the run stops
        at the next safe point after it, raising :class:`coffer.projection.hook.GaveUp`.
        """
        self.deadline = deadline
        if deadline is not None:
            self.store.wait_until = deadline.at
        options = _Options(dry_run, replace_edited, resume)
        here = self.store.here(at)  # resolved once, by the front end when it passed a Here
        if dry_run:
            return self._project(here, options)
        try:
            with self.store.projection_lock():
                # Re-read the choices the previous holder of the lock may have changed.
                self.settings = settings.load(self.store.root)
                self.journal.sync_ledger()  # undo must survive a store deleted by hand
                self.journal.sweep_tmp()
                return _settled(self._project(here, options))
        except LockTimeoutError as exc:
            if deadline is None:
                raise
            raise deadline.gave_up("another coffer process holds the store") from exc

    def _root(self, here: Here, options: _Options, report: Report) -> tuple[Path | None, bool]:
        """The project root ``here`` (None: the global tier only), and whether to go on."""
        root = here.project
        if root is None:
            # Agents start in the home directory and in scratch directories too: project
            # the global tier only and write nothing there, so a session-start hook
            # succeeds quietly instead of failing or littering (docs/adr/0015).
            why = (
                "" if here.nowhere else " (not in a git repository: `coffer init` there invites it)"
            )
            report.notices.append(
                f"{here.path} is not inside a project: only the global memory was projected{why}"
            )
        elif str(root) in self.settings.paused:
            if not options.resume:
                report.notices.append(
                    f"coffer is paused for {root} (`coffer unproject`); "
                    "`coffer project --resume` projects it again"
                )
                return root, False
            if not options.dry_run:
                self.settings.paused.remove(str(root))
                settings.save(self.store.root, self.settings)
        return root, True

    def _project(self, here: Here, options: _Options) -> Report:
        report = Report()
        # What an earlier run read is no answer now, for any project: a long-lived engine
        # (the watcher, the MCP server, the page) keeps one run's entries, never every
        # project's it has projected.
        self.scanned.clear()
        root, go_on = self._root(here, options, report)
        if not go_on:
            return report
        ctx = self.context(root)
        adapters = self.enabled(ctx, report)
        self.projected[root] = {}
        for err in self.loaded.errors:
            report.problems.append(Problem(Path("adapters"), "error", err))
        if not adapters:
            report.notices.append(
                "no agent detected and no adapter enabled; see "
                "`coffer adapter list` and `coffer adapter enable NAME`"
            )
            return report
        create = not options.dry_run
        ptier = self.store.tier_at(root, create=create) if root else None
        while self.store.arrived:  # entries synced for a project registered just now
            report.extend(self.store.arrived.pop(0))
        if ptier is not None and ptier.info.moved_from and create:
            from coffer.projection.journal import moves  # a moved project only

            report.extend(moves.relocate(self.journal, ptier.info))
        tiers = {"project": ptier, "global": self.store.global_tier(create=create)}
        dry, replace = options.dry_run, options.replace_edited
        run = run_of(self, ctx, tiers, dry_run=dry, replace_edited=replace)
        for name, adapter in adapters.items():
            native = self.call_adapter(name, report, partial(adapter.native_memory, ctx), None)
            if native is not None:
                report.extend(kinds.NATIVES.establish(run, (name, native)))
        planned = {  # asked once: the no-op stamp signs these too (stamp.record)
            name: self.call_adapter(name, report, partial(adapter.targets, ctx), NO_TARGETS)
            for name, adapter in adapters.items()
        }
        self.projected[root] = planned
        targets = self.targets(ctx, report, adapters, planned)
        if root is not None:
            _in_worktree(targets, root, here.path)
            from coffer.projection.git import hiding

            report.extend(hiding.hide_vault(self.journal, root, dry_run=options.dry_run))
        if root is not None and ptier is not None:
            from coffer.projection.team import block  # docs/adr/0036; before the blocks

            project, features_of = (root, ptier.info.id), self.loaded.features
            report.extend(block.establish(run, project, targets, adapters.keys(), features_of))
        self._establish(run, targets, report)
        return report

    def _establish(self, run: Run, targets: Targets, report: Report) -> None:
        """The links, then the index they expose, then the blocks (one per file)."""

        def wanted(tier: str) -> bool:
            # A project coffer has never seen has no tier: only a dry run shows it.
            return run.tiers.get(tier) is not None or run.dry_run

        incoming: dict[str, list[Entry]] = {k: [] for k in run.tiers}
        read: dict[str, TierScan | None] = {}  # a stamp's scan, when it stamped nothing
        if run.dry_run:
            run = run._replace(incoming=incoming)
        for unit in targets.links:
            if wanted(unit[1].tier):
                report.extend(kinds.LINKS.establish(run, unit))
        if not run.dry_run:
            # After the links: a merge adds entries (and hand lines) that the index Claude
            # loads must list at once; the next run may well be the no-op fast path.
            for key, tier in run.tiers.items():
                if tier is not None:
                    with self.step():
                        _, read[key] = _stamp_agents(self.store, tier, key, targets)
                        self.store.regenerate_index(tier)
        # Scanned outside any step (a cold scan of a large tier is slow, and safe to cut),
        # after the stamps: an agent's entry held as pending stays out of the blocks. Kept
        # for the no-op stamp (stamp.record), which signs what the tiers were read as.
        scans = {k: read.get(k) or self.store.scan(t) for k, t in run.tiers.items() if t}
        self.scanned[run.ctx.project] = [
            (t, scans[k].entries) for k, t in run.tiers.items() if t is not None
        ]
        entries = {
            k: self.block_entries(t, scans.get(k)) + incoming[k] for k, t in run.tiers.items()
        }
        run = run._replace(entries=entries)
        for file, items in sorted(targets.blocks.items()):
            readers = [(n, t) for n, t in items if wanted(t.tier)]
            if readers:
                with self.step():
                    block = (file, self.block_plan(run.ctx, readers, run.tiers))
                    establish = partial(kinds.BLOCKS.establish, run, block)
                    report.extend(kinds.guarded(file, establish))

    # ---- refresh (the watcher's path) ------------------------------------------------

    def projected_projects(self) -> list[ProjectInfo]:
        """Registered projects that have at least one projection on this machine."""
        from coffer.projection.blocks import waiting

        ids = {r.project_id for r in self.journal.load_all()}
        # A project whose only block waits for its first entry is projected too: the
        # watcher must see that entry arrive (docs/adr/0045).
        ids |= {w.get("project_id") for w in waiting.load(self.store.root).values()}
        return [p for p in projects.all_projects(self.store.root) if p.id in ids]

    def refresh(self, scope: str, root: Path | None, *, indexed: bool = False) -> Report:
        """After a change in one tier: regenerate its index and re-render the blocks that
        show it (for ``root``'s project, or the global files). Never links, imports or
        disables anything, and never overwrites a hand edit: that is `coffer project`'s job.
        ``indexed``: the caller's write regenerated the index under the tier's lock, so it
        is regenerated again only when an agent's file was stamped since.
        """
        with self.store.projection_lock():
            self.journal.sweep_tmp()
            return self._refresh(scope, root, indexed)

    def _refreshed_tier(self, scope: str, root: Path | None, report: Report) -> Tier | None:
        """The tier a refresh of ``scope`` re-renders, or None when there is nothing to do."""
        if scope != "project":
            return self.store.global_tier()
        if root is None:
            raise InvalidInputError("refreshing a project tier needs its root")
        if not root.is_dir():
            why = "project root no longer exists (moved or deleted); skipped"
            report.problems.append(Problem(root, "missing", why))
            return None
        if not self.store.invited(root):
            return None  # a directory outside git projected before `coffer init` existed
        tier = self.store.tier_at(root)
        if tier is None or str(root) in self.settings.paused:
            return None
        return tier

    def _refresh(self, scope: str, root: Path | None, indexed: bool = False) -> Report:
        report = Report()
        tier = self._refreshed_tier(scope, root, report)
        if tier is None:
            return report
        ctx = self.context(root if scope == "project" else None)
        targets = self.targets(ctx, report, self.enabled(ctx, report))
        # An agent's file stamped since the caller's write changes what the index shows.
        stamped, found = _stamp_agents(self.store, tier, scope, targets)
        if stamped or not indexed:
            self.store.regenerate_index(tier)
        if root is not None and scope == "project":
            _all_twins(targets, root)
        run = run_of(self, ctx, {scope: tier}, {scope: self.block_entries(tier, found)})

        from coffer.projection.blocks import waiting

        def journaled(target: Target) -> bool:
            # Only what `coffer project` established (and journaled) is refreshed: a
            # write must never start projecting a project or a file nobody projected.
            return target.tier == scope and self.journal.get(target.path) is not None

        def unwritten(target: Target) -> bool:
            # ...or a block `coffer project` left unwritten while the tier was empty: the
            # tier's first entry writes it (docs/adr/0045).
            return target.tier == scope and waiting.waits(
                self.store.root, target.path, scope, tier.info.id
            )

        for unit in targets.links:
            if journaled(unit[1]):
                state, detail = kinds.LINKS.state(run, unit)
                if state != "ok":
                    report.problems.append(Problem(unit[1].path, state, detail))
        for file, items in sorted(targets.blocks.items()):
            readers = [(n, t) for n, t in items if journaled(t)]
            if readers:
                report.extend(self._refresh_block(run, file, readers))
            elif new := [(n, t) for n, t in items if unwritten(t)]:  # written if not empty
                report.extend(self._refresh_block(run, file, new, waiting=True))
        return report

    def _refresh_block(
        self, run: Run, file: Path, readers: list[Reader], *, waiting: bool = False
    ) -> Report:
        from coffer.projection.blocks import render

        report = Report()
        state, _ = render.state(file, None)
        if state == "missing" and not waiting:  # journaled: coffer wrote it, someone removed it
            why = (
                "the coffer block was removed; `coffer project` puts it back, "
                "`coffer unproject` forgets it"
            )
            report.problems.append(Problem(file, "drifted", why))
            return report  # adding a block is `coffer project`'s call, not the watcher's
        # One unwritable or vanished file is reported and the other files still get
        # their refresh (coffer watch must survive it; added for the watcher).
        try:
            unit = (file, self.block_plan(run.ctx, readers, run.tiers))
            report.extend(kinds.BLOCKS.establish(run, unit))
        except (OSError, CofferError) as exc:
            report.problems.append(Problem(file, "error", f"cannot update it: {exc}"))
        return report

    # ---- unproject ---------------------------------------------------------------------

    def unproject(
        self,
        at: Here | Path | None,
        *,
        agents: Iterable[str] = (),
        global_: bool = False,
        all_: bool = False,
        dry_run: bool = False,
        force: bool = False,
    ) -> Report:
        """Undo exactly what the journal records. Refused paths stay in the journal."""
        from coffer.projection import unproject  # with the orphan sweep and git's files

        choice = unproject.Choice(set(agents), global_, all_, dry_run, force)
        here = self.store.here(at) if at is not None else None
        if dry_run:
            return unproject.run(self, here, choice)
        with self.store.projection_lock():
            self.journal.sweep_tmp()
            return _settled(unproject.run(self, here, choice))

    def undo_record(self, key: str, *, dry_run: bool = False) -> Report:
        """Undo the one journal record ``key`` (the page's per-record Undo): exactly what
        `coffer unproject` would do for it, and only it."""
        from coffer.projection import unproject

        if dry_run:
            return unproject.one(self, key, dry_run=True)
        with self.store.projection_lock():
            self.journal.sweep_tmp()
            return _settled(unproject.one(self, key))

    # ---- status ------------------------------------------------------------------------

    def status(
        self, at: Here | Path | None, *, every: bool = True, scans: Scans | None = None
    ) -> tuple[list[AdapterStatus], list[str]]:
        """Per adapter: presence, modes, targets with their state, native memory state;
        without ``every``, agents neither installed nor enabled are only named."""
        from coffer.projection.status import status

        here = self.store.here(at) if at is not None else None
        return status(self, here, every=every, scans=scans)


def _settled(report: Report) -> Report:
    """``report``, with git's index told about the tracked files it rewrote unchanged."""
    if report.changes or report.problems:
        from coffer.projection.git import hiding  # only a run that wrote starts git

        hiding.settle(report)
    return report


def _in_worktree(targets: Targets, root: Path, at: Path) -> None:
    """Run from a linked worktree of ``root``: the files an agent reads at the project
    root are read at the worktree's top there, so each such block target gets its twin in
    the worktree (kept out of git the same way: info/ is shared by the worktrees)."""
    from coffer.base.identity import linked_worktree_of

    top = linked_worktree_of(str(at))
    if top is not None:
        _twins(targets, root, Path(top))


def _all_twins(targets: Targets, root: Path) -> None:
    """Every linked worktree of ``root`` gets its twin of each block target in it."""
    from coffer.base.identity import linked_worktrees

    for top in linked_worktrees(str(root)):
        _twins(targets, root, Path(top))


def _twins(targets: Targets, root: Path, worktree: Path) -> None:
    for file, readers in list(targets.blocks.items()):
        if root not in file.parents:
            continue
        twin = worktree / file.relative_to(root)
        targets.blocks[twin] += [(n, t._replace(path=twin)) for n, t in readers]


def _stamp_agents(store: Store, tier: Tier, key: str, targets: Targets) -> Stamped:
    """Give what an agent wrote into its linked folder (this tier) its provenance: the
    adapters whose link points here name the writer (docs/adr/0051). As stamp_linked."""
    from coffer.projection.symlink.state import points_to
    from coffer.store import agent_writes

    # only links in place now: a refused or undone link lets no agent write here
    agents = [n for n, t in targets.links if t.tier == key and points_to(t.path, tier.dir)]
    return agent_writes.stamp_linked(store, tier, agents)
