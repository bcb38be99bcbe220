"""Applying one :class:`~coffer.setup.file_plan.FilePlan`: journal first (a record of
kind ``setup`` with the file's pre-image), then the new bytes swapped in only if the file
still holds what was read (``swaps.replace_if``). When another program wrote in between,
its bytes stay and coffer's edits are made again on them, up to :data:`ATTEMPTS` times
(docs/adr/0041); a file never written as coffer wanted leaves the journal as it was.
"""

from __future__ import annotations

import time
from pathlib import Path

from coffer.base import fsutil, swaps
from coffer.base.errors import CofferError
from coffer.base.report import Change, Problem, Report
from coffer.projection.common import ensure_parent, mtime_ns, now_iso
from coffer.projection.journal import Journal, JournalRecord, sha256
from coffer.setup import file_plan
from coffer.setup.config_docs import file_ending
from coffer.setup.file_plan import FilePlan, key

# Redos when another program keeps rewriting the file between coffer's read and its write.
ATTEMPTS = 8


def apply_file(journal: Journal, fp: FilePlan) -> Report:
    """Journal, then swap the new bytes in; when the file changed since it was read (since
    the plan, or in the instant before the swap), redo the edits on what is there now, so
    another program's write is never lost (docs/adr/0041)."""
    target = fsutil.edit_target(fp.path)
    k = key(fp.agent, fp.path)
    kept = journal.load(k)
    try:
        report = _swap_file(journal, fp, target)
    except CofferError:
        _put_back_record(journal, k, kept)
        raise
    if not report.ok:
        _put_back_record(journal, k, kept)
    return report


def _put_back_record(journal: Journal, k: str, kept: JournalRecord | None) -> None:
    """Never written as coffer wanted: the journal goes back to what it was."""
    if kept is None:
        journal.drop(k)
    else:
        journal.save(kept)


def _swap_file(journal: Journal, fp: FilePlan, target: Path) -> Report:
    report = Report()
    current = fsutil.read_bytes_or_none(target)
    for _ in range(ATTEMPTS):
        if current != fp.before:
            fp = file_plan.edited(journal, fp, current)  # CofferError: refused, nothing written
            if not fp.changed:
                return report  # the other program's version already has coffer's entries
        record = _record(journal, fp, target)
        journal.save(record)  # before the write: a crash leaves a record of what was there
        current = fsutil.read_bytes_or_none(target)
        if current != fp.before:
            continue  # changed while journaling: redo before anything is swapped
        mode = None if fp.before is not None else fsutil.PRIVATE_FILE_MODE
        written, current = swaps.replace_if(target, fp.after, fp.before, mode=mode)
        if written:
            journal.save(record.but(after_sha256=sha256(fp.after)))
            report.changes.append(
                Change(
                    fp.path,
                    "create" if fp.before is None else "update",
                    f"{fp.agent}: " + "; ".join(fp.whats),
                )
            )
            return report
        # Another program wrote in between: its bytes are back in place (replace_if), and
        # the edit is made again on them.
    report.problems.append(
        Problem(
            fp.path,
            "refused",
            f"another program kept rewriting it ({ATTEMPTS} times while coffer tried); left as "
            "that program wrote it: run coffer setup again",
        )
    )
    return report


def _record(journal: Journal, fp: FilePlan, target: Path) -> JournalRecord:
    """The record to journal before ``fp`` is written: the existing one brought up to date,
    or a new one holding the file's pre-image."""
    k = key(fp.agent, fp.path)
    record = journal.load(k)
    if record is not None and fp.before is None:
        record = None  # the file is gone: nothing of the old record is left to undo
    if record is None:
        if fp.before is not None:
            journal.backup_bytes(fp.before)
        link = fsutil.link_of(fp.path)
        record = JournalRecord(
            kind="setup",
            key=k,
            path=str(fp.path),
            format=fp.format,
            adapters=(fp.agent,),
            created_file=fp.before is None,
            before_sha256=None if fp.before is None else sha256(fp.before),
            before_mtime_ns=None if fp.before is None else mtime_ns(target),
            # None: nothing of the original to end the file with (see unwiring)
            eof=file_ending(fp.before) if fp.before and fp.before.strip() else None,
            created_at=now_iso(),
            link={"readlink": link, "target": str(target)} if link is not None else None,
        )
    elif fp.before is None or sha256(fp.before) != record.after_sha256:
        # Someone changed the file between coffer's writes: the pre-image no longer
        # describes everything that should survive an undo.
        record = record.but(exact=False)
    record = record.but(
        edits=tuple(fp.entries),
        updated_at=now_iso(),
        seq=time.time_ns(),  # orders writes within one second, for undo
    )
    if fp.before is None:
        record = record.but(created_dirs=tuple(ensure_parent(fp.path)))
    return record
