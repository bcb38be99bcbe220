"""Dispatches every enabled adapter's targets on their mode. Names no agent.

``project`` establishes, ``unproject`` undoes from the journal, ``status`` audits.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from coffer import fsutil, registry
from coffer.adapter import Adapter, Context, Mode, NativeMemory, Target
from coffer.errors import (
    CofferError,
    InvalidInputError,
    JournalError,
    LockTimeoutError,
    UnknownNameError,
)
from coffer.projection import block_content as render
from coffer.projection import gitside, moves, orphans, render_targets
from coffer.projection import native_memory as native
from coffer.projection import symlink_targets as links
from coffer.projection.hook import Deadline
from coffer.projection.journal import Damage, Journal, Record
from coffer.report import Change, Problem, Report
from coffer.store import projects, settings
from coffer.store.entry import Entry
from coffer.store.here import Here
from coffer.store.identity import root_of
from coffer.store.paths import home_dir, ledger_dir
from coffer.store.projects import ProjectInfo
from coffer.store.store import Store, Tier

if TYPE_CHECKING:
    from coffer.projection.status import AdapterStatus

T = TypeVar("T")
NO_TARGETS: Sequence[Target] = ()
HandoffSource = Callable[[Context, Sequence[str]], Sequence[render.Handoff]]


class BlockPlan(NamedTuple):
    tier_name: str
    tier: Tier | None
    title: str
    budget: int | None
    handoffs: Sequence[render.Handoff]
    agents: list[str]


def block_title(tier: Tier) -> str:
    if tier.scope == "global":
        return "Coffer memory: global (all projects)"
    return f"Coffer memory: project {tier.info.name}"


class Engine:
    """The projection engine over one store."""

    def __init__(
        self,
        store: Store,
        environ: Mapping[str, str],
        loaded: registry.Loaded | None = None,
        handoffs: HandoffSource | None = None,
    ) -> None:
        self.store = store
        self.environ = environ
        self.loaded = loaded if loaded is not None else registry.load_adapters()
        self.settings = settings.load(store.root)
        self.journal = Journal(store.root, ledger_dir(environ, store.root))
        self.handoffs = handoffs
        self.deadline: Deadline | None = None

    # ---- helpers -----------------------------------------------------------------------

    def context(self, project: Path | None) -> Context:
        return Context(home_dir(self.environ), self.environ, self.store.root, project)

    def call_adapter(self, name: str, report: Report, fn: Callable[[], T], default: T) -> T:
        # A third-party adapter's bug is reported against that adapter and skipped.
        try:
            return fn()
        except LockTimeoutError:
            raise  # another coffer process, not the adapter: the whole run waits or gives up
        except JournalError as exc:
            report.problems.append(Problem(Path(name), "damaged", str(exc)))
            return default
        except Exception as exc:
            report.problems.append(
                Problem(Path(name), "error", f"adapter {name} failed: {type(exc).__name__}: {exc}")
            )
            return default

    def enabled(self, ctx: Context, report: Report) -> dict[str, Adapter]:
        out = {}
        for name, adapter in self.loaded.adapters.items():
            present = self.call_adapter(name, report, partial(adapter.detect, ctx), False)
            if self.settings.enabled(name, present):
                out[name] = adapter
        return out

    def _step(self) -> contextlib.AbstractContextManager[None]:
        """One change outside the store; a hook run past its deadline stops before it."""
        return self.deadline.step() if self.deadline is not None else contextlib.nullcontext()

    def _entries(self, tier: Tier | None) -> list[Entry]:
        return list(self.store.scan(tier).entries) if tier is not None else []

    def harnesses(self, agents: Sequence[str]) -> list[str]:
        """The vault harness slugs that address ``agents``: an adapter's optional
        ``HARNESSES`` (e.g. ``claude`` and ``claude-code``), else its own name."""
        out: list[str] = []
        for agent in agents:
            out += self.loaded.features(agent).harnesses or [agent]
        return out

    def handoffs_for(self, ctx: Context, agents: Sequence[str]) -> Sequence[render.Handoff]:
        """Active vault handoffs addressed to any of ``agents`` in ``ctx.project``."""
        if self.handoffs is None or ctx.project is None:
            return ()
        try:
            return self.handoffs(ctx, self.harnesses(agents))
        except Exception:
            return ()  # handoffs are a courtesy; never block the projection on them

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
        here = self.store.here(at)  # resolved once, by the front end when it passed a Here
        if dry_run:
            return self._project(here, dry_run=True, replace_edited=replace_edited, resume=resume)
        try:
            with self.store.projection_lock():
                # Re-read the choices the previous holder of the lock may have changed.
                self.settings = settings.load(self.store.root)
                self.journal.sync_ledger()  # undo must survive a store deleted by hand
                self.journal.sweep_tmp()
                return self._project(
                    here, dry_run=False, replace_edited=replace_edited, resume=resume
                )
        except LockTimeoutError as exc:
            if deadline is None:
                raise
            raise deadline.gave_up("another coffer process holds the store") from exc

    def _project(self, here: Here, *, dry_run: bool, replace_edited: bool, resume: bool) -> Report:
        report = Report()
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
            if not resume:
                report.notices.append(
                    f"coffer is paused for {root} (`coffer unproject`); "
                    "`coffer project --resume` projects it again"
                )
                return report
            if not dry_run:
                self.settings.paused.remove(str(root))
                settings.save(self.store.root, self.settings)
        ctx = self.context(root)
        adapters = self.enabled(ctx, report)
        for err in self.loaded.errors:
            report.problems.append(Problem(Path("adapters"), "error", err))
        if not adapters:
            report.notices.append(
                "no agent detected and no adapter enabled; see "
                "`coffer adapter list` and `coffer adapter enable NAME`"
            )
            return report
        ptier = self.store.tier_at(root, create=not dry_run) if root else None
        if ptier is not None and ptier.info.moved_from and not dry_run:
            report.extend(moves.relocate(self.journal, ptier.info))
        gtier = self.store.global_tier(create=not dry_run)
        for name, adapter in adapters.items():
            nm = self.call_adapter(name, report, partial(adapter.native_memory, ctx), None)
            if nm is not None:
                establish = partial(
                    native.establish, self.journal, self.store, gtier, name, nm, dry_run=dry_run
                )
                with self._step():
                    report.extend(self.call_adapter(name, report, establish, Report()))
        tiers: dict[str, Tier | None] = {"project": ptier, "global": gtier}
        groups: dict[Path, list[tuple[str, Target]]] = defaultdict(list)
        for name, adapter in adapters.items():
            for target in self.call_adapter(
                name, report, partial(adapter.targets, ctx), NO_TARGETS
            ):
                tier = tiers.get(target.tier)
                if target.mode is Mode.NONE or (tier is None and not dry_run):
                    continue
                if target.mode is Mode.SYMLINK:
                    if tier is None:  # dry run of a project coffer has never seen
                        merge = links.preview(self.journal, target.path)
                        report.changes += [merge] if merge is not None else []
                        report.changes.append(
                            Change(
                                target.path,
                                "link",
                                "-> this project's new store (created on a real run)",
                            )
                        )
                        continue
                    taken = [e.name for e in self._entries(tier)]
                    with self._step():
                        report.extend(
                            self._guarded(
                                target.path,
                                partial(
                                    links.establish,
                                    self.journal,
                                    target.path,
                                    tier.dir,
                                    taken,
                                    name,
                                    target.tier,
                                    tier.info.id,
                                    dry_run=dry_run,
                                ),
                            )
                        )
                    if target.note:
                        report.notices.append(f"{name}: {target.note}")
                elif target.mode is Mode.RENDER:
                    groups[target.path].append((name, target))
        # Scanned outside any step (a cold scan of a large tier is slow, and safe to cut).
        entries = {k: self._entries(t) for k, t in tiers.items()}
        if not dry_run:
            # After the links: a merge adds entries (and hand lines) that the index Claude
            # loads must list at once; the next run may well be the no-op fast path.
            for tier in (ptier, gtier):
                if tier is not None:
                    with self._step():
                        self.store.regenerate_index(tier)
        for file, items in sorted(groups.items()):
            with self._step():
                render_one = partial(
                    self._render, ctx, file, items, tiers, entries, dry_run, replace_edited
                )
                report.extend(self._guarded(file, render_one))
        return report

    @staticmethod
    def _guarded(path: Path, fn: Callable[[], Report]) -> Report:
        """``fn()``; a damaged journal record leaves only its own path alone."""
        try:
            return fn()
        except JournalError as exc:
            report = Report()
            report.problems.append(Problem(path, "damaged", str(exc)))
            return report

    def block_plan(
        self, ctx: Context, items: Sequence[tuple[str, Target]], tiers: Mapping[str, Tier | None]
    ) -> BlockPlan | str:
        """How the one block of a file read by ``items`` is rendered, or why it cannot be.

        Shared by ``project`` and ``status`` so an audit judges a block exactly as it is
        written: every reader's handoffs, the smallest budget among them.
        """
        tier_names = {t.tier for _, t in items}
        if len(tier_names) > 1:
            return (
                f"adapters disagree on which tier this file shows ({', '.join(sorted(tier_names))})"
            )
        tier_name = items[0][1].tier
        tier = tiers[tier_name]
        budgets = [t.max_bytes for _, t in items if t.max_bytes is not None]
        agents = [n for n, _ in items]
        name = tier.info.name if tier else (ctx.project.name if ctx.project else "")
        title = block_title(tier) if tier else f"Coffer memory: project {name}"
        handoffs = self.handoffs_for(ctx, agents) if tier_name == "project" else ()
        return BlockPlan(
            tier_name, tier, title, min(budgets) if budgets else None, handoffs, agents
        )

    def _render(
        self,
        ctx: Context,
        file: Path,
        items: list[tuple[str, Target]],
        tiers: Mapping[str, Tier | None],
        entries: Mapping[str, list[Entry]],
        dry_run: bool,
        replace_edited: bool,
    ) -> Report:
        plan = self.block_plan(ctx, items, tiers)
        if isinstance(plan, str):
            r = Report()
            r.problems.append(Problem(file, "error", plan))
            return r
        report = render_targets.establish(
            self.journal,
            file,
            plan.agents,
            plan.tier_name,
            plan.tier.info.id if plan.tier else None,
            plan.title,
            entries[plan.tier_name],
            plan.budget,
            plan.handoffs,
            dry_run=dry_run,
            replace_edited=replace_edited,
        )
        record = self.journal.get(file)
        wrote = any(c.path == file for c in report.changes)
        if record is None and dry_run and wrote:
            # A first run's dry run: show what hiding the new block from git would change.
            record = {"path": str(file), "created_file": not file.exists()}
        if record is not None and not report.problems:
            report.extend(
                gitside.sync(
                    self.journal, record, wrote=wrote, commit=self.commits(file), dry_run=dry_run
                )
            )
        return report

    def commits(self, file: Path) -> bool:
        """Whether git may see the block in ``file``: the project holding it chose so."""
        return root_of(str(file.parent)) in self.settings.git_commit

    # ---- refresh (the watcher's path) ------------------------------------------------

    def projected_projects(self) -> list[ProjectInfo]:
        """Registered projects that have at least one projection on this machine."""
        ids = {r.get("project_id") for r in self.journal.records()}
        return [p for p in projects.all_projects(self.store.root) if p.id in ids]

    def refresh(self, scope: str, root: Path | None) -> Report:
        """After a change in one tier: regenerate its index and re-render the blocks that
        show it (for ``root``'s project, or the global files). Never links, imports or
        disables anything, and never overwrites a hand edit: that is `coffer project`'s job.
        """
        with self.store.projection_lock():
            self.journal.sweep_tmp()
            return self._refresh(scope, root)

    def _refresh(self, scope: str, root: Path | None) -> Report:
        report = Report()
        if scope == "project":
            if root is None:
                raise InvalidInputError("refreshing a project tier needs its root")
            if not root.is_dir():
                report.problems.append(
                    Problem(
                        root, "missing", "project root no longer exists (moved or deleted); skipped"
                    )
                )
                return report
            if not self.store.invited(root):
                return report  # a directory outside git projected before `coffer init` existed
            tier = self.store.tier_at(root)
            if tier is None or str(root) in self.settings.paused:
                return report
        else:
            tier = self.store.global_tier()
        ctx = self.context(root if scope == "project" else None)
        self.store.regenerate_index(tier)
        groups: dict[Path, list[tuple[str, Target]]] = defaultdict(list)
        for name, adapter in self.enabled(ctx, report).items():
            for target in self.call_adapter(
                name, report, partial(adapter.targets, ctx), NO_TARGETS
            ):
                if target.tier != scope:
                    continue
                # Only what `coffer project` established (and journaled) is refreshed: a
                # write must never start projecting a project or a file nobody projected.
                if self.journal.get(target.path) is None:
                    continue
                if target.mode is Mode.RENDER:
                    groups[target.path].append((name, target))
                elif target.mode is Mode.SYMLINK:
                    state, detail = links.state(target.path, tier.dir)
                    if state != "ok":
                        report.problems.append(Problem(target.path, state, detail))
        tiers: dict[str, Tier | None] = {scope: tier}
        entries = {scope: self._entries(tier)}
        for file, items in sorted(groups.items()):
            state, detail = render_targets.state(file, None)
            if state == "missing":  # journaled, so coffer wrote it and someone removed it
                report.problems.append(
                    Problem(
                        file,
                        "drifted",
                        "the coffer block was removed; `coffer project` puts "
                        "it back, `coffer unproject` forgets it",
                    )
                )
                continue  # adding a block is `coffer project`'s call, not the watcher's
            # One unwritable or vanished file is reported and the other files still get
            # their refresh (coffer watch must survive it; added for the watcher).
            try:
                report.extend(self._render(ctx, file, items, tiers, entries, False, False))
            except (OSError, CofferError) as exc:
                report.problems.append(Problem(file, "error", f"cannot update it: {exc}"))
        return report

    # ---- unproject ---------------------------------------------------------------------

    def _native_for(self, record: Record) -> NativeMemory | None:
        adapter = self.loaded.adapters.get(record["adapters"][0])
        if adapter is None:
            return None
        return adapter.native_memory(self.context(None))

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
        here = self.store.here(at) if at is not None else None
        if dry_run:
            return self._unproject(
                here, agents=agents, global_=global_, all_=all_, dry_run=True, force=force
            )
        with self.store.projection_lock():
            self.journal.sweep_tmp()
            return self._unproject(
                here, agents=agents, global_=global_, all_=all_, dry_run=False, force=force
            )

    def _unproject(
        self,
        here: Here | None,
        *,
        agents: Iterable[str],
        global_: bool,
        all_: bool,
        dry_run: bool,
        force: bool,
    ) -> Report:
        report = Report()
        wanted = set(agents)
        known = set(self.loaded.adapters) | {
            a for r in self.journal.records() for a in r.get("adapters", [])
        }
        if wanted - known:
            raise UnknownNameError(registry.unknown_agents(wanted - known, known))
        project_id = None
        root = None
        if here is not None and not all_ and not global_:
            try:
                root = here.any_root()
            except CofferError:
                if not wanted:
                    raise  # a whole-project undo needs a project
            if root is not None:
                # The registry, not project_tier: a directory outside git that an earlier
                # version projected is no project now, but what was written there goes.
                project_id = projects.read_project_list(self.store.root).get(str(root))
                if project_id is None and not dry_run:
                    # Moved here and never projected since: follow it, then undo it.
                    with self.store.store_lock():
                        moved = projects.follow(self.store.root, root)
                    if moved is not None:
                        project_id = moved.id
                        report.extend(moves.relocate(self.journal, moved))
        for record in list(self.journal.records()):
            if not self._selected(record, wanted, project_id, global_, all_):
                continue
            if not dry_run and record.get("path"):
                # Undo may delete rather than write; stale temp files still go.
                fsutil.sweep_stale_tmp(Path(record["path"]).parent)
            users = set(record.get("adapters", []))
            if wanted and users - wanted:
                # A file shared with other agents keeps its block for them.
                if not dry_run:
                    record["adapters"] = sorted(users - wanted)
                    self.journal.put(record)
                continue
            kind = record.get("kind")
            if kind == "block":
                undone = render_targets.undo(self.journal, record, dry_run=dry_run, force=force)
                report.extend(undone)
                if not undone.problems:
                    forget = partial(gitside.forget, self.journal, record, dry_run=dry_run)
                    report.extend(self._guarded(Path(record["path"]), forget))
            elif kind == "symlink":
                report.extend(links.undo(self.journal, record, dry_run=dry_run))
            elif kind == "native":
                report.extend(
                    native.undo(self.journal, record, self._native_for(record), dry_run=dry_run)
                )
        for damage in self.journal.damaged():
            if self._damage_selected(damage, wanted, project_id, global_, all_):
                # Reported, never guessed at: the other records were undone above.
                advice = damage.advice(self.journal.backups)
                report.problems.append(Problem(Path(damage.target), "damaged", advice))
        if not self.journal.exists() and not wanted and (all_ or root is not None):
            # Store and ledger deleted by hand: find coffer's changes by their markers.
            near = root
            if near is None and here is not None:
                with contextlib.suppress(CofferError):
                    near = here.project
            report.extend(orphans.sweep(self, near, dry_run=dry_run, force=force))
        if not dry_run:
            self._remember_choice(wanted, root, global_, all_)
        return report

    def _damage_selected(
        self, damage: Damage, wanted: set[str], project_id: str | None, global_: bool, all_: bool
    ) -> bool:
        # A damaged record is shown to every undo that might have covered it: when its
        # adapters or project cannot be read, to all of them.
        if wanted and damage.adapters and not wanted & set(damage.adapters):
            return False
        if all_ or wanted or damage.tier is None:
            return True
        if damage.tier == "global":
            return global_
        return damage.project_id is None or damage.project_id == project_id

    def _selected(
        self, record: Record, wanted: set[str], project_id: str | None, global_: bool, all_: bool
    ) -> bool:
        if wanted and not wanted & set(record.get("adapters", [])):
            return False
        if all_:
            return True
        if record.get("tier") == "global":
            return global_ or bool(wanted)
        return project_id is not None and record.get("project_id") == project_id

    def _remember_choice(
        self, wanted: set[str], root: Path | None, global_: bool, all_: bool
    ) -> None:
        # Without this the next session start would project everything again.
        if wanted:
            for name in wanted:
                self.settings.adapters[name] = False
        elif root is not None and not global_ and not all_:
            self.settings.paused.append(str(root))
        settings.save(self.store.root, self.settings)

    # ---- status ------------------------------------------------------------------------

    def status(self, at: Here | Path | None) -> tuple[list[AdapterStatus], list[str]]:
        """Per adapter: presence, modes, targets with their state, native memory state."""
        from coffer.projection.status import status

        return status(self, self.store.here(at) if at is not None else None)
