"""SYMLINK targets: an agent's memory directory becomes a link to a tier directory.

Before a real directory is replaced, every file in it is copied into the tier (same bytes;
a file name taken by different content is kept as ``<stem>.imported-<n><suffix>``, and an
entry ``name`` taken by another entry becomes ``<name>-imported-<n>``), each copy is
verified, hand-written ``MEMORY.md`` lines are carried over (lines pointing at merged entries
are regenerated from them), and only then is the original directory moved, whole, into
coffer's backups. A failure before that leaves it untouched. ``plan_merge`` decides all of
this first, so ``--dry-run`` shows exactly what a real run does (docs/adr/0013).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from coffer import faults, fsutil
from coffer.projection import dirbackup
from coffer.projection.common import ensure_parent, lstat_or_none, now_iso
from coffer.projection.journal import Journal, Record, sha256
from coffer.report import Change, Problem, Report, plural
from coffer.store import entry, index


def _points_to(path: Path, target: Path) -> bool:
    try:
        return os.path.realpath(path) == os.path.realpath(target)
    except OSError:
        return False


def _free_name(directory: Path | None, filename: str, used: set[str]) -> str:
    stem, dot, suffix = filename.rpartition(".")
    if not dot:
        stem, suffix = filename, ""
    n = 1
    while True:
        candidate = f"{stem}.imported-{n}{'.' + suffix if suffix else ''}"
        taken = candidate in used or (directory is not None and (directory / candidate).exists())
        if not taken:
            return candidate
        n += 1


@dataclass(frozen=True)
class Move:
    """One file of the agent's directory and where it goes in the store."""

    source: str  # file name in the agent's directory
    dest: str  # file name in the store (differs when the name was taken)
    state: str  # "new", "same" (already in the store, byte for byte) or "renamed"
    entry_name: str | None = None  # the entry's new `name` when its own was taken


@dataclass
class MergePlan:
    """What merging an agent's directory into a tier does, decided before anything moves."""

    moves: list[Move] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # not regular files: backup only
    kept_lines: list[str] = field(default_factory=list)  # index lines no merged entry explains
    entry_lines: int = 0  # index lines pointing at merged entries (regenerated from them)

    @property
    def empty(self) -> bool:
        return not self.moves and not self.skipped and not self.kept_lines

    def describe(self, tier_dir: Path | None, backup: Path) -> list[str]:
        """One line per decision, for `coffer project --dry-run`."""
        where = str(tier_dir) if tier_dir is not None else "this project's new store"
        out = [f"  into {where}; the original directory goes to {backup}"]
        for m in self.moves:
            if m.state == "same":
                out.append(f"  = {m.source} (already in the store)")
            elif m.state == "renamed":
                out.append(f"  ! {m.source} -> {m.dest} (a different {m.source} is in the store)")
            else:
                out.append(f"  + {m.source}")
            if m.entry_name:
                out.append(f"    its name is taken: renamed to {m.entry_name!r}")
        if self.entry_lines:
            out.append(
                f"  MEMORY.md: {plural(self.entry_lines, 'line')} for merged entries, listed "
                "again from the entries"
            )
        if self.kept_lines:
            out.append(f"  MEMORY.md: {plural(len(self.kept_lines), 'hand-written line')} kept")
        if self.skipped:
            out.append(f"  not merged (kept in the backup): {', '.join(self.skipped)}")
        return out


def _entry_name(data: bytes, filename: str) -> str | None:
    try:
        return entry.parse(data.decode("utf-8"), filename).name
    except (UnicodeDecodeError, entry.EntryParseError):
        return None  # listed as unreadable; `coffer doctor` says why


def _free_entry_name(name: str, taken: set[str]) -> str:
    n = 1
    while f"{name}-imported-{n}" in taken:
        n += 1
    return f"{name}-imported-{n}"


def plan_merge(native: Path, tier_dir: Path | None, taken_names: Iterable[str]) -> MergePlan:
    """Decide, without writing, how the files of ``native`` go into ``tier_dir`` (None: a
    store not created yet). A file name taken by different content gets
    ``<stem>.imported-<n>``; an entry ``name`` taken by another entry gets
    ``<name>-imported-<n>``, so no two entries share a name afterwards."""
    plan = MergePlan()
    taken = set(taken_names)
    used: set[str] = set()
    names = sorted(os.listdir(native))
    index_text = ""
    for name in names:
        src = native / name
        st = os.lstat(src)
        if name == index.INDEX_NAME:
            if stat.S_ISREG(st.st_mode):
                index_text = src.read_bytes().decode("utf-8", "surrogateescape")
            continue
        if not stat.S_ISREG(st.st_mode):
            plan.skipped.append(name)  # subdirectories and links stay in the backup
            continue
        data = src.read_bytes()
        dest = tier_dir / name if tier_dir is not None else None
        existing = fsutil.read_bytes_or_none(dest) if dest is not None and dest.exists() else None
        if existing == data:
            plan.moves.append(Move(name, name, "same"))
            continue
        final = name
        if existing is not None or name in used:
            final = _free_name(tier_dir, name, used)
        used.add(final)
        own = _entry_name(data, final)
        new_name = None
        if own is not None:
            new_name = _free_entry_name(own, taken) if own in taken else None
            taken.add(new_name or own)
        plan.moves.append(Move(name, final, "new" if final == name else "renamed", new_name))
    merged = [m.source for m in plan.moves]
    if index_text:
        plan.kept_lines = index.preserved_lines(index_text, merged, [])
        lines = index_text.splitlines()
        plan.entry_lines = sum(1 for line in lines if index.links_to(line, merged))
    return plan


def _renamed(data: bytes, filename: str, name: str) -> bytes:
    """``data`` with its frontmatter ``name`` set to ``name``, every other byte kept when
    the frontmatter allows it (else the entry is written out again)."""
    text = data.decode("utf-8")
    value = yaml.safe_dump({"name": name}, default_flow_style=False, width=10_000).strip()
    lines = text.splitlines(keepends=True)
    if lines and lines[0].rstrip("\r\n") == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") == "---"), None)
        if end is not None:
            eol = "\r\n" if lines[0].endswith("\r\n") else "\n"
            at = next((i for i in range(1, end) if lines[i].startswith("name:")), None)
            if at is None:
                lines.insert(1, value + eol)
            else:
                stop = at + 1
                while stop < end and lines[stop][:1] in (" ", "\t"):
                    stop += 1  # a folded or block value continues on indented lines
                lines[at:stop] = [value + eol]
            candidate = "".join(lines)
            if _entry_name(candidate.encode("utf-8"), filename) == name:
                return candidate.encode("utf-8")
    parsed = entry.parse(text, filename)
    return entry.serialize(dataclasses.replace(parsed, name=name)).encode("utf-8")


def _merge(native: Path, tier_dir: Path, plan: MergePlan) -> None:
    """Copy the planned files into the tier and verify every copy."""
    for move in plan.moves:
        if move.state == "same":
            continue
        src = native / move.source
        data = src.read_bytes()
        if move.entry_name:
            data = _renamed(data, move.dest, move.entry_name)
        fsutil.atomic_write_bytes(tier_dir / move.dest, data)
        if fsutil.read_bytes_or_none(tier_dir / move.dest) != data:
            raise OSError(f"copy of {src} did not verify")
    if plan.kept_lines:
        _carry_index_lines(tier_dir, plan.kept_lines)


def _carry_index_lines(tier_dir: Path, lines: list[str]) -> None:
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


def backup_dir(journal: Journal, link: Path) -> Path:
    """Where the agent's original directory is moved (one per merge)."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    # A free name: two merges in one second must not nest one directory in the other.
    return dirbackup.free_path(
        journal.backups / "dirs" / f"{stamp}-{sha256(str(link).encode())[:12]}"
    )


def merge_change(link: Path, tier_dir: Path | None, plan: MergePlan, backup: Path) -> Change | None:
    """The report line of a merge; its per-file decisions go where --dry-run shows diffs."""
    if plan.empty:
        return None
    moved = sum(1 for m in plan.moves if m.state != "same")
    renamed = sum(1 for m in plan.moves if m.state == "renamed" or m.entry_name)
    where = str(tier_dir) if tier_dir is not None else "this project's new store"
    detail = f"{plural(moved, 'native file')} into {where}"
    if renamed:
        detail += f", {renamed} renamed on a collision"
    if plan.skipped:
        detail += f"; not merged (kept in the backup): {', '.join(plan.skipped)}"
    return Change(link, "merge", detail, "\n".join(plan.describe(tier_dir, backup)) + "\n")


def preview(journal: Journal, link: Path) -> Change | None:
    """The merge a first run would make into a store that does not exist yet (--dry-run)."""
    st = lstat_or_none(link)
    if st is None or not stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode):
        return None
    return merge_change(link, None, plan_merge(link, None, ()), backup_dir(journal, link))


def establish(
    journal: Journal,
    link: Path,
    tier_dir: Path,
    taken_names: Iterable[str],
    adapter: str,
    tier: str,
    project_id: str | None,
    *,
    dry_run: bool = False,
) -> Report:
    report = Report()
    if not dry_run:
        report.notices += recover(journal, link, tier_dir)
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
    held: dict[str, Path] = {}
    modes = None
    rest = None
    if before == "dir":
        plan = plan_merge(link, tier_dir, taken_names)
        target_dir = backup_dir(journal, link)
        change = merge_change(link, tier_dir, plan, target_dir)
        if change is not None:
            report.changes.append(change)
        if not dry_run:
            # Before the merge adds to the tier: what the tier or an earlier backup of this
            # directory already holds is not the user's only copy (docs/adr/0016).
            held = dirbackup.already_held(link, tier_dir, dirbackup.earlier_backups(target_dir))
            _merge(link, tier_dir, plan)
            fsutil.ensure_dir(target_dir.parent)
            modes = dirbackup.modes(link)  # put back by undo (issue 9, point 9)
            # Which backup holds each subdirectory and link the merge leaves out: undo
            # copies them back into the directory (issue 10, point 7).
            rest = {n: str(held.get(n, target_dir)) for n in plan.skipped}
            backup = str(target_dir)
    report.changes.append(Change(link, "link", f"-> {tier_dir}"))
    if dry_run:
        return report
    dirs = ensure_parent(link)
    rec = _record(link, tier_dir, adapter, tier, project_id, before, backup, dirs)
    if backup is not None:
        rec["modes"] = modes
        rec["rest"] = rest
    if record is not None and before == "absent":
        rec = record  # the link was removed by hand: keep what the first run recorded
    journal.put(rec)  # before the swap: a cut run's next run knows where the directory goes
    try:
        fsutil.symlink(tier_dir, _new_link(link))
    except OSError as exc:
        # No symlinks here (a Windows account without the privilege, an odd file system):
        # the agent's own directory was not touched; its files are in the store anyway.
        journal.drop(rec["key"])
        report.changes = [c for c in report.changes if c.action != "link"]
        report.problems.append(
            Problem(
                link,
                "refused",  # known and explained: a hook says it once, not every session
                f"cannot create a symlink here "
                f"({exc.strerror or exc}); the agent's directory was "
                "left as it was",
            )
        )
        return report
    _swap_in(link, backup)
    if backup is not None:
        report.notices.append(_keep_backup(journal, rec, Path(backup), held))
    return report


def _keep_backup(journal: Journal, rec: Record, backup: Path, held: Mapping[str, Path]) -> str:
    # Only now, with the link in place, may the backup lose what the store already held
    # (before that, the directory may be the user's only copy). docs/adr/0016.
    link = rec["path"]
    if dirbackup.prune(backup, held):
        kept = "kept at" if not held else "kept (less what the store or a backup held) at"
        return f"{link}: the original directory is {kept} {backup}"
    rec["backup"] = None
    journal.put(rec)
    return f"{link}: the store already held every file of the directory; no backup needed"


# ---- the directory/link swap -------------------------------------------------------------
#
# The agent's directory and coffer's link trade places with no moment where neither is at
# ``link``: the link is made under a sibling name and the two are exchanged atomically
# (fsutil.exchange), then the directory, now at the sibling name, moves to the backups.
# Where the system cannot exchange, the directory is renamed aside and the link renamed in
# (rename(2) cannot put a link over a directory); a run cut between those two renames
# leaves both siblings, and the next run (``recover``) finishes the swap.


def _is_dir(path: Path) -> bool:
    st = lstat_or_none(path)
    return st is not None and stat.S_ISDIR(st.st_mode)


def _is_link(path: Path) -> bool:
    st = lstat_or_none(path)
    return st is not None and stat.S_ISLNK(st.st_mode)


def _new_link(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-new")


def _old_dir(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-old")


def _staging(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-restore")


def _parked(link: Path) -> Path:
    return link.with_name(link.name + ".coffer-link")


def _swap_in(link: Path, backup: str | None) -> None:
    """Put the link made at ``_new_link(link)`` in place of ``link``."""
    new = _new_link(link)
    if backup is None:
        fsutil.rename(new, link)  # nothing there yet: a plain rename is atomic
        return
    if fsutil.exchange(new, link):
        fsutil.move_dir(new, Path(backup))  # ``new`` now holds the original directory
        return
    old = _old_dir(link)
    fsutil.rename(link, old)
    fsutil.rename(new, link)
    fsutil.move_dir(old, Path(backup))


def recover(journal: Journal, link: Path, tier_dir: Path) -> list[str]:
    """Finish or clean up a directory/link swap a killed run left half done (by
    ``establish`` or ``undo``); returns notices. Never deletes anything that is not a
    copy: an original directory left aside goes to the backups the journal names."""
    notices: list[str] = []
    if not link.parent.is_dir():
        return notices
    for sibling in (_new_link(link), _parked(link), _staging(link), _old_dir(link)):
        st = lstat_or_none(sibling)
        if st is None:
            continue
        here = lstat_or_none(link)
        if stat.S_ISLNK(st.st_mode):
            if not _points_to(sibling, tier_dir):
                continue  # not coffer's: left alone
            if here is None:
                fsutil.rename(sibling, link)
                notices.append(f"{link}: finished a link swap an interrupted run left half done")
            else:
                fsutil.unlink(sibling)  # a spare link to the store: nothing of the user's
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue
        if here is None:
            fsutil.rename(sibling, link)
            notices.append(f"{link}: put back the directory an interrupted run left aside")
        elif sibling == _staging(link):
            fsutil.rmtree(sibling)  # undo's copy of the store, made again by the next undo
        elif stat.S_ISLNK(here.st_mode) and _points_to(link, tier_dir):
            record = journal.get(link)
            dest = record.get("backup") if record else None
            if not dest or lstat_or_none(Path(dest)) is not None:
                dest = str(backup_dir(journal, link))
                fsutil.ensure_dir(Path(dest).parent)
                if record is not None:
                    record["backup"] = dest
                    record["before"] = "dir"
                    journal.put(record)
            fsutil.move_dir(sibling, Path(dest))
            notices.append(f"{link}: the original directory is kept at {dest}")
    return notices


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
        files = plural(count, "file")
        return "missing", f"the agent's own directory ({files}; `coffer project` merges it)"
    return "foreign", "a file, not a directory"


def undo(journal: Journal, record: Record, *, dry_run: bool) -> Report:
    """Replace coffer's link with a real directory holding the current memories."""
    report = Report()
    link = Path(record["path"])
    tier_dir = Path(record["link_target"])
    if not dry_run and _is_dir(link):
        spares = [s for s in (_staging(link), _parked(link)) if _is_link(s)]
        if record.get("restoring") or any(_points_to(s, tier_dir) for s in spares):
            # A previous undo was cut after its swap: only its spare link (or its journal
            # record) is left.
            for spare in spares:
                if _points_to(spare, tier_dir):
                    fsutil.unlink(spare)
            journal.drop(record["key"])
            report.notices.append(f"{link}: finished an undo an interrupted run left")
            return report
    if not dry_run:
        report.notices += recover(journal, link, tier_dir)
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
    staging = _staging(link)
    fsutil.ensure_dir(staging)
    if tier_dir.is_dir():
        for name in sorted(os.listdir(tier_dir)):
            src = tier_dir / name
            if src.is_file() and not src.is_symlink() and not fsutil.is_tmp_name(name):
                faults.step(f"copy {staging / name}")
                shutil.copy2(src, staging / name)
    kept = record.get("rest")
    backup = record.get("backup")
    if kept is None and backup and os.path.isdir(backup):
        kept = dirbackup.rest(Path(backup))  # a record from before coffer listed them
    # Subdirectories and links the merge left in the backups come back too: after the undo,
    # deleting the store must not take the only copy of anything (issue 10, point 7).
    told, failed = dirbackup.restore_rest(kept or {}, staging)
    report.notices += [f"{link}: {line}" for line in told]
    if failed:
        report.problems.append(
            Problem(
                link,
                "refused",
                f"could not restore {'; '.join(failed)}: copy it back by hand before "
                "deleting the store",
            )
        )
    # The store is private (0700/0600); the agent's directory gets the modes it had.
    dirbackup.restore_modes(staging, record.get("modes"))
    # Marks the swap as coffer's: a run cut after it finds a directory with this record
    # and knows the undo is done, not that someone replaced the link.
    journal.put({**record, "restoring": True})
    if fsutil.exchange(staging, link):
        fsutil.unlink(staging)  # ``staging`` now holds coffer's link
    else:
        # A directory cannot be renamed over a symlink: move the link aside first; a run
        # cut in between leaves both pieces, and ``recover`` finishes the swap.
        parked = _parked(link)
        fsutil.rename(link, parked)
        fsutil.rename(staging, link)
        fsutil.unlink(parked)
    if record.get("before") == "dir":
        dirbackup.note_restored(journal.backups, link)  # what `coffer uninstall` checks
    journal.drop(record["key"])
    return report
