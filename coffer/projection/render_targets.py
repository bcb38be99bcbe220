"""RENDER targets: one managed block per file, written atomically and journaled."""

from __future__ import annotations

import stat
from collections.abc import Sequence
from pathlib import Path

from coffer import fsutil
from coffer.errors import BlockError
from coffer.projection import block_content, block_format
from coffer.projection.common import (
    ensure_parent,
    lstat_or_none,
    mtime_ns,
    now_iso,
    remove_created_dirs,
    restore_mtime,
    text_diff,
)
from coffer.projection.journal import Journal, Record, sha256
from coffer.report import Change, Problem, Report, plural
from coffer.store.entry import Entry

_BOM = b"\xef\xbb\xbf"
# Room the markers, digest line and separators take around the body.
_FRAME = 160
_MIN_ROOM = 600


def room_for(data: bytes | None, max_bytes: int | None) -> int:
    """Bytes of body the block may use so the whole file stays within ``max_bytes``."""
    if max_bytes is None:
        return block_content.DEFAULT_BUDGET
    outside = len(data or b"")
    if data:
        span = block_format.find(data)
        if span is not None:
            outside -= span.end - span.start
    return min(block_content.DEFAULT_BUDGET, max_bytes - outside - _FRAME)


def establish(
    journal: Journal,
    path: Path,
    adapters: Sequence[str],
    tier: str,
    project_id: str | None,
    title: str,
    entries: Sequence[Entry],
    max_bytes: int | None,
    handoffs: Sequence[block_content.Handoff] = (),
    *,
    dry_run: bool = False,
    replace_edited: bool = False,
) -> Report:
    """Make ``path`` hold an up-to-date block; never touches a byte outside it."""
    report = Report()
    st = lstat_or_none(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        report.problems.append(
            Problem(
                path,
                "foreign",
                f"{kind}; coffer writes only regular files it can restore, so it left this alone",
            )
        )
        return report
    data = fsutil.read_bytes_or_none(path)
    try:
        span = block_format.find(data) if data else None
    except BlockError as exc:
        report.problems.append(
            Problem(
                path,
                "malformed",
                f"{exc}; fix the markers by hand (coffer will not guess which text is yours)",
            )
        )
        return report
    if span is not None and span.edited and not replace_edited:
        report.problems.append(
            Problem(
                path,
                "drifted",
                "the coffer block was edited by hand since coffer wrote it, so it was not "
                'overwritten. Save anything you added with `coffer remember "…"`, then run '
                "`coffer project --replace-edited` (the edited block is backed up first)",
            )
        )
        return report
    room = room_for(data, max_bytes)
    if room < _MIN_ROOM:
        report.problems.append(
            Problem(
                path,
                "over-budget",
                f"the file already uses {len(data or b'')} of the {max_bytes} bytes the agent "
                "reads, leaving no room for memory; shorten it or move text elsewhere",
            )
        )
        return report
    rendered = block_content.render(title, tier, entries, room, handoffs)
    if rendered.omitted:
        limit = f"the agent reads at most {max_bytes} bytes" if max_bytes else "the block budget"
        names = ", ".join(rendered.omitted[:5]) + ("…" if len(rendered.omitted) > 5 else "")
        report.notices.append(
            f"{path}: {plural(len(rendered.omitted), 'entry', 'entries')} did not fit ({limit}); "
            f"listed as a count: {names}"
        )
    if rendered.withheld_secrets:
        report.notices.append(
            f"{path}: not rendered because they look like secrets: "
            f"{', '.join(rendered.withheld_secrets)} (see `coffer doctor`)"
        )
    new = block_format.upsert(data, rendered.body)
    record = journal.get(path)
    if new == data:
        if record is None and not dry_run:
            # A current block with no record (journal lost or block copied in): adopt it,
            # but never claim the file as ours to delete.
            journal.put(
                _new_record(
                    path, adapters, tier, project_id, data, created=False, dirs=[], journal=journal
                )
                | {"after_sha256": sha256(new)}
            )
        elif record is not None and not dry_run:
            _merge_adapters(journal, record, adapters)
        return report
    action = "create" if data is None else "update"
    detail = plural(rendered.shown_full + rendered.shown_line, f"{tier} entry", f"{tier} entries")
    report.changes.append(Change(path, action, detail, text_diff(path, data, new)))
    if dry_run:
        return report
    if span is not None and span.edited and data is not None:
        backup = journal.backup_bytes(data)
        report.notices.append(f"{path}: the hand-edited version was saved to {backup}")
    dirs = ensure_parent(path) if data is None else []
    if record is None:
        record = _new_record(
            path, adapters, tier, project_id, data, created=data is None, dirs=dirs, journal=journal
        )
    record["adapters"] = sorted(set(record.get("adapters", [])) | set(adapters))
    journal.put(record)  # before the write: a crash leaves a record of what was there
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
    fsutil.atomic_write_bytes(path, new, mode=None)
    record["after_sha256"] = sha256(new)
    record["updated_at"] = now_iso()
    journal.put(record)
    return report


def _merge_adapters(journal: Journal, record: Record, adapters: Sequence[str]) -> None:
    merged = sorted(set(record.get("adapters", [])) | set(adapters))
    if merged != record.get("adapters"):
        record["adapters"] = merged
        journal.put(record)


def _new_record(
    path: Path,
    adapters: Sequence[str],
    tier: str,
    project_id: str | None,
    data: bytes | None,
    *,
    created: bool,
    dirs: list[str],
    journal: Journal,
) -> Record:
    before = None if data is None else sha256(data)
    if data is not None:
        journal.backup_bytes(data)
    return {
        "key": str(path),
        "path": str(path),
        "kind": "block",
        "tier": tier,
        "project_id": project_id,
        "adapters": sorted(adapters),
        "created_file": created,
        "created_dirs": dirs,
        "before_sha256": before,
        "before_mtime_ns": mtime_ns(path) if data is not None else None,
        "after_sha256": None,
        "created_at": now_iso(),
        "updated_at": now_iso(),
    }


def state(path: Path, expected_body: str | None) -> tuple[str, str]:
    """(state, detail) of a RENDER target, for `coffer adapter list`."""
    st = lstat_or_none(path)
    if st is None:
        return "missing", "file does not exist yet"
    if not stat.S_ISREG(st.st_mode):
        return "foreign", "not a regular file"
    data = fsutil.read_bytes_or_none(path) or b""
    try:
        span = block_format.find(data)
    except BlockError as exc:
        return "drifted", f"malformed markers: {exc}"
    if span is None:
        return "missing", "no coffer block in the file"
    if span.edited:
        return "drifted", "block edited by hand"
    if expected_body is not None and not block_format.is_current(data, expected_body):
        return "drifted", "block is stale (run `coffer project`)"
    return "ok", ""


def undo(journal: Journal, record: Record, *, dry_run: bool, force: bool) -> Report:
    """Remove the block; delete the file only if coffer created it and nothing else is left."""
    report = Report()
    path = Path(record["path"])
    st = lstat_or_none(path)
    if st is None:
        report.notices.append(f"{path}: already gone; nothing to undo")
        if not dry_run:
            journal.drop(record["key"])
        return report
    if not stat.S_ISREG(st.st_mode):
        report.problems.append(
            Problem(path, "refused", "no longer a regular file; left alone and kept in the journal")
        )
        return report
    data = fsutil.read_bytes_or_none(path) or b""
    try:
        span = block_format.find(data)
    except BlockError as exc:
        report.problems.append(
            Problem(
                path,
                "refused",
                f"{exc}; fix the markers, then run unproject again (the journal keeps this path)",
            )
        )
        return report
    if span is None:
        report.notices.append(f"{path}: the coffer block was already removed")
        if not dry_run:
            journal.drop(record["key"])
        return report
    if span.edited and not force:
        report.problems.append(
            Problem(
                path,
                "refused",
                "the coffer block was edited by hand since coffer wrote it; "
                "keep what you need, then rerun with --force (the journal keeps this path)",
            )
        )
        return report
    new = block_format.remove(data)
    delete = bool(record.get("created_file")) and new in (b"", _BOM)
    report.changes.append(
        Change(
            path,
            "remove" if delete else "update",
            "the file coffer created" if delete else "without the coffer block",
            text_diff(path, data, None if delete else new),
        )
    )
    if dry_run:
        return report
    if span.edited:
        journal.backup_bytes(data)
    if delete:
        fsutil.unlink(path)
        remove_created_dirs(list(record.get("created_dirs", [])))
    else:
        fsutil.atomic_write_bytes(path, new, mode=None)
        restore_mtime(path, new, record.get("before_sha256"), record.get("before_mtime_ns"))
    journal.drop(record["key"])
    return report
