"""The projection kinds, in one table: what `coffer project` establishes, what `coffer
unproject` undoes from a journal record, and what `coffer adapter list` audits.

Each kind is one object with ``establish`` / ``undo`` / ``state``, registered in
:data:`KINDS` under the journal kind of its records (:data:`BY_MODE` maps a target's mode
to it). Each operation plans first and applies the plan only on a real run, so a dry run is
the plan, not a flag threaded through every function (docs/adr/0024).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Mapping
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import Context, Mode, NativeMemory
from coffer.base import fsutil
from coffer.base.errors import CofferError, JournalError
from coffer.base.report import Change, Problem, Report
from coffer.projection.journal import BlockRecord, Journal, LinkRecord, NativeRecord
from coffer.projection.team.kind import TEAMS

if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    from coffer.projection.agents import AgentSet, BlockPlan, Reader
    from coffer.projection.blocks import render as render_targets
    from coffer.store import Entry
    from coffer.store.store import Store, Tier

# Each kind imports the modules that do its work when it first does it: `coffer adapter
# list` audits (render_targets, block_content, symlink_targets) and never loads the git
# side, the merge of native memories or the undo planners (docs/adr/0023).

# One file and how its one block is rendered for the adapters reading it (or why it cannot
# be): the engine plans it (AgentSet.block_plan), the kind renders, applies or audits it.
BlockUnit = tuple[Path, "BlockPlan | str"]
NativeUnit = tuple[str, NativeMemory]  # an adapter and its own memory


class Run(NamedTuple):
    """One `coffer project` (or refresh, or audit) run, as every kind sees it: the values
    the engine resolved for it, passed down, so a kind never calls back into the engine."""

    store: Store
    journal: Journal
    ctx: Context
    tiers: Mapping[str, Tier | None]
    entries: Mapping[str, list[Entry]] = MappingProxyType({})
    # The project roots whose blocks git may see (`coffer project --git-block commit`).
    git_commit: Collection[str] = frozenset()
    # One change outside the store (AgentSet.step: a hook past its deadline stops before it).
    step: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext
    dry_run: bool = False
    replace_edited: bool = False
    # A dry run's merges, by tier: the entries they would add, which the real run's blocks
    # (rendered after its merges) show, so the dry run's blocks show them too.
    incoming: Mapping[str, list[Entry]] = MappingProxyType({})


def run_of(
    agents: AgentSet,
    ctx: Context,
    tiers: Mapping[str, Tier | None],
    entries: Mapping[str, list[Entry]] = MappingProxyType({}),
    *,
    dry_run: bool = False,
    replace_edited: bool = False,
) -> Run:
    """The run over ``agents``' store, with what its kinds need read off them once."""
    deadline = agents.deadline
    return Run(
        agents.store,
        agents.journal,
        ctx,
        tiers,
        entries,
        frozenset(agents.settings.git_commit),
        deadline.step if deadline is not None else contextlib.nullcontext,
        dry_run,
        replace_edited,
    )


class Undo(NamedTuple):
    """One `coffer unproject` run, as every kind sees it."""

    agents: AgentSet
    dry_run: bool = False
    force: bool = False


def guarded(path: Path, fn: Callable[[], Report]) -> Report:
    """``fn()``; a damaged journal record leaves only its own path alone."""
    try:
        return fn()
    except JournalError as exc:
        report = Report()
        report.problems.append(Problem(path, "damaged", str(exc)))
        return report


def commits(run: Run, file: Path) -> bool:
    """Whether git may see the block in ``file``: the repository holding the file chose so
    (``coffer project --git-block commit``). A question about the file, not about where the
    command runs, so no walk at all when no repository chose it."""
    if not run.git_commit:
        return False
    from coffer.base.identity import root_of

    return root_of(str(file.parent)) in run.git_commit


class Blocks:
    """RENDER: one managed block per file, shared by every adapter reading the file."""

    def job(self, run: Run, unit: BlockUnit) -> render_targets.BlockJob | str:
        from coffer.projection.blocks import render as render_targets

        file, plan = unit
        if isinstance(plan, str):
            return plan
        return render_targets.BlockJob(
            file,
            tuple(plan.agents),
            plan.tier_name,
            plan.tier.info.id if plan.tier else None,
            plan.title,
            run.entries[plan.tier_name],
            plan.budget,
            plan.handoffs,
            run.replace_edited,
        )

    def establish(self, run: Run, unit: BlockUnit) -> Report:
        from coffer.projection.blocks import render as render_targets
        from coffer.projection.git import hiding as gitside

        job, journal, file = self.job(run, unit), run.journal, unit[0]
        if isinstance(job, str):
            report = Report()
            report.problems.append(Problem(file, "error", job))
            return report
        if not os.path.lexists(file):
            refused = gitside.tracked_absent(file)
            if refused is not None:
                report = Report()
                report.notices.append(f"{file}: {refused}")
                return report
        write = render_targets.plan(journal, job)
        report = write.report if run.dry_run else render_targets.apply(journal, write)
        record = journal.load(file, BlockRecord)
        if not run.dry_run and not report.problems:
            from coffer.projection.blocks import waiting as waiting_blocks

            # An empty tier's block waits for its first entry (docs/adr/0045).
            tier = job.tier if write.empty else None
            waiting_blocks.note(run.store.root, file, tier, job.project_id)
        wrote = any(c.path == file for c in report.changes)
        if record is None and run.dry_run and wrote:
            # A first run's dry run: show what hiding the new block from git would change.
            record = BlockRecord(key=str(file), path=str(file), created_file=not file.exists())
        if record is not None and not report.problems:
            commit = commits(run, file)
            report.extend(
                gitside.sync(journal, record, wrote=wrote, commit=commit, dry_run=run.dry_run)
            )
        return report

    def undo(self, undo: Undo, record: BlockRecord) -> Report:
        from coffer.projection.blocks import removal as render_undo
        from coffer.projection.git import hiding as gitside

        journal = undo.agents.journal
        planned = render_undo.plan_undo(record, force=undo.force)
        report = planned.report if undo.dry_run else render_undo.apply_undo(journal, planned)
        if not report.problems:
            forget = partial(gitside.forget, journal, record, dry_run=undo.dry_run)
            report.extend(guarded(Path(record.path), forget))
        return report

    def state(self, run: Run, unit: BlockUnit) -> tuple[str, str]:
        """Judged against exactly what `coffer project` would write for the file."""
        from coffer.projection.blocks import content as block_content
        from coffer.projection.blocks import render as render_targets

        job = self.job(run, unit)
        if isinstance(job, str):
            return "drifted", job
        path = job.path
        data = fsutil.read_bytes_or_none(path) if path.is_file() else None
        room = render_targets.room_for(data, job.max_bytes)
        expected = block_content.render(job.title, job.tier, job.entries, room, job.handoffs)
        state, detail = render_targets.state(path, expected.body)
        empty = render_targets.empty(job) and run.journal.get(path) is None
        if state == "missing" and empty:
            return "ok", f"no {job.tier} entries yet: the first one writes the block"
        return state, detail


class Links:
    """SYMLINK: an agent's memory directory becomes a link to a tier directory."""

    def establish(self, run: Run, unit: Reader) -> Report:
        from coffer.projection.symlink import link as symlink_targets
        from coffer.projection.symlink import merge as symlink_merge

        name, target = unit
        tier, journal = run.tiers.get(target.tier), run.journal
        incoming = run.incoming.get(target.tier)
        if tier is None:  # dry run of a project coffer has never seen
            report = Report()
            merge, planned = symlink_merge.preview(journal, target.path)
            report.changes += [merge] if merge is not None else []
            if planned is not None and incoming is not None:
                incoming += symlink_merge.merged_entries(target.path, planned)
            why = "-> this project's new store (created on a real run)"
            report.changes.append(Change(target.path, "link", why))
            return report
        taken = tuple(e.name for e in run.store.shown(tier).entries)
        from coffer.store.provenance import machine

        here = machine(run.store.root)
        job = symlink_targets.LinkJob(
            target.path, tier.dir, taken, name, target.tier, tier.info.id, here
        )
        with run.step():
            establish = partial(
                symlink_targets.establish, journal, job, dry_run=run.dry_run, incoming=incoming
            )
            report = guarded(target.path, establish)
        if target.note:
            report.notices.append(f"{name}: {target.note}")
        return report

    def undo(self, undo: Undo, record: LinkRecord) -> Report:
        from coffer.projection.symlink import link as symlink_targets

        return symlink_targets.undo(undo.agents.journal, record, dry_run=undo.dry_run)

    def state(self, run: Run, unit: Reader) -> tuple[str, str]:
        from coffer.projection.symlink import state as symlink_state

        tier = run.tiers.get(unit[1].tier)
        if tier is None:
            return "missing", "the project has no store yet; run `coffer project`"
        return symlink_state.state(unit[1].path, tier.dir)


class Natives:
    """An agent's own memory: imported into the global tier, then switched off."""

    def establish(self, run: Run, unit: NativeUnit) -> Report:
        from coffer.projection import native_memory
        from coffer.projection.agents import call_adapter

        name, native = unit
        gtier = run.tiers["global"]
        assert gtier is not None  # the global tier always exists, if only on paper
        job = native_memory.NativeJob(run.store, gtier, name, native)

        def establish() -> Report:
            switch = native_memory.plan(job)
            if run.dry_run:
                return native_memory.preview(switch)
            return native_memory.apply(run.journal, switch)

        report = Report()
        with run.step():
            report.extend(call_adapter(name, report, establish, Report()))
        return report

    def undo(self, undo: Undo, record: NativeRecord) -> Report:
        from coffer.projection import native_memory

        agents = undo.agents
        adapter = agents.loaded.adapters.get(record.adapters[0])
        native = adapter.native_memory(agents.context(None)) if adapter is not None else None
        planned = native_memory.plan_undo(agents.journal, record, native)
        if undo.dry_run:
            return planned.report
        return native_memory.apply_undo(agents.journal, planned)

    def state(self, run: Run, unit: NativeUnit) -> tuple[str, str]:
        """ "on", "off", or "off (turned off by coffer)"."""
        from coffer.projection import native_memory

        name, native = unit
        if native.keeps_on:
            return f"on (no switch: {native.keeps_on}; coffer imports it)", ""
        try:  # through a dotfile manager's link, as `coffer project` edits it
            config: bytes | None = fsutil.edit_target(native.config).read_bytes()
        except (OSError, CofferError):
            config = None
        if native.enabled(config):
            return "on", ""
        by_us = run.journal.get(native_memory.key(name, native.config)) is not None
        return ("off (turned off by coffer)" if by_us else "off"), ""


BLOCKS, LINKS, NATIVES = Blocks(), Links(), Natives()
if TYPE_CHECKING:
    U = TypeVar("U", contravariant=True)
    R = TypeVar("R", contravariant=True)

    class Kind(Protocol[U, R]):
        """What each kind offers (a type only: the table below is read directly)."""

        def establish(self, run: Run, unit: U) -> Report: ...

        def undo(self, undo: Undo, record: R) -> Report: ...

        def state(self, run: Run, unit: U) -> tuple[str, str]: ...


KINDS: Mapping[str, Kind[Any, Any]] = {
    "block": BLOCKS,
    "symlink": LINKS,
    "native": NATIVES,
    "team": TEAMS,  # the committed team block (docs/adr/0036)
}
BY_MODE: Mapping[Mode, Kind[Any, Any]] = {Mode.RENDER: BLOCKS, Mode.SYMLINK: LINKS}
