"""SYMLINK targets: an agent's memory directory becomes a link to a tier directory.

The link is made first, under a sibling name (a directory junction where symlinks are
refused, coffer.base.platform); only then are a real directory's files merged into the tier
(coffer/projection/symlink/merge.py) and the original directory moved, whole, into
coffer's backups by the swap (coffer/projection/symlink/swap.py). So a link that cannot be
made merges nothing (a refused link never imports the same files at every start), and a
failure before the swap leaves the directory untouched. ``plan`` decides everything first,
so ``--dry-run`` shows exactly what a real run does (docs/adr/0013, 0024).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.base import faults, fsutil, platform, swaps
from coffer.base.report import Change, Problem, Report
from coffer.projection.common import ensure_parent, lstat_or_none, now_iso
from coffer.projection.journal import Journal, JournalRecord
from coffer.projection.symlink import backups, merge, swap
from coffer.projection.symlink.merge import MergePlan
from coffer.projection.symlink.state import points_to

if TYPE_CHECKING:
    from coffer.store import Entry


class LinkJob(NamedTuple):
    """One memory directory to link to a tier directory."""

    link: Path
    tier_dir: Path
    taken_names: tuple[str, ...]
    adapter: str
    tier: str
    project_id: str | None
    machine: str  # the merged entries' provenance: ``merge:<adapter>`` on this machine


class LinkSwap:
    """What linking would do. ``before`` None: nothing to swap (already linked, or
    refused: ``report`` says which); ``adopt``: coffer's link with no record yet."""

    job: LinkJob
    record: JournalRecord | None
    report: Report
    before: str | None
    adopt: bool
    merge: MergePlan | None
    backup: Path | None

    def __init__(self, job: LinkJob, record: JournalRecord | None = None) -> None:
        self.job = job
        self.record = record
        self.report = Report()
        self.before = None
        self.adopt = False
        self.merge = None
        self.backup = None


def plan(journal: Journal, job: LinkJob) -> LinkSwap:
    """Decide, without writing, how ``job.link`` becomes coffer's link."""
    link, tier_dir = job.link, job.tier_dir
    out = LinkSwap(job, journal.load(link))
    st = lstat_or_none(link)
    if st is not None and platform.is_link(st):  # before S_ISDIR: a junction is one too
        if points_to(link, tier_dir):
            out.adopt = out.record is None
            return out
        state = "broken" if not os.path.exists(link) else "foreign"
        why = (
            f"a link to {platform.read_link(link)}, not to coffer's store ({tier_dir}); left "
            "alone. Move it aside and rerun `coffer project` to project here"
        )
        out.report.problems.append(Problem(link, state, why))
        return out
    if st is not None and not stat.S_ISDIR(st.st_mode):
        why = "a file where the agent expects its memory directory; left alone"
        out.report.problems.append(Problem(link, "foreign", why))
        return out
    out.before = "absent" if st is None else "dir"
    if st is not None:
        out.merge = merge.plan_merge(link, tier_dir, job.taken_names)
        out.backup = merge.backup_dir(journal, link)
        change = merge.merge_change(link, tier_dir, out.merge, out.backup)
        if change is not None:
            out.report.changes.append(change)
    out.report.changes.append(Change(link, "link", f"-> {tier_dir}"))
    return out


def establish(
    journal: Journal, job: LinkJob, *, dry_run: bool, incoming: list[Entry] | None = None
) -> Report:
    """Plan the link; unless ``dry_run``, finish a swap a killed run left, then apply.
    A dry run adds to ``incoming`` the entries its merge would bring into the tier."""
    if dry_run:
        planned = plan(journal, job)
        if planned.merge is not None and incoming is not None:
            incoming += merge.merged_entries(job.link, planned.merge)
        return planned.report
    notices = swap.recover(journal, job.link, job.tier_dir)
    report = apply(journal, plan(journal, job))
    report.notices[:0] = notices
    return report


def apply(journal: Journal, planned: LinkSwap) -> Report:
    """Make the link, then merge, journal and swap it in; the backup loses only what was
    held. The link comes first on every platform: where it cannot be made, nothing is
    merged, so a refusal repeated at every session start never imports the files again."""
    job, report = planned.job, planned.report
    if planned.adopt:
        journal.save(_record(job, "unknown", None, []))
    if planned.before is None:
        return report
    record = _record(job, planned.before, None, []).but(created_dirs=tuple(ensure_parent(job.link)))
    if planned.record is not None and planned.before == "absent":
        record = planned.record  # the link was removed by hand: keep what the first run recorded
    if planned.before == "absent":
        journal.save(record)  # before the link: a cut run's parents are undone too
    try:
        fsutil.symlink(job.tier_dir, swap.new_link(job.link))
    except OSError as exc:
        if planned.before == "absent":
            journal.drop(record.key)
        return _refused(report, job.link, exc)
    # A run cut from here to the swap leaves a spare link beside the untouched directory:
    # the next run's ``recover`` removes it and merges again.
    held: dict[str, Path] = {}
    if planned.merge is not None and planned.backup is not None:
        record, held = _merge(job, planned.merge, planned.backup, record)
    journal.save(record)  # before the swap: a cut run's next run knows where the directory goes
    swap.swap_in(job.link, record.backup)
    if record.backup is not None:
        report.notices.append(_keep_backup(journal, record, Path(record.backup), held))
    return report


def _merge(
    job: LinkJob, plan: MergePlan, backup: Path, record: JournalRecord
) -> tuple[JournalRecord, dict[str, Path]]:
    """Merge the agent's directory into the tier; the record with where it goes, and what
    the tier or an earlier backup already held."""
    # Before the merge adds to the tier: what the tier or an earlier backup of this
    # directory already holds is not the user's only copy (docs/adr/0016).
    earlier = backups.earlier_backups(backup)
    held = backups.already_held(job.link, job.tier_dir, earlier)
    merge.merge(job.link, job.tier_dir, plan)
    _record_merge(job, plan)
    fsutil.ensure_dir(backup.parent)
    # The modes are put back by undo (issue 9, point 9); the subdirectories and links
    # the merge leaves out are copied back from the backup holding each (issue 10).
    rest = {n: str(held.get(n, backup)) for n in plan.skipped}
    modes = backups.modes(job.link)
    return record.but(backup=str(backup), modes=modes, rest=rest), held


def _refused(report: Report, link: Path, exc: OSError) -> Report:
    # No link here (a Windows account without the privilege on a volume without
    # junctions, an odd file system): nothing was merged, the directory was not touched.
    report.changes = [c for c in report.changes if c.action not in ("link", "merge")]
    why = (
        f"cannot create a symlink here ({exc.strerror or exc}); the agent's directory "
        "was left as it was and nothing was merged"
    )
    # "refused": known and explained, so a hook says it once, not every session
    report.problems.append(Problem(link, "refused", why))
    return report


def _keep_backup(
    journal: Journal, record: JournalRecord, backup: Path, held: Mapping[str, Path]
) -> str:
    # Only now, with the link in place, may the backup lose what the store already held
    # (before that, the directory may be the user's only copy). docs/adr/0016.
    link = record.path
    if backups.prune(backup, held):
        kept = "kept at" if not held else "kept (less what the store or a backup held) at"
        return f"{link}: the original directory is {kept} {backup}"
    journal.save(record.but(backup=None))
    return f"{link}: the store already held every file of the directory; no backup needed"


def _record(job: LinkJob, before: str, backup: str | None, dirs: list[str]) -> JournalRecord:
    return JournalRecord(
        kind="symlink",
        key=str(job.link),
        path=str(job.link),
        tier=job.tier,
        project_id=job.project_id,
        adapters=(job.adapter,),
        link_target=str(job.tier_dir),
        before=before,
        backup=backup,
        created_dirs=tuple(dirs),
        created_at=now_iso(),
        updated_at=now_iso(),
    )


class LinkRestore:
    """What undoing a link record would do: ``forget`` only the record (the link is
    gone), ``restore`` a real directory, or neither (refused: ``report`` says why)."""

    record: JournalRecord
    report: Report
    forget: bool
    restore: bool

    def __init__(self, record: JournalRecord) -> None:
        self.record = record
        self.report = Report()
        self.forget = False
        self.restore = False


def plan_undo(record: JournalRecord) -> LinkRestore:
    """Decide how coffer's link is replaced with a real directory of the current memories."""
    out, link = LinkRestore(record), Path(record.path)
    st = lstat_or_none(link)
    if st is None:
        out.report.notices.append(f"{link}: already gone; nothing to undo")
        out.forget = True
    elif not platform.is_link(st) or not points_to(link, Path(record.link_target)):
        why = (
            "no longer coffer's link to the store (changed since coffer made it); left alone "
            "and kept in the journal"
        )
        out.report.problems.append(Problem(link, "refused", why))
    else:
        change = Change(link, "restore", "a real directory with the current memories")
        out.report.changes.append(change)
        out.restore = True
    return out


def undo(journal: Journal, record: JournalRecord, *, dry_run: bool) -> Report:
    """Plan the undo; unless ``dry_run``, finish what a killed run left, then apply."""
    if dry_run:
        return plan_undo(record).report
    finished = _finish_cut_undo(journal, record)
    if finished is not None:
        return finished
    notices = swap.recover(journal, Path(record.path), Path(record.link_target))
    report = apply_undo(journal, plan_undo(record))
    report.notices[:0] = notices
    return report


def _finish_cut_undo(journal: Journal, record: JournalRecord) -> Report | None:
    """A previous undo cut after its swap leaves a directory and only its spare link (or
    its journal record): finish it."""
    link, tier_dir = Path(record.path), Path(record.link_target)
    if not swap.is_dir(link):
        return None
    candidates = (swap.staging(link), swap.parked(link))
    spares = [s for s in candidates if swap.is_link(s)]
    if not record.restoring and not any(points_to(s, tier_dir) for s in spares):
        return None
    for spare in spares:
        if points_to(spare, tier_dir):
            fsutil.remove_link(spare)
    journal.drop(record.key)
    report = Report()
    report.notices.append(f"{link}: finished an undo an interrupted run left")
    return report


def apply_undo(journal: Journal, restore: LinkRestore) -> Report:
    """Do what :func:`plan_undo` decided; the record goes only once the directory is back."""
    record, report, link = restore.record, restore.report, Path(restore.record.path)
    if restore.forget:
        journal.drop(record.key)
    if not restore.restore:
        return report
    staging = _stage(record, report)
    # Marks the swap as coffer's: a run cut after it finds a directory with this record
    # and knows the undo is done, not that someone replaced the link.
    journal.save(record.but(restoring=True))
    if swaps.exchange(staging, link):
        fsutil.remove_link(staging)  # ``staging`` now holds coffer's link
    else:
        # A directory cannot be renamed over a symlink: move the link aside first; a run
        # cut in between leaves both pieces, and ``recover`` finishes the swap.
        parked = swap.parked(link)
        fsutil.rename(link, parked)
        fsutil.rename(staging, link)
        fsutil.remove_link(parked)
    if record.before == "dir":
        backups.note_restored(journal.backups, link)  # what `coffer uninstall` checks
    journal.drop(record.key)
    return report


def _stage(record: JournalRecord, report: Report) -> Path:
    """The directory that takes the link's place: a copy of the tier, with what the merge
    left in the backups and the modes the agent's directory had."""
    link, tier_dir = Path(record.path), Path(record.link_target)
    staging = swap.staging(link)
    fsutil.ensure_dir(staging)
    if tier_dir.is_dir():
        for name in sorted(os.listdir(tier_dir)):
            src = tier_dir / name
            if src.is_file() and not src.is_symlink() and not fsutil.is_tmp_name(name):
                faults.step(f"copy {staging / name}")
                import shutil  # its compression modules cost more than most runs (ADR 0023)

                shutil.copy2(src, staging / name)
    kept = record.rest
    if kept is None and record.backup and os.path.isdir(record.backup):
        kept = backups.rest(Path(record.backup))  # a record from before coffer listed them
    # Subdirectories and links the merge left in the backups come back too: after the undo,
    # deleting the store must not take the only copy of anything (issue 10, point 7).
    told, failed = backups.restore_rest(kept or {}, staging)
    report.notices += [f"{link}: {line}" for line in told]
    if failed:
        why = (
            f"could not restore {'; '.join(failed)}: copy it back by hand before deleting the store"
        )
        report.problems.append(Problem(link, "refused", why))
    # The store is private (0700/0600); the agent's directory gets the modes it had.
    backups.restore_modes(staging, record.modes)
    return staging


def _record_merge(job: LinkJob, plan: merge.MergePlan) -> None:
    """The merged entries' provenance, ``merge:<adapter>``, beside the tier (docs/adr/0051)."""
    from coffer.store import agent_writes
    from coffer.store.projects import now_iso

    entries = merge.merged_entries(job.tier_dir, plan, renamed=True)
    agent_writes.record_merge(job.tier_dir.parent, entries, job.adapter, job.machine, now_iso())
