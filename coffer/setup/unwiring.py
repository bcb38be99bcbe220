"""`coffer setup --undo`: reverse what setup wrote into the agents' configs, from the journal.

Exact when the file is as setup left it (the original bytes come back); otherwise only
coffer's own entries are removed, and an entry someone edited since is refused, never
guessed at (docs/adr/0009).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

from coffer.base import fsutil, swaps
from coffer.base.errors import CofferError, InvalidInputError
from coffer.base.report import Change, Problem, Report
from coffer.projection import common
from coffer.projection.common import remove_created_dirs, restore_mtime, text_diff
from coffer.projection.journal import Journal, JournalRecord, sha256
from coffer.setup.config_docs import EntryChanged, load, remove_edit
from coffer.setup.file_apply import ATTEMPTS
from coffer.setup.file_plan import KIND


def records(journal: Journal, agents: Iterable[str] = ()) -> list[JournalRecord]:
    """Setup records, newest first (so chained exact restores line up)."""
    wanted = set(agents)
    out = [
        r
        for r in journal.load_all()
        if r.kind == "setup" and (not wanted or wanted & set(r.adapters))
    ]
    return sorted(out, key=lambda r: (r.updated_at or "", r.seq), reverse=True)


def undo(journal: Journal, agents: Iterable[str] = (), *, dry_run: bool = False) -> Report:
    """Reverse what setup wrote. A refused path keeps its record and is reported."""
    report = Report()
    dirs: list[str] = []
    for record in records(journal, agents):
        try:
            report.extend(_undo_record(journal, record, dry_run=dry_run))
        except CofferError as exc:
            report.problems.append(
                Problem(Path(record.path), "refused", f"{exc} (the journal keeps this path)")
            )
            continue
        if journal.get(record.key) is None:
            dirs += record.created_dirs
    wanted = set(agents)
    for damage in journal.damaged():
        if damage.kind in (KIND, None) and not (
            wanted and damage.adapters and not wanted & set(damage.adapters)
        ):
            advice = damage.advice(journal.backups)
            report.problems.append(Problem(Path(damage.target), "damaged", advice))
    if not dry_run:
        # A directory created for one file may have held another coffer file: try again
        # once every file is gone (still only directories coffer created, only if empty).
        for d in sorted(set(dirs), key=len, reverse=True):
            with contextlib.suppress(OSError):
                fsutil.rmdir(Path(d))
    return report


def undo_one(journal: Journal, key: str, *, dry_run: bool = False) -> Report:
    """Reverse exactly the one setup edit journaled under ``key`` (the other agents' wiring
    stays); a refused path keeps its record and is reported, as :func:`undo` does."""
    record = journal.load(key)
    if record is None or record.kind != "setup":
        raise InvalidInputError(f"no setup edit is journaled for {key}")
    try:
        report = _undo_record(journal, record, dry_run=dry_run)
    except CofferError as exc:
        report = Report()
        report.problems.append(
            Problem(Path(record.path), "refused", f"{exc} (the journal keeps this path)")
        )
        return report
    if not dry_run and journal.get(record.key) is None:
        for d in sorted(record.created_dirs, key=len, reverse=True):
            with contextlib.suppress(OSError):
                fsutil.rmdir(Path(d))
        _hand_over_dirs(journal, record)
    return report


def _hand_over_dirs(journal: Journal, gone: JournalRecord) -> None:
    """A directory ``gone`` created that still holds another coffer file (a skill's
    ``SKILL.md`` undone before its ``agents/openai.yaml``) goes on that file's record, so
    undoing it last removes the directory too; :func:`undo` instead retries every directory
    once all records are done, which one record's undo cannot wait for."""
    left = [d for d in gone.created_dirs if Path(d).is_dir()]
    if not left:
        return
    for other in records(journal):
        inside = [d for d in left if Path(d) in Path(other.path).parents]
        if inside:
            dirs = tuple(dict.fromkeys((*other.created_dirs, *inside)))
            journal.save(other.but(created_dirs=dirs))


def _undo_record(journal: Journal, record: JournalRecord, *, dry_run: bool) -> Report:
    path = Path(record.path)
    target = common.recorded_target(record.path, record.link)
    locked = fsutil.read_only(target)
    if locked is not None:
        raise CofferError(locked)
    data = fsutil.read_bytes_or_none(target)
    for _ in range(ATTEMPTS):
        report = Report()
        if data is None:
            report.notices.append(f"{path}: already gone; nothing to undo")
            if not dry_run:
                remove_created_dirs(list(record.created_dirs))
                journal.drop(record.key)
            return report
        planned = _undone(journal, record, data, path, report)
        if planned is None:
            if not report.problems and not dry_run:
                journal.drop(record.key)  # coffer's entries were already removed
            return report
        new, how = planned
        report.changes.append(
            Change(
                path,
                "remove" if new is None else "restore",
                f"{', '.join(record.adapters)}: {how}",
                text_diff(path, data, new),
            )
        )
        if dry_run:
            return report
        found = _write(target, data, new)
        if found == data:
            if new is None:
                remove_created_dirs(list(record.created_dirs))
            elif new != data:
                restore_mtime(target, new, record.before_sha256, record.before_mtime_ns)
            journal.drop(record.key)
            return report
        data = found  # another program wrote it meanwhile: its bytes are back; undo again
    raise CofferError(
        f"another program kept rewriting it ({ATTEMPTS} times while coffer tried); left as "
        "that program wrote it"
    )


def _write(target: Path, data: bytes, new: bytes | None) -> bytes | None:
    """``new`` in place of ``data`` (None: the file removed); what was there instead when
    another program changed the file since it was read (then its bytes stay)."""
    if new == data:
        return data
    if new is None:
        removed, found = swaps.unlink_if(target, data)
    else:
        removed, found = swaps.replace_if(target, new, data, mode=None)
    return data if removed else found


def _undone(
    journal: Journal, record: JournalRecord, data: bytes, path: Path, report: Report
) -> tuple[bytes | None, str] | None:
    """What ``data`` becomes (None: the file goes) and how it is described; None when there
    is nothing to write (``report`` says why)."""
    if record.exact and sha256(data) == record.after_sha256:
        # Untouched since coffer wrote it: put back the exact original bytes.
        before = record.before_sha256
        new = None if record.created_file else journal.read_backup(str(before))
        return new, "the original bytes" if new is not None else "the file coffer created"
    try:
        edited = _without_entries(record, data, path)
    except EntryChanged as exc:
        report.problems.append(
            Problem(
                path,
                "refused",
                f"{', '.join(record.adapters)}: {exc}; fix or remove it by hand, then run "
                "`coffer setup --undo` again (the journal keeps this path)",
            )
        )
        return None
    if edited is None:
        report.notices.append(f"{path}: coffer's entries were already removed")
    return edited


def _without_entries(
    record: JournalRecord, data: bytes, path: Path
) -> tuple[bytes | None, str] | None:
    """The file changed since setup: its bytes minus coffer's entries (None for "gone"), or
    None when they were already removed. Raises ``EntryChanged`` when an entry was edited."""
    doc = load(record.format, data, path)
    removed = [remove_edit(doc, e) for e in reversed(record.edits)]
    if not any(removed):
        return None
    if record.created_file and doc.empty():
        return None, "the file coffer created"
    new = doc.dump()
    if record.format == "toml" and new.strip() and record.eof is not None:
        # tomlkit may leave the blank line it put before coffer's table at the end.
        # (An empty original got none: what ends the file now is someone else's.)
        new = new.rstrip() + record.eof.encode()
    return new, "without coffer's entries (the file changed since, so only those)"
