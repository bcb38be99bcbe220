"""Undoing a RENDER target: the block goes, and the file too if coffer created it and
nothing else is left; the original mtime comes back with the original bytes."""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path

from coffer.base import fsutil
from coffer.base.errors import BlockError
from coffer.base.report import Change, Problem, Report
from coffer.projection import managed_block
from coffer.projection.common import lstat_or_none, remove_created_dirs, restore_mtime, text_diff
from coffer.projection.journal import Journal, JournalRecord

_BOM = b"\xef\xbb\xbf"


@dataclass
class BlockUndo:
    """What undoing a block record would do. ``forget``: only the record goes (the block
    is already gone); ``new`` None: nothing may change (refused)."""

    record: JournalRecord
    report: Report = field(default_factory=Report)
    data: bytes = b""
    new: bytes | None = None
    delete: bool = False
    edited: bool = False
    forget: bool = False


def plan_undo(record: JournalRecord, *, force: bool) -> BlockUndo:
    """Decide how the block goes; the file is deleted only if coffer created it and
    nothing else is left."""
    out = BlockUndo(record)
    path = Path(record.path)
    st = lstat_or_none(path)
    if st is None:
        out.report.notices.append(f"{path}: already gone; nothing to undo")
        out.forget = True
        return out
    if not stat.S_ISREG(st.st_mode):
        why = "no longer a regular file; left alone and kept in the journal"
        out.report.problems.append(Problem(path, "refused", why))
        return out
    locked = fsutil.read_only(path)
    if locked is not None:
        out.report.problems.append(Problem(path, "refused", f"{locked} (the journal keeps it)"))
        return out
    out.data = fsutil.read_bytes_or_none(path) or b""
    try:
        span = managed_block.find(out.data)
    except BlockError as exc:
        why = f"{exc}; fix the markers, then run unproject again (the journal keeps this path)"
        out.report.problems.append(Problem(path, "refused", why))
        return out
    if span is None:
        out.report.notices.append(f"{path}: the coffer block was already removed")
        out.forget = True
        return out
    if span.edited and not force:
        why = (
            "the coffer block was edited by hand since coffer wrote it; "
            "keep what you need, then rerun with --force (the journal keeps this path)"
        )
        out.report.problems.append(Problem(path, "refused", why))
        return out
    out.edited = span.edited
    out.new = managed_block.remove(out.data)
    out.delete = record.created_file and (out.new in (b"", _BOM) or _only_team(out.new))
    out.report.changes.append(
        Change(
            path,
            "remove" if out.delete else "update",
            "the file coffer created" if out.delete else "without the coffer block",
            text_diff(path, out.data, None if out.delete else out.new),
        )
    )
    return out


def apply_undo(journal: Journal, undo: BlockUndo) -> Report:
    """Do what :func:`plan_undo` decided; the record goes only once the file is right."""
    record, path = undo.record, Path(undo.record.path)
    if undo.new is None and not undo.forget:
        return undo.report
    if undo.new is not None:
        if undo.edited:
            journal.backup_bytes(undo.data)
        if undo.delete:
            fsutil.unlink(path)
            remove_created_dirs(list(record.created_dirs))
        else:
            fsutil.atomic_write_bytes(path, undo.new, mode=None)
            restore_mtime(path, undo.new, record.before_sha256, record.before_mtime_ns)
    journal.drop(record.key)
    return undo.report


def _only_team(data: bytes) -> bool:
    """Nothing but the team block is left (docs/adr/0036): the file is still all coffer's.
    Its own record, undone next, finds the file gone and is dropped."""
    team = managed_block.TEAM
    try:
        return team.start in data and not managed_block.remove(data, team).strip(_BLANK)
    except BlockError:
        return False


_BLANK = b" \t\r\n\xef\xbb\xbf"
