"""Competing native memories: import what the agent remembered, then switch it off.

The adapter supplies pure byte transformations of its config file; this module does the
atomic write and records the exact previous values, so `coffer unproject` can put them back
(an absent key ends absent, an explicit value ends as it was).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from coffer.adapter import Imported, NativeMemory
from coffer.base import fsutil
from coffer.base.errors import CofferError, JournalError
from coffer.base.report import Change, Problem, Report
from coffer.projection.common import mtime_ns, now_iso, recorded_target, restore_mtime, text_diff
from coffer.projection.journal import Journal, JournalRecord, sha256
from coffer.store import Store, Tier
from coffer.store.entry import TYPES

if TYPE_CHECKING:
    from typing import Any


def key(adapter: str, config: Path) -> str:
    return f"native:{adapter}:{config}"


class NativeJob(NamedTuple):
    """One adapter's native memory to import and switch off."""

    store: Store
    global_tier: Tier
    adapter: str
    native: NativeMemory


class NativeSwitch:
    """What switching a native memory off would do. ``new`` is None when nothing is to
    be written (already off, or refused: ``problems`` says why)."""

    job: NativeJob
    config: Path | None
    data: bytes | None
    items: list[Imported]
    new: bytes | None
    previous: Mapping[str, Any]
    problems: list[Problem]
    broken: Problem | None  # the adapter's switch does not turn the memory off

    def __init__(self, job: NativeJob) -> None:
        self.job = job
        self.config = None
        self.data = None
        self.items = []
        self.new = None
        self.previous = {}
        self.problems = []
        self.broken = None


def plan(job: NativeJob) -> NativeSwitch:
    """Decide, without writing, what to import and how the switch is turned off."""
    out, native, adapter = NativeSwitch(job), job.native, job.adapter
    if native.keeps_on:  # nothing to switch: the items only
        out.items = list(native.imports())
        out.problems += [
            Problem(Path(i.source), "refused", i.refused) for i in out.items if i.refused
        ]
        return out
    try:
        # A dotfile manager's link: edit the file it points to; the link stays as it is.
        out.config = fsutil.edit_target(native.config)
    except CofferError as exc:
        why = f"{adapter}'s own memory stays on: {exc}"
        out.problems.append(Problem(native.config, "refused", why))
        return out
    out.data = fsutil.read_bytes_or_none(out.config)
    if not native.enabled(out.data):
        return out
    locked = fsutil.read_only(out.config)
    if locked is not None:
        out.problems += [Problem(native.config, "refused", locked), _stays_on(job)]
        return out
    out.items = list(native.imports())
    out.problems += [Problem(Path(i.source), "refused", i.refused) for i in out.items if i.refused]
    if out.problems:
        out.problems.append(_stays_on(job))
        return out
    try:
        new, out.previous = native.disable(out.data)
    except CofferError as exc:  # a config the adapter cannot edit safely (not plain JSON, …)
        out.problems.append(
            Problem(native.config, "refused", f"{adapter}'s own memory stays on: {exc}")
        )
        return out
    if native.enabled(new):
        # Verify the effect, not just the edit: a switch the agent does not read would leave
        # two memories diverging while coffer reports success.
        why = f"{adapter}'s adapter could not turn its memory off; nothing was changed"
        out.broken = Problem(native.config, "error", why)
        return out
    out.new = new
    return out


def _stays_on(job: NativeJob) -> Problem:
    # Do not switch off a memory we could not fully copy: that would hide facts.
    why = f"{job.adapter}'s own memory stays on until every item above can be imported"
    return Problem(job.native.config, "refused", why)


def preview(switch: NativeSwitch) -> Report:
    """What :func:`apply` would report (``coffer project --dry-run``)."""
    report = Report()
    for item in switch.items:
        if not item.refused:
            detail = f"{item.name} from {item.source}"
            report.changes.append(Change(switch.job.global_tier.dir, "import", detail))
    report.problems += switch.problems
    if switch.job.native.keeps_on and report.changes:
        report.notices.append(_kept_on(switch.job))
    if switch.broken is not None:
        report.problems.append(switch.broken)
    elif switch.new is not None:
        _describe_switch(report, switch, "would turn")
    return report


def _describe_switch(report: Report, switch: NativeSwitch, verb: str) -> None:
    native, adapter = switch.job.native, switch.job.adapter
    report.changes.append(
        Change(
            native.config,
            "disable",
            f"{adapter}'s own memory ({native.describe})",
            text_diff(native.config, switch.data, switch.new),
        )
    )
    report.alerts.append(
        f"coffer {verb} off {adapter}'s own memory ({native.describe} in {native.config}) "
        f"so the coffer store is its only memory; `coffer unproject --agent {adapter}` turns "
        "it back on exactly as it was."
    )


def _import(job: NativeJob, items: Sequence[Imported], report: Report) -> None:
    from coffer.store.drafts import RememberOptions  # only a run that imports a memory

    for item in items:
        detail = f"{item.name} from {item.source}"
        try:
            saved = job.store.remember(
                job.global_tier,
                item.body,
                name=item.name,
                description=item.description,
                type=item.type if item.type in TYPES else "reference",
                options=RememberOptions(
                    replace_existing=True,
                    extra={
                        "source": f"{job.adapter}:{item.source}",
                        "imported_at": now_iso(),
                        "origin": f"import:{job.adapter}",  # docs/adr/0051
                    },
                ),
            )
        except CofferError as exc:
            report.problems.append(Problem(Path(item.source), "refused", f"not imported: {exc}"))
            continue
        if saved.action != "unchanged":
            path = job.global_tier.dir / saved.entry.filename
            report.changes.append(Change(path, "import", detail))


def _kept_on(job: NativeJob) -> str:
    return (
        f"{job.adapter}'s own memory stays on ({job.native.keeps_on}); coffer imports it into "
        "the global tier at every session start"
    )


def _import_only(switch: NativeSwitch) -> Report:
    """A memory without a switch: import what can be imported, report the rest."""
    report, job = Report(), switch.job
    _import(job, [i for i in switch.items if not i.refused], report)
    report.problems += switch.problems
    if any(c.action == "import" for c in report.changes):
        report.notices.append(_kept_on(job))
    return report


def apply(journal: Journal, switch: NativeSwitch) -> Report:
    """Import, then switch off: journal first, then the atomic write."""
    report, job = Report(), switch.job
    if job.native.keeps_on:
        return _import_only(switch)
    if switch.problems or switch.config is None:
        report.problems += switch.problems
        return report
    _import(job, switch.items, report)
    if report.problems:
        report.problems.append(_stays_on(job))
        return report
    if switch.broken is not None:
        report.problems.append(switch.broken)
        return report
    if switch.new is None:
        return report
    _describe_switch(report, switch, "turned")
    record = _record(journal, switch)
    journal.save(record)
    if fsutil.read_bytes_or_none(switch.config) != switch.data:
        why = "the file changed while coffer was updating it; run `coffer project` again"
        report.problems.append(Problem(job.native.config, "refused", why))
        return report
    if switch.data is None:
        fsutil.ensure_dir(job.native.config.parent)
    fsutil.atomic_write_bytes(switch.config, switch.new, mode=None)
    journal.save(record.but(after_sha256=sha256(switch.new), updated_at=now_iso()))
    return report


def _record(journal: Journal, switch: NativeSwitch) -> JournalRecord:
    """The record to write before the switch: a new one, or the first run's with any new
    keys added (the values from before coffer first touched the file are kept)."""
    native, data, config = switch.job.native, switch.data, switch.config
    k = key(switch.job.adapter, native.config)
    record = journal.load(k)
    if record is not None:
        return record.but(previous={**switch.previous, **record.previous})
    if data is not None:
        journal.backup_bytes(data)
    link = fsutil.link_of(native.config)
    return JournalRecord(
        kind="native",
        key=k,
        path=str(native.config),
        tier="global",
        project_id=None,
        adapters=(switch.job.adapter,),
        previous=dict(switch.previous),
        created_file=data is None,
        before_sha256=None if data is None else sha256(data),
        before_mtime_ns=mtime_ns(config) if config is not None else None,
        created_at=now_iso(),
        link={"readlink": link, "target": str(config)} if link is not None else None,
    )


def _backup(journal: Journal, record: JournalRecord, report: Report) -> bytes | None:
    try:
        return journal.read_backup(str(record.before_sha256))
    except JournalError as exc:
        # The recorded previous values still undo coffer's switch exactly; only the
        # byte-for-byte shortcut is lost.
        report.notices.append(f"{record.path}: {exc}; restored from the values the journal keeps")
        return None


class NativeRestore:
    """What undoing a native record would do; ``target`` None: refused."""

    record: JournalRecord
    report: Report
    target: Path | None
    data: bytes | None
    new: bytes
    delete: bool

    def __init__(self, record: JournalRecord) -> None:
        self.record = record
        self.report = Report()
        self.target = None
        self.data = None
        self.new = b""
        self.delete = False


def plan_undo(
    journal: Journal, record: JournalRecord, native: NativeMemory | None
) -> NativeRestore:
    """Decide how the agent's own memory settings come back, exactly as they were."""
    out = NativeRestore(record)
    path, adapter = Path(record.path), record.adapters[0]
    if native is None:
        why = (
            f"the {adapter} adapter is not installed, so coffer cannot restore its settings; "
            "the journal keeps them"
        )
        out.report.problems.append(Problem(path, "refused", why))
        return out
    try:
        target = recorded_target(record.path, record.link)
    except CofferError as exc:
        out.report.problems.append(Problem(path, "refused", f"{exc} (the journal keeps this path)"))
        return out
    locked = fsutil.read_only(target)
    if locked is not None:
        out.report.problems.append(Problem(path, "refused", f"{locked} (the journal keeps it)"))
        return out
    out.data = fsutil.read_bytes_or_none(target)
    try:
        out.new = _restored(journal, record, native, out)
    except CofferError as exc:
        out.report.problems.append(Problem(path, "refused", f"{exc} (the journal keeps this path)"))
        return out
    out.target = target
    out.delete = record.created_file and not out.new.strip()
    if out.new != out.data or out.delete:
        diff = text_diff(path, out.data, None if out.delete else out.new)
        out.report.changes.append(Change(path, "restore", f"{adapter}'s own memory settings", diff))
    return out


def _restored(
    journal: Journal, record: JournalRecord, native: NativeMemory, out: NativeRestore
) -> bytes:
    data, new = out.data, None
    if (
        data is not None
        and sha256(data) == record.after_sha256
        and (record.created_file or record.before_sha256)
    ):
        # Untouched since coffer wrote it: put back the exact original bytes.
        new = b"" if record.created_file else _backup(journal, record, out.report)
    if new is None:
        new = native.restore(data, record.previous)
    return new


def apply_undo(journal: Journal, restore: NativeRestore) -> Report:
    """Do what :func:`plan_undo` decided; the record goes only once the file is right."""
    record, target = restore.record, restore.target
    if target is None:
        return restore.report
    if restore.delete and restore.data is not None:
        fsutil.unlink(Path(record.path))
    elif restore.new != restore.data:
        fsutil.atomic_write_bytes(target, restore.new, mode=None)
        restore_mtime(target, restore.new, record.before_sha256, record.before_mtime_ns)
    journal.drop(record.key)
    return restore.report
