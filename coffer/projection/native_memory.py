"""Competing native memories: import what the agent remembered, then switch it off.

The adapter supplies pure byte transformations of its config file; this module does the
atomic write and records the exact previous values, so `coffer unproject` can put them back
(an absent key ends absent, an explicit value ends as it was).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coffer import fsutil
from coffer.adapter import NativeMemory
from coffer.errors import CofferError, JournalError
from coffer.projection.common import mtime_ns, now_iso, recorded_target, restore_mtime, text_diff
from coffer.projection.journal import Journal, Record, sha256
from coffer.report import Change, Problem, Report
from coffer.store.drafts import RememberOptions
from coffer.store.store import Store, Tier


def key(adapter: str, config: Path) -> str:
    return f"native:{adapter}:{config}"


def establish(
    journal: Journal,
    store: Store,
    global_tier: Tier,
    adapter: str,
    native: NativeMemory,
    *,
    dry_run: bool = False,
) -> Report:
    report = Report()
    try:
        # A dotfile manager's link: edit the file it points to; the link stays as it is.
        config = fsutil.edit_target(native.config)
    except CofferError as exc:
        report.problems.append(
            Problem(native.config, "refused", f"{adapter}'s own memory stays on: {exc}")
        )
        return report
    data = fsutil.read_bytes_or_none(config)
    if not native.enabled(data):
        return report
    for item in native.imports():
        detail = f"{item.name} from {item.source}"
        if item.refused:
            report.problems.append(Problem(Path(item.source), "refused", item.refused))
            continue
        if dry_run:
            report.changes.append(Change(global_tier.dir, "import", detail))
            continue
        try:
            saved = store.remember(
                global_tier,
                item.body,
                name=item.name,
                description=item.description,
                type="reference",
                options=RememberOptions(
                    replace_existing=True,
                    extra={"source": f"{adapter}:{item.source}", "imported_at": now_iso()},
                ),
            )
        except CofferError as exc:
            report.problems.append(Problem(Path(item.source), "refused", f"not imported: {exc}"))
            continue
        if saved.action != "unchanged":
            report.changes.append(Change(global_tier.dir / saved.entry.filename, "import", detail))
    if any(p.state == "refused" for p in report.problems):
        # Do not switch off a memory we could not fully copy: that would hide facts.
        report.problems.append(
            Problem(
                native.config,
                "refused",
                f"{adapter}'s own memory stays on until every item above can be imported",
            )
        )
        return report
    new, previous = native.disable(data)
    if native.enabled(new):
        # Verify the effect, not just the edit: a switch the agent does not read would leave
        # two memories diverging while coffer reports success.
        report.problems.append(
            Problem(
                native.config,
                "error",
                f"{adapter}'s adapter could not turn its memory off; nothing was changed",
            )
        )
        return report
    report.changes.append(
        Change(
            native.config,
            "disable",
            f"{adapter}'s own memory ({native.describe})",
            text_diff(native.config, data, new),
        )
    )
    verb = "would turn" if dry_run else "turned"
    report.alerts.append(
        f"coffer {verb} off {adapter}'s own memory ({native.describe} in {native.config}) "
        f"so the coffer store is its only memory; `coffer unproject --agent {adapter}` turns "
        "it back on exactly as it was."
    )
    if dry_run:
        return report
    k = key(adapter, native.config)
    record: Record | None = journal.get(k)
    if record is None:
        if data is not None:
            journal.backup_bytes(data)
        record = {
            "key": k,
            "path": str(native.config),
            "kind": "native",
            "tier": "global",
            "project_id": None,
            "adapters": [adapter],
            "previous": previous,
            "created_file": data is None,
            "before_sha256": None if data is None else sha256(data),
            "before_mtime_ns": mtime_ns(config),
            "created_at": now_iso(),
        }
        link = fsutil.link_of(native.config)
        if link is not None:
            record["link"] = {"readlink": link, "target": str(config)}
    else:
        # Keep the values from before coffer first touched the file; add any new keys.
        merged: dict[str, Any] = dict(previous)
        merged.update(record.get("previous", {}))
        record["previous"] = merged
    journal.put(record)
    if fsutil.read_bytes_or_none(config) != data:
        report.problems.append(
            Problem(
                native.config,
                "refused",
                "the file changed while coffer was updating it; run `coffer project` again",
            )
        )
        return report
    if data is None:
        fsutil.ensure_dir(native.config.parent)
    fsutil.atomic_write_bytes(config, new, mode=None)
    record["after_sha256"] = sha256(new)
    record["updated_at"] = now_iso()
    journal.put(record)
    return report


def _backup(journal: Journal, record: Record, report: Report) -> bytes | None:
    try:
        return journal.read_backup(record["before_sha256"])
    except JournalError as exc:
        # The recorded previous values still undo coffer's switch exactly; only the
        # byte-for-byte shortcut is lost.
        report.notices.append(
            f"{record['path']}: {exc}; restored from the values the journal keeps"
        )
        return None


def undo(journal: Journal, record: Record, native: NativeMemory | None, *, dry_run: bool) -> Report:
    report = Report()
    path = Path(record["path"])
    adapter = record["adapters"][0]
    if native is None:
        report.problems.append(
            Problem(
                path,
                "refused",
                f"the {adapter} adapter is not "
                "installed, so coffer cannot restore its settings; "
                "the journal keeps them",
            )
        )
        return report
    try:
        target = recorded_target(record)
    except CofferError as exc:
        report.problems.append(Problem(path, "refused", f"{exc} (the journal keeps this path)"))
        return report
    data = fsutil.read_bytes_or_none(target)
    try:
        new = None
        if (
            data is not None
            and sha256(data) == record.get("after_sha256")
            and (record.get("created_file") or record.get("before_sha256"))
        ):
            # Untouched since coffer wrote it: put back the exact original bytes.
            new = b"" if record.get("created_file") else _backup(journal, record, report)
        if new is None:
            new = native.restore(data, record.get("previous", {}))
    except CofferError as exc:
        report.problems.append(Problem(path, "refused", f"{exc} (the journal keeps this path)"))
        return report
    delete = bool(record.get("created_file")) and not new.strip()
    if new != data or delete:
        report.changes.append(
            Change(
                path,
                "restore",
                f"{adapter}'s own memory settings",
                text_diff(path, data, None if delete else new),
            )
        )
    if dry_run:
        return report
    if delete and data is not None:
        fsutil.unlink(path)
    elif new != data:
        fsutil.atomic_write_bytes(target, new, mode=None)
        restore_mtime(target, new, record.get("before_sha256"), record.get("before_mtime_ns"))
    journal.drop(record["key"])
    return report
