"""SYMLINK targets: an agent's memory directory becomes a link to a tier directory.

Before a real directory is replaced, every file in it is copied into the tier (same bytes;
a name taken by different content is kept as ``<stem>.imported-<n><suffix>``), each copy is
verified, hand-written ``MEMORY.md`` lines are carried over, and only then is the original
directory moved, whole, into coffer's backups. A failure before that leaves it untouched.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

from coffer import fsutil, index
from coffer.journal import Journal, Record, sha256
from coffer.projection.common import ensure_parent, lstat_or_none, now_iso
from coffer.report import Change, Problem, Report


def _points_to(path: Path, target: Path) -> bool:
    try:
        return os.path.realpath(path) == os.path.realpath(target)
    except OSError:
        return False


def _free_name(directory: Path, filename: str) -> str:
    stem, dot, suffix = filename.rpartition(".")
    if not dot:
        stem, suffix = filename, ""
    n = 1
    while True:
        candidate = f"{stem}.imported-{n}{'.' + suffix if suffix else ''}"
        if not (directory / candidate).exists():
            return candidate
        n += 1


def _merge(native: Path, tier_dir: Path, base: Path, dry_run: bool) -> tuple[list[str], list[str]]:
    """Copy native files into the tier. Returns (merged descriptions, files not merged)."""
    merged: list[str] = []
    skipped: list[str] = []
    kept_lines: list[str] = []
    names = sorted(os.listdir(native))
    entry_files = [n for n in names if n != index.INDEX_NAME]
    for name in names:
        src = native / name
        st = os.lstat(src)
        if name == index.INDEX_NAME:
            if stat.S_ISREG(st.st_mode):
                text = src.read_bytes().decode("utf-8", "surrogateescape")
                kept_lines = index.preserved_lines(text, entry_files, [])
            continue
        if not stat.S_ISREG(st.st_mode):
            skipped.append(name)  # subdirectories and links stay in the backup
            continue
        data = src.read_bytes()
        dest = tier_dir / name
        existing = fsutil.read_bytes_or_none(dest) if dest.exists() else None
        if existing == data:
            merged.append(f"{name} (already in the store)")
            continue
        final = name if existing is None else _free_name(tier_dir, name)
        merged.append(name if final == name else f"{name} -> {final} (name taken)")
        if not dry_run:
            fsutil.atomic_write_bytes(tier_dir / final, data)
            if fsutil.read_bytes_or_none(tier_dir / final) != data:
                raise OSError(f"copy of {src} did not verify")
    if kept_lines and not dry_run:
        _carry_index_lines(tier_dir, base, kept_lines)
        merged.append(f"{len(kept_lines)} hand-written MEMORY.md lines")
    return merged, skipped


def _carry_index_lines(tier_dir: Path, base: Path, lines: list[str]) -> None:
    # Put the lines under the title of the canonical MEMORY.md: the next regeneration sees
    # them as hand-written and keeps them (index.preserved_lines).
    path = tier_dir / index.INDEX_NAME
    current = (fsutil.read_bytes_or_none(path) or b"").decode("utf-8", "surrogateescape")
    existing = set(current.splitlines())
    new = [x for x in lines if x not in existing or not x.strip()]
    if not any(x.strip() for x in new):
        return
    head, _, rest = current.partition("\n")
    text = f"{head or index.TITLE}\n\n" + "\n".join(new) + "\n" + rest
    fsutil.atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"))


def establish(
    journal: Journal,
    link: Path,
    tier_dir: Path,
    tier_base: Path,
    adapter: str,
    tier: str,
    project_id: str | None,
    *,
    dry_run: bool = False,
) -> Report:
    report = Report()
    st = lstat_or_none(link)
    record = journal.get(link)
    if st is not None and stat.S_ISLNK(st.st_mode):
        if _points_to(link, tier_dir):
            if record is None and not dry_run:
                journal.put(_record(link, tier_dir, adapter, tier, project_id, "unknown", None, []))
            return report
        target = os.readlink(link)
        state = "broken" if not os.path.exists(link) else "foreign"
        report.problems.append(
            Problem(
                link,
                state,
                f"a symlink to {target}, not to coffer's "
                f"store ({tier_dir}); left alone. Move it aside and "
                "rerun `coffer project` to project here",
            )
        )
        return report
    if st is not None and not stat.S_ISDIR(st.st_mode):
        report.problems.append(
            Problem(
                link, "foreign", "a file where the agent expects its memory directory; left alone"
            )
        )
        return report
    before = "absent" if st is None else "dir"
    backup: str | None = None
    if before == "dir":
        merged, skipped = _merge(link, tier_dir, tier_base, dry_run=True)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        backup_dir = journal.backups / "dirs" / f"{stamp}-{sha256(str(link).encode())[:12]}"
        if merged or skipped:
            report.changes.append(
                Change(
                    link,
                    "merge",
                    f"{len(merged)} native files into {tier_dir}"
                    + (
                        f"; not merged (kept in the backup): {', '.join(skipped)}"
                        if skipped
                        else ""
                    ),
                )
            )
        if not dry_run:
            _merge(link, tier_dir, tier_base, dry_run=False)
            fsutil.ensure_dir(backup_dir.parent)
            journal.put(
                _record(link, tier_dir, adapter, tier, project_id, before, str(backup_dir), [])
            )
            shutil.move(str(link), str(backup_dir))
            backup = str(backup_dir)
            report.notices.append(f"{link}: the original directory is kept at {backup_dir}")
    report.changes.append(Change(link, "link", f"-> {tier_dir}"))
    if dry_run:
        return report
    dirs = ensure_parent(link)
    rec = journal.get(link) or _record(
        link, tier_dir, adapter, tier, project_id, before, backup, dirs
    )
    journal.put(rec)
    try:
        os.symlink(tier_dir, link, target_is_directory=True)
    except OSError as exc:
        # No symlinks here (a Windows account without the privilege, an odd file system):
        # put the agent's own directory back and say so; its files are in the store anyway.
        if backup is not None:
            shutil.move(backup, str(link))
        journal.drop(rec["key"])
        report.changes = [c for c in report.changes if c.action != "link"]
        report.notices = [n for n in report.notices if "original directory is kept" not in n]
        report.problems.append(
            Problem(
                link,
                "error",
                f"cannot create a symlink here "
                f"({exc.strerror or exc}); the agent's directory was "
                "left as it was",
            )
        )
    return report


def _record(
    link: Path,
    tier_dir: Path,
    adapter: str,
    tier: str,
    project_id: str | None,
    before: str,
    backup: str | None,
    dirs: list[str],
) -> Record:
    return {
        "key": str(link),
        "path": str(link),
        "kind": "symlink",
        "tier": tier,
        "project_id": project_id,
        "adapters": [adapter],
        "link_target": str(tier_dir),
        "before": before,
        "backup": backup,
        "created_dirs": dirs,
        "created_at": now_iso(),
        "updated_at": now_iso(),
    }


def state(link: Path, tier_dir: Path) -> tuple[str, str]:
    st = lstat_or_none(link)
    if st is None:
        return "missing", "not linked yet"
    if stat.S_ISLNK(st.st_mode):
        if not os.path.exists(link):
            return "broken", f"dangling link to {os.readlink(link)}"
        if _points_to(link, tier_dir):
            return "ok", f"-> {tier_dir}"
        return "foreign", f"links to {os.readlink(link)}"
    if stat.S_ISDIR(st.st_mode):
        count = sum(1 for _ in os.scandir(link))
        return "missing", f"the agent's own directory ({count} files; `coffer project` merges it)"
    return "foreign", "a file, not a directory"


def undo(journal: Journal, record: Record, *, dry_run: bool) -> Report:
    """Replace coffer's link with a real directory holding the current memories."""
    report = Report()
    link = Path(record["path"])
    tier_dir = Path(record["link_target"])
    st = lstat_or_none(link)
    if st is None:
        report.notices.append(f"{link}: already gone; nothing to undo")
        if not dry_run:
            journal.drop(record["key"])
        return report
    if not stat.S_ISLNK(st.st_mode) or not _points_to(link, tier_dir):
        report.problems.append(
            Problem(
                link,
                "refused",
                "no longer coffer's link to the store "
                "(changed since coffer made it); left alone and kept "
                "in the journal",
            )
        )
        return report
    report.changes.append(Change(link, "restore", "a real directory with the current memories"))
    if dry_run:
        return report
    staging = link.with_name(link.name + ".coffer-restore")
    if staging.exists():
        shutil.rmtree(staging)
    fsutil.ensure_dir(staging)
    if tier_dir.is_dir():
        for name in sorted(os.listdir(tier_dir)):
            src = tier_dir / name
            if src.is_file() and not src.is_symlink() and not fsutil.is_tmp_name(name):
                shutil.copy2(src, staging / name)
    # A directory cannot be renamed over a symlink: move the link aside first, so that a
    # crash in between leaves both pieces on disk and the journal record intact.
    parked = link.with_name(link.name + ".coffer-link")
    os.replace(link, parked)
    os.replace(staging, link)
    os.unlink(parked)
    journal.drop(record["key"])
    return report
