"""Dispatches every enabled adapter's targets on their mode. Names no agent.

``project`` establishes, ``unproject`` undoes from the journal, ``status`` audits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from coffer import fsutil, projects, registry, render, settings
from coffer.adapter import Adapter, Context, Mode, NativeMemory, Target
from coffer.entry import Entry
from coffer.errors import CofferError, InvalidInputError
from coffer.journal import Journal, Record
from coffer.paths import home_dir
from coffer.projection import blocks, links, native
from coffer.projects import ProjectInfo
from coffer.report import Change, Problem, Report
from coffer.store import Store, Tier

T = TypeVar("T")
_NO_TARGETS: Sequence[Target] = ()
HandoffSource = Callable[[Context, Sequence[str]], Sequence[render.Handoff]]


@dataclass(frozen=True)
class TargetStatus:
    tier: str
    mode: str
    path: str
    state: str
    detail: str = ""
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.state == "ok"


@dataclass
class AdapterStatus:
    name: str
    origin: str
    present: bool
    enabled: bool
    modes: dict[str, str]
    targets: list[TargetStatus] = field(default_factory=list)
    native: str = "none"
    error: str = ""

    @property
    def ok(self) -> bool:
        if not self.enabled:
            return True
        return not self.error and self.native != "on" and all(t.ok for t in self.targets)


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
        self.journal = Journal(store.root)
        self.handoffs = handoffs

    # ---- helpers -----------------------------------------------------------------------

    def context(self, project: Path | None) -> Context:
        return Context(home_dir(self.environ), self.environ, self.store.root, project)

    def _call(self, name: str, report: Report, fn: Callable[[], T], default: T) -> T:
        # A third-party adapter's bug is reported against that adapter and skipped.
        try:
            return fn()
        except Exception as exc:
            report.problems.append(
                Problem(Path(name), "error", f"adapter {name} failed: {type(exc).__name__}: {exc}")
            )
            return default

    def enabled(self, ctx: Context, report: Report) -> dict[str, Adapter]:
        out = {}
        for name, adapter in self.loaded.adapters.items():
            present = self._call(name, report, partial(adapter.detect, ctx), False)
            if self.settings.enabled(name, present):
                out[name] = adapter
        return out

    def _entries(self, tier: Tier | None) -> list[Entry]:
        return list(self.store.scan(tier).entries) if tier is not None else []

    def _handoffs(self, ctx: Context, agents: Sequence[str]) -> Sequence[render.Handoff]:
        if self.handoffs is None or ctx.project is None:
            return ()
        try:
            return self.handoffs(ctx, agents)
        except Exception:
            return ()  # handoffs are a courtesy; never block the projection on them

    # ---- project -----------------------------------------------------------------------

    def project(
        self,
        path: Path,
        *,
        dry_run: bool = False,
        replace_edited: bool = False,
        resume: bool = False,
    ) -> Report:
        """Establish every enabled adapter's projection for the project and global tier."""
        report = Report()
        root = self.store.resolve_root(path)
        if str(root) in self.settings.paused:
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
        ptier = self.store.project_tier(root, create=not dry_run)
        gtier = self.store.global_tier(create=not dry_run)
        for name, adapter in adapters.items():
            nm = self._call(name, report, partial(adapter.native_memory, ctx), None)
            if nm is not None:
                establish = partial(
                    native.establish, self.journal, self.store, gtier, name, nm, dry_run=dry_run
                )
                report.extend(self._call(name, report, establish, Report()))
        if not dry_run:
            for tier in (ptier, gtier):
                if tier is not None:
                    self.store.regenerate_index(tier)
        tiers: dict[str, Tier | None] = {"project": ptier, "global": gtier}
        groups: dict[Path, list[tuple[str, Target]]] = defaultdict(list)
        for name, adapter in adapters.items():
            for target in self._call(name, report, partial(adapter.targets, ctx), _NO_TARGETS):
                tier = tiers.get(target.tier)
                if target.mode is Mode.NONE or (tier is None and not dry_run):
                    continue
                if target.mode is Mode.SYMLINK:
                    if tier is None:  # dry run of a project coffer has never seen
                        report.changes.append(
                            Change(
                                target.path,
                                "link",
                                "-> this project's new store (created on a real run)",
                            )
                        )
                        continue
                    report.extend(
                        links.establish(
                            self.journal,
                            target.path,
                            tier.dir,
                            tier.base,
                            name,
                            target.tier,
                            tier.info.id,
                            dry_run=dry_run,
                        )
                    )
                    if target.note:
                        report.notices.append(f"{name}: {target.note}")
                elif target.mode is Mode.RENDER:
                    groups[target.path].append((name, target))
        entries = {k: self._entries(t) for k, t in tiers.items()}
        for file, items in sorted(groups.items()):
            report.extend(self._render(ctx, file, items, tiers, entries, dry_run, replace_edited))
        return report

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
        tier_names = {t.tier for _, t in items}
        if len(tier_names) > 1:
            r = Report()
            r.problems.append(
                Problem(
                    file,
                    "error",
                    "adapters disagree on which tier this "
                    f"file shows ({', '.join(sorted(tier_names))})",
                )
            )
            return r
        tier_name = items[0][1].tier
        tier = tiers[tier_name]
        budgets = [t.max_bytes for _, t in items if t.max_bytes is not None]
        agents = [n for n, _ in items]
        title = (
            block_title(tier)
            if tier
            else f"Coffer memory: project {ctx.project and ctx.project.name}"
        )
        handoffs = self._handoffs(ctx, agents) if tier_name == "project" else ()
        return blocks.establish(
            self.journal,
            file,
            agents,
            tier_name,
            tier.info.id if tier else None,
            title,
            entries[tier_name],
            min(budgets) if budgets else None,
            handoffs,
            dry_run=dry_run,
            replace_edited=replace_edited,
        )

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
            tier = self.store.project_tier(root)
            if tier is None or str(root) in self.settings.paused:
                return report
        else:
            tier = self.store.global_tier()
        ctx = self.context(root if scope == "project" else None)
        self.store.regenerate_index(tier)
        groups: dict[Path, list[tuple[str, Target]]] = defaultdict(list)
        for name, adapter in self.enabled(ctx, report).items():
            for target in self._call(name, report, partial(adapter.targets, ctx), _NO_TARGETS):
                if target.tier != scope:
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
            state, detail = blocks.state(file, None)
            if state == "missing":
                if self.journal.get(file) is not None:
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
        path: Path | None,
        *,
        agents: Iterable[str] = (),
        global_: bool = False,
        all_: bool = False,
        dry_run: bool = False,
        force: bool = False,
    ) -> Report:
        """Undo exactly what the journal records. Refused paths stay in the journal."""
        report = Report()
        wanted = set(agents)
        unknown = (
            wanted
            - set(self.loaded.adapters)
            - {a for r in self.journal.records() for a in r.get("adapters", [])}
        )
        if unknown:
            raise InvalidInputError(
                f"unknown agent {', '.join(sorted(unknown))}; see `coffer adapter list`"
            )
        project_id = None
        root = None
        if path is not None and not all_ and not global_:
            try:
                root = self.store.resolve_root(path)
            except CofferError:
                if not wanted:
                    raise  # a whole-project undo needs a project
            if root is not None:
                tier = self.store.project_tier(root)
                project_id = tier.info.id if tier else None
        for record in list(self.journal.records()):
            if not self._selected(record, wanted, project_id, global_, all_):
                continue
            users = set(record.get("adapters", []))
            if wanted and users - wanted:
                # A file shared with other agents keeps its block for them.
                if not dry_run:
                    record["adapters"] = sorted(users - wanted)
                    self.journal.put(record)
                continue
            kind = record.get("kind")
            if kind == "block":
                report.extend(blocks.undo(self.journal, record, dry_run=dry_run, force=force))
            elif kind == "symlink":
                report.extend(links.undo(self.journal, record, dry_run=dry_run))
            elif kind == "native":
                report.extend(
                    native.undo(self.journal, record, self._native_for(record), dry_run=dry_run)
                )
        if not dry_run:
            self._remember_choice(wanted, root, global_, all_)
        return report

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

    def status(self, path: Path | None) -> tuple[list[AdapterStatus], list[str]]:
        """Per adapter: presence, modes, targets with their state, native memory state."""
        root = self.store.resolve_root(path) if path is not None else None
        ctx = self.context(root)
        ptier = self.store.project_tier(root) if root is not None else None
        tiers: dict[str, Tier | None] = {"project": ptier, "global": self.store.global_tier()}
        entries = {k: self._entries(t) for k, t in tiers.items()}
        readers = self._readers(ctx)
        out = []
        for name, adapter in self.loaded.adapters.items():
            report = Report()
            present = self._call(name, report, partial(adapter.detect, ctx), False)
            st = AdapterStatus(
                name=name,
                origin=self.loaded.origins.get(name, "?"),
                present=present,
                enabled=self.settings.enabled(name, present),
                modes={k: v.value for k, v in adapter.MODES.items()},
            )
            targets = self._call(name, report, partial(adapter.targets, ctx), _NO_TARGETS)
            for t in targets:
                agents = readers.get(t.path) or [name]
                st.targets.append(self._target_status(ctx, agents, t, tiers, entries))
            nm = self._call(name, report, partial(adapter.native_memory, ctx), None)
            if nm is not None:
                on = nm.enabled(fsutil.read_bytes_or_none(nm.config))
                by_us = self.journal.get(native.key(name, nm.config)) is not None
                st.native = "on" if on else ("off (turned off by coffer)" if by_us else "off")
            st.targets += self._orphans(name, {t.path for t in targets}, ptier)
            if report.problems:
                st.error = "; ".join(p.message for p in report.problems)
            out.append(st)
        return out, list(self.loaded.errors)

    def _orphans(self, name: str, current: set[Path], ptier: Tier | None) -> list[TargetStatus]:
        """Blocks coffer wrote for this adapter that it no longer reads (e.g. an
        AGENTS.override.md appeared beside the AGENTS.md holding the block)."""
        out = []
        for record in self.journal.records():
            path = Path(record["path"])
            if record.get("kind") != "block" or name not in record.get("adapters", []):
                continue
            if path in current or (
                record.get("tier") == "project"
                and (ptier is None or record.get("project_id") != ptier.info.id)
            ):
                continue
            out.append(
                TargetStatus(
                    tier=str(record.get("tier")),
                    mode=Mode.RENDER.value,
                    path=str(path),
                    state="shadowed",
                    detail=f"{name} no longer reads this file; "
                    "`coffer unproject` removes the block",
                )
            )
        return out

    def _readers(self, ctx: Context) -> dict[Path, list[str]]:
        """The enabled adapters rendering each file, as ``project`` groups them: a shared
        block lists the handoffs of all its readers, so its status is judged the same way."""
        out: dict[Path, list[str]] = defaultdict(list)
        report = Report()
        for name, adapter in self.enabled(ctx, report).items():
            for t in self._call(name, report, partial(adapter.targets, ctx), _NO_TARGETS):
                if t.mode is Mode.RENDER:
                    out[t.path].append(name)
        return out

    def _target_status(
        self,
        ctx: Context,
        agents: Sequence[str],
        t: Target,
        tiers: Mapping[str, Tier | None],
        entries: Mapping[str, list[Entry]],
    ) -> TargetStatus:
        tier = tiers.get(t.tier)
        base: dict[str, Any] = {
            "tier": t.tier,
            "mode": t.mode.value,
            "path": str(t.path),
            "note": t.note,
        }
        if t.mode is Mode.NONE:
            return TargetStatus(state="ok", detail="nothing to write", **base)
        if t.shadowed_by is not None and t.shadowed_by.exists():
            return TargetStatus(state="shadowed", detail=f"{t.shadowed_by} hides this file", **base)
        if not t.active:
            return TargetStatus(
                state="shadowed", detail=t.note or "the agent will not read it", **base
            )
        if tier is None:
            return TargetStatus(
                state="missing", detail="the project has no store yet; run `coffer project`", **base
            )
        if t.mode is Mode.SYMLINK:
            state, detail = links.state(t.path, tier.dir)
            return TargetStatus(state=state, detail=detail, **base)
        data = fsutil.read_bytes_or_none(t.path) if t.path.is_file() else None
        rendered = render.render(
            block_title(tier),
            t.tier,
            entries[t.tier],
            blocks.room_for(data, t.max_bytes),
            self._handoffs(ctx, agents) if t.tier == "project" else (),
        )
        state, detail = blocks.state(t.path, rendered.body)
        return TargetStatus(state=state, detail=detail, **base)
