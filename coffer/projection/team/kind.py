"""The team block as a journal kind: what `coffer unproject` does with a ``team`` record.

The block goes; the file goes too when coffer created it and nothing but blank lines is
left. A file holding both blocks is undone by two records in either order (the journal's
order of one path's records is its file names'), so the record that created the file
deletes it as soon as only the other block is left, and the other record then finds it
gone (docs/adr/0036). ``.coffer/memory/`` is never touched: it is the team's.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import fsutil
from coffer.base.errors import BlockError
from coffer.base.report import Change, Problem, Report

if TYPE_CHECKING:
    from coffer.projection.journal import Journal, JournalRecord
    from coffer.projection.run import Run, Undo

_BLANK = b" \t\r\n\xef\xbb\xbf"


def _without(data: bytes, created: bool) -> bytes:
    from coffer.projection import managed_block

    span = managed_block.find(data, managed_block.TEAM)
    assert span is not None
    new = managed_block.remove(data, managed_block.TEAM)
    # A block at the top of a file coffer created was followed by the separator the
    # personal block's append added: it goes with the block.
    if created and span.start == 0:
        for brk in (b"\r\n", b"\n"):
            if new.startswith(brk):
                return new[len(brk) :]
    return new


def _all_coffers(data: bytes) -> bool:
    """Nothing but blank lines and an unedited personal block is left: the file is still
    all coffer's. The personal block's record, undone next, finds the file gone."""
    from coffer.projection import managed_block

    if not data.strip(_BLANK):
        return True
    try:
        span = managed_block.find(data)
    except BlockError:
        return False
    if span is None or span.edited:
        return False
    return not managed_block.remove(data).strip(_BLANK)


def undo(
    journal: Journal, record: JournalRecord, *, dry_run: bool, force: bool, keep: bool = False
) -> Report:
    """Remove the team block of ``record``'s file. ``keep``: the personal block stays in
    use (the team tier went, the project did not), so a file coffer created is kept while
    it holds anything, and its personal record learns that coffer created it."""
    from coffer.projection import managed_block
    from coffer.projection.common import remove_created_dirs, text_diff

    report, path = Report(), Path(record.path)
    try:
        st = path.lstat()
        data = fsutil.read_bytes_or_none(path) if stat.S_ISREG(st.st_mode) else None
    except FileNotFoundError:
        st, data = None, None
    if st is not None and data is None:
        why = "no longer a regular file; left alone and kept in the journal"
        report.problems.append(Problem(path, "refused", why))
        return report
    try:
        span = managed_block.find(data, managed_block.TEAM) if data is not None else None
    except BlockError as exc:
        report.problems.append(Problem(path, "refused", f"team block: {exc}"))
        return report
    if data is None or span is None:
        if not dry_run:
            journal.drop(record.key)
        return report
    created = record.created_file
    new = _without(data, created)
    delete = created and (not new.strip(_BLANK) if keep else _all_coffers(new))
    detail = "the file coffer created" if delete else "without the team block"
    diff = text_diff(path, data, None if delete else new)
    report.changes.append(Change(path, "remove" if delete else "update", detail, diff))
    if dry_run:
        return report
    if delete:
        fsutil.unlink(path)
        remove_created_dirs(list(record.created_dirs))
    else:
        fsutil.atomic_write_bytes(path, new, mode=None)
        if created and keep:
            _hand_over(journal, record.path)
    journal.drop(record.key)
    return report


def _hand_over(journal: Journal, path: str) -> None:
    """Not during `unproject` (its records are read before any undo, so a change would be
    lost): only when the team tier went and the personal block carries on alone."""
    personal = journal.load(path)
    if personal is not None and not personal.created_file:
        journal.save(personal.but(created_file=True))


class Teams:
    """The ``team`` kind in coffer.projection.kinds.KINDS: undo only (establishing is
    coffer.projection.team.block, run once per project, not per file)."""

    def establish(self, run: Run, unit: object) -> Report:
        return Report()

    def undo(self, undo_: Undo, record: JournalRecord) -> Report:
        return undo(undo_.journal, record, dry_run=undo_.dry_run, force=undo_.force)

    def state(self, run: Run, unit: object) -> tuple[str, str]:
        return "ok", ""


TEAMS = Teams()
