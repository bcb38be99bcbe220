"""The projection kinds, in one table: what `coffer project` establishes, what `coffer
unproject` undoes from a journal record, and what `coffer adapter list` audits.

Each kind is one object with ``establish`` / ``undo`` / ``state``, registered in
:data:`KINDS` under the journal kind of its records (:data:`BY_MODE` maps a target's mode
to it). Each operation plans first and applies the plan only on a real run, so a dry run is
the plan, not a flag threaded through every function (docs/adr/0024).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.adapter import Mode, NativeMemory
from coffer.base import fsutil
from coffer.base.errors import CofferError, JournalError
from coffer.base.report import Change, Problem, Report
from coffer.projection.journal import JournalRecord
from coffer.projection.run import Run, Undo
from coffer.projection.team.kind import TEAMS

if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    from coffer.projection.agents import BlockPlan, Reader
    from coffer.projection.blocks import render

# Each kind imports the modules that do its work when it first does it: `coffer adapter
# list` audits (blocks.render, blocks.content, symlink.state) and never loads the git
# side, the merge of native memories or the undo planners (docs/adr/0023).

# One file and how its one block is rendered for the adapters reading it (or why it cannot
# be): the engine plans it (AgentSet.block_plan), the kind renders, applies or audits it.
BlockUnit = tuple[Path, "BlockPlan | str"]
NativeUnit = tuple[str, NativeMemory]  # an adapter and its own memory


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

    def job(self, run: Run, unit: BlockUnit) -> render.BlockJob | str:
        from coffer.projection.blocks import render

        file, plan = unit
        if isinstance(plan, str):
            return plan
        return render.BlockJob(
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
        from coffer.projection.blocks import render
        from coffer.projection.git import hiding

        job, journal, file = self.job(run, unit), run.journal, unit[0]
        if isinstance(job, str):
            report = Report()
            report.problems.append(Problem(file, "error", job))
            return report
        if not os.path.lexists(file):
            refused = hiding.tracked_absent(file)
            if refused is not None:
                report = Report()
                report.notices.append(f"{file}: {refused}")
                return report
        write = render.plan(journal, job)
        report = write.report if run.dry_run else render.apply(journal, write)
        record = journal.load(file)
        if not run.dry_run and not report.problems:
            from coffer.projection.blocks import waiting

            # An empty tier's block waits for its first entry (docs/adr/0045).
            tier = job.tier if write.empty else None
            waiting.note(run.store.root, file, tier, job.project_id)
        wrote = any(c.path == file for c in report.changes)
        if record is None and run.dry_run and wrote:
            # A first run's dry run: show what hiding the new block from git would change.
            record = JournalRecord(
                kind="block", key=str(file), path=str(file), created_file=not file.exists()
            )
        if record is not None and not report.problems:
            commit = commits(run, file)
            report.extend(
                hiding.sync(journal, record, wrote=wrote, commit=commit, dry_run=run.dry_run)
            )
        return report

    def undo(self, undo: Undo, record: JournalRecord) -> Report:
        from coffer.projection.blocks import removal
        from coffer.projection.git import hiding

        journal = undo.journal
        planned = removal.plan_undo(record, force=undo.force)
        report = planned.report if undo.dry_run else removal.apply_undo(journal, planned)
        if not report.problems:
            forget = partial(hiding.forget, journal, record, dry_run=undo.dry_run)
            report.extend(guarded(Path(record.path), forget))
        return report

    def state(self, run: Run, unit: BlockUnit) -> tuple[str, str]:
        """Judged against exactly what `coffer project` would write for the file."""
        from coffer.projection.blocks import content, render

        job = self.job(run, unit)
        if isinstance(job, str):
            return "drifted", job
        path = job.path
        data = fsutil.read_bytes_or_none(path) if path.is_file() else None
        room = render.room_for(data, job.max_bytes)
        expected = content.render(job.title, job.tier, job.entries, room, job.handoffs)
        state, detail = render.state(path, expected.body)
        empty = render.empty(job) and run.journal.get(path) is None
        if state == "missing" and empty:
            return "ok", f"no {job.tier} entries yet: the first one writes the block"
        return state, detail


class Links:
    """SYMLINK: an agent's memory directory becomes a link to a tier directory."""

    def establish(self, run: Run, unit: Reader) -> Report:
        from coffer.projection.symlink import link, merge

        name, target = unit
        tier, journal = run.tiers.get(target.tier), run.journal
        incoming = run.incoming.get(target.tier)
        if tier is None:  # dry run of a project coffer has never seen
            report = Report()
            merging, planned = merge.preview(journal, target.path)
            report.changes += [merging] if merging is not None else []
            if planned is not None and incoming is not None:
                incoming += merge.merged_entries(target.path, planned)
            why = "-> this project's new store (created on a real run)"
            report.changes.append(Change(target.path, "link", why))
            return report
        taken = tuple(e.name for e in run.store.shown(tier).entries)
        from coffer.store.provenance import machine

        here = machine(run.store.root)
        job = link.LinkJob(target.path, tier.dir, taken, name, target.tier, tier.info.id, here)
        with run.step():
            establish = partial(
                link.establish, journal, job, dry_run=run.dry_run, incoming=incoming
            )
            report = guarded(target.path, establish)
        if target.note:
            report.notices.append(f"{name}: {target.note}")
        return report

    def undo(self, undo: Undo, record: JournalRecord) -> Report:
        from coffer.projection.symlink import link

        return link.undo(undo.journal, record, dry_run=undo.dry_run)

    def state(self, run: Run, unit: Reader) -> tuple[str, str]:
        from coffer.projection.symlink import state

        tier = run.tiers.get(unit[1].tier)
        if tier is None:
            return "missing", "the project has no store yet; run `coffer project`"
        return state.state(unit[1].path, tier.dir)


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

    def undo(self, undo: Undo, record: JournalRecord) -> Report:
        from coffer.projection import native_memory

        native = undo.native_of(record.adapters[0])
        planned = native_memory.plan_undo(undo.journal, record, native)
        if undo.dry_run:
            return planned.report
        return native_memory.apply_undo(undo.journal, planned)

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
