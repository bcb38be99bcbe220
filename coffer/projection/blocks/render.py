"""RENDER targets: one managed block per file, written atomically and journaled."""

from __future__ import annotations

import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from coffer.base import fsutil
from coffer.base.errors import BlockError
from coffer.base.report import Change, Problem, Report, plural
from coffer.projection import managed_block
from coffer.projection.blocks import content
from coffer.projection.common import (
    ensure_parent,
    lstat_or_none,
    mtime_ns,
    now_iso,
    text_diff,
)
from coffer.projection.journal import Journal, JournalRecord, sha256
from coffer.store import Entry

_BOM = b"\xef\xbb\xbf"
# Room the markers, digest line and separators take around the body.
_FRAME = 160
_MIN_ROOM = 600


def room_for(data: bytes | None, max_bytes: int | None) -> int:
    """Bytes of body the block may use so the whole file stays within ``max_bytes``."""
    if max_bytes is None:
        return content.DEFAULT_BUDGET
    outside = len(data or b"")
    if data:
        try:
            span = managed_block.find(data)
        except BlockError:
            span = None  # malformed markers: writing refuses the file; judging says so
        if span is not None:
            outside -= span.end - span.start
    return min(content.DEFAULT_BUDGET, max_bytes - outside - _FRAME)


class BlockJob(NamedTuple):
    """One file's block to establish: what it shows and for whom."""

    path: Path
    adapters: tuple[str, ...]
    tier: str
    project_id: str | None
    title: str
    entries: Sequence[Entry]
    max_bytes: int | None
    handoffs: Sequence[content.Handoff] = ()
    replace_edited: bool = False


class BlockWrite:
    """What establishing a block would do: ``report`` says it; ``new`` is None when the
    block is current (then only the journal may learn of it)."""

    job: BlockJob
    data: bytes | None
    record: JournalRecord | None
    new: bytes | None
    edited: bool
    empty: bool  # not written: nothing to show and no block yet
    foreign: bool  # the edited block is not one coffer wrote here (issue 22.10)
    report: Report

    def __init__(
        self, job: BlockJob, data: bytes | None, edited: bool = False, foreign: bool = False
    ) -> None:
        self.job = job
        self.data = data
        self.record = None
        self.new = None
        self.edited = edited
        self.empty = False
        self.foreign = foreign
        self.report = Report()


def empty(job: BlockJob) -> bool:
    """Whether the block would show nothing at all: no entries, no handoffs."""
    return not job.entries and not job.handoffs


def _foreign(path: Path) -> Problem | None:
    st = lstat_or_none(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        why = f"{kind}; coffer writes only regular files it can restore, so it left this alone"
        return Problem(path, "foreign", why)
    locked = fsutil.read_only(path)
    return None if locked is None else Problem(path, "refused", locked)


def _committed_block(path: Path, body: str) -> bool:
    """Whether the committed (HEAD) version of ``path`` holds a block with this ``body``.

    coffer's own blocks never reach a commit (the clean filter strips them, docs/adr/0015):
    a block git has is someone else's, committed where their filter did not run."""
    from coffer.projection.git import repo

    found = repo.locate(path)
    rel = repo.relative(found, path) if found is not None else None
    if found is None or rel is None:
        return False
    shown = repo.git(found.top, "show", f"HEAD:{rel}")
    if shown is None or shown.returncode != 0:
        return False
    try:
        span = managed_block.find(shown.stdout)
    except BlockError:
        return False
    return span is not None and span.body == body


def is_foreign(journal: Journal, path: Path, span: managed_block.BlockSpan) -> bool:
    """A block with a bad digest that coffer did not write here: this file has no record of
    a block coffer wrote, or the block is the one git has committed."""
    if not span.edited:
        return False

    return journal.load(path) is None or _committed_block(path, span.body)


def _refusal(
    journal: Journal, path: Path, data: bytes | None, job: BlockJob
) -> tuple[Problem | None, bool, bool]:
    """Why the block in ``data`` cannot be written, whether it was edited by hand, and
    whether it is a foreign block (then it is replaced, never trusted, never a reason to
    stop: issue 22.10)."""
    try:
        span = managed_block.find(data) if data else None
    except BlockError as exc:
        why = f"{exc}; fix the markers by hand (coffer will not guess which text is yours)"
        return Problem(path, "malformed", why), False, False
    edited = span is not None and span.edited
    foreign = span is not None and is_foreign(journal, path, span)
    if edited and not foreign and not job.replace_edited:
        why = (
            "the coffer block was edited by hand since coffer wrote it, so it was not "
            'overwritten. Save anything you added with `coffer remember "…"`, then run '
            "`coffer project --replace-edited` (the edited block is backed up first)"
        )
        return Problem(path, "drifted", why), edited, False
    if room_for(data, job.max_bytes) < _MIN_ROOM:
        why = (
            f"the file already uses {len(data or b'')} of the {job.max_bytes} bytes the agent "
            "reads, leaving no room for memory; shorten it or move text elsewhere"
        )
        return Problem(path, "over-budget", why), edited, foreign
    return None, edited, foreign


def plan(journal: Journal, job: BlockJob) -> BlockWrite:
    """Decide, without writing, what the block of ``job.path`` becomes."""
    path = job.path
    foreign = _foreign(path)
    if foreign is not None:
        out = BlockWrite(job, None)
        out.report.problems.append(foreign)
        return out
    data = fsutil.read_bytes_or_none(path)
    problem, edited, someone_elses = _refusal(journal, path, data, job)
    out = BlockWrite(job, data, edited=edited, foreign=someone_elses)
    if problem is not None:
        out.report.problems.append(problem)
        return out

    out.record = journal.load(path)
    if out.record is None and empty(job) and not (data and managed_block.find(data)):
        # Nothing to show and no block yet: an empty block would only cost the agent's
        # context at every session start. The tier's first entry writes it (docs/adr/0045).
        out.empty = True
        return out
    rendered = content.render(
        job.title, job.tier, job.entries, room_for(data, job.max_bytes), job.handoffs
    )
    _notices(out.report, job, rendered)
    new = managed_block.upsert(data, rendered.body)
    if new != data:
        out.new = new
        action = "create" if data is None else "update"
        shown = rendered.shown_full + rendered.shown_line
        detail = plural(shown, f"{job.tier} entry", f"{job.tier} entries")
        out.report.changes.append(Change(path, action, detail, text_diff(path, data, new)))
    return out


def _notices(report: Report, job: BlockJob, rendered: content.BlockBody) -> None:
    if rendered.omitted:
        limit = (
            f"the agent reads at most {job.max_bytes} bytes"
            if job.max_bytes
            else "the block budget"
        )
        names = ", ".join(rendered.omitted[:5]) + ("…" if len(rendered.omitted) > 5 else "")
        count = plural(len(rendered.omitted), "entry", "entries")
        report.notices.append(
            f"{job.path}: {count} did not fit ({limit}); listed as a count: {names}"
        )
    if rendered.withheld_secrets:
        report.notices.append(
            f"{job.path}: not rendered because they look like secrets: "
            f"{', '.join(rendered.withheld_secrets)} (see `coffer doctor`)"
        )


def apply(journal: Journal, write: BlockWrite) -> Report:
    """Do what :func:`plan` decided: journal first, then the atomic write."""
    report, job, data, path = write.report, write.job, write.data, write.job.path
    record = write.record
    if report.problems or write.empty:
        return report
    if write.new is None:
        if record is None:
            # A current block with no record (journal lost or block copied in): adopt it,
            # but never claim the file as ours to delete.
            adopted = _new_record(journal, job, data, created=False, dirs=[])
            journal.save(adopted.but(after_sha256=sha256(data or b"")))
        else:
            _merge_adapters(journal, record, job.adapters)
        return report
    if write.foreign and data is not None:
        backup = journal.backup_bytes(data)
        report.notices.append(
            f"{path}: held a coffer block that coffer did not write here (its digest does "
            "not match; someone else's, committed or copied in). It was not trusted and was "
            f"replaced by your block; the file as it was is saved to {backup}"
        )
    elif write.edited and data is not None:
        backup = journal.backup_bytes(data)
        report.notices.append(f"{path}: the hand-edited version was saved to {backup}")
    dirs = ensure_parent(path) if data is None else []
    if record is None:
        record = _new_record(journal, job, data, created=data is None, dirs=dirs)
    record = record.but(adapters=tuple(sorted(set(record.adapters) | set(job.adapters))))
    journal.save(record)  # before the write: a crash leaves a record of what was there
    if fsutil.read_bytes_or_none(path) != data:
        # Someone wrote the file while coffer was rendering: never replace unseen bytes.
        report.changes.pop()
        report.problems.append(
            Problem(
                path,
                "refused",
                "the file changed while coffer was updating it; run `coffer project` again",
            )
        )
        return report
    fsutil.atomic_write_bytes(path, write.new, mode=None)
    journal.save(record.but(after_sha256=sha256(write.new), updated_at=now_iso()))
    return report


def _merge_adapters(journal: Journal, record: JournalRecord, adapters: Sequence[str]) -> None:
    merged = tuple(sorted(set(record.adapters) | set(adapters)))
    if merged != record.adapters:
        journal.save(record.but(adapters=merged))


def _new_record(
    journal: Journal, job: BlockJob, data: bytes | None, *, created: bool, dirs: list[str]
) -> JournalRecord:
    before = None if data is None else sha256(data)
    if data is not None:
        journal.backup_bytes(data)
    return JournalRecord(
        kind="block",
        key=str(job.path),
        path=str(job.path),
        tier=job.tier,
        project_id=job.project_id,
        adapters=tuple(sorted(job.adapters)),
        created_file=created,
        created_dirs=tuple(dirs),
        before_sha256=before,
        before_mtime_ns=mtime_ns(job.path) if data is not None else None,
        created_at=now_iso(),
        updated_at=now_iso(),
    )


def state(path: Path, expected_body: str | None) -> tuple[str, str]:
    """(state, detail) of a RENDER target, for `coffer adapter list`."""
    st = lstat_or_none(path)
    if st is None:
        return "missing", "file does not exist yet"
    if not stat.S_ISREG(st.st_mode):
        return "foreign", "not a regular file"
    data = fsutil.read_bytes_or_none(path) or b""
    try:
        span = managed_block.find(data)
    except BlockError as exc:
        return "drifted", f"malformed markers: {exc}"
    if span is None:
        return "missing", "no coffer block in the file"
    if span.edited and _committed_block(path, span.body):
        return "foreign", "a block someone else committed; `coffer project` replaces it"
    if span.edited:
        return "drifted", "block edited by hand"
    if expected_body is not None and not managed_block.is_current(data, expected_body):
        return "stale", "behind the entries (run `coffer project`)"
    return "ok", ""
