"""Merging an agent's memory directory into a tier before it becomes a link.

Every file in it is copied into the tier (same bytes; a file name taken by different content
is kept as ``<stem>.imported-<n><suffix>``, and an entry ``name`` taken by another entry
becomes ``<name>-imported-<n>``), each copy is verified, and hand-written ``MEMORY.md`` lines
are carried over (lines pointing at merged entries are regenerated from them).
``plan_merge`` decides all of this first, so ``--dry-run`` shows exactly what a real run
does (docs/adr/0013).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from coffer.base import fsutil, platform
from coffer.base.report import Change, plural
from coffer.projection.common import lstat_or_none
from coffer.projection.journal import Journal, sha256
from coffer.projection.symlink import backups
from coffer.store import entry, index


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


class Move(NamedTuple):
    """One file of the agent's directory and where it goes in the store."""

    source: str  # file name in the agent's directory
    dest: str  # file name in the store (differs when the name was taken)
    state: str  # "new", "same" (already in the store, byte for byte) or "renamed"
    entry_name: str | None = None  # the entry's new `name` when its own was taken


class MergePlan:
    """What merging an agent's directory into a tier does, decided before anything moves."""

    moves: list[Move]
    skipped: list[str]  # not regular files: backup only
    kept_lines: list[str]  # index lines no merged entry explains
    entry_lines: int  # index lines pointing at merged entries (regenerated from them)

    def __init__(self) -> None:
        self.moves = []
        self.skipped = []
        self.kept_lines = []
        self.entry_lines = 0

    @property
    def empty(self) -> bool:
        return not self.moves and not self.skipped and not self.kept_lines

    def describe(self, backup: Path) -> list[str]:
        """One line per decision, for `coffer project --dry-run`."""
        # Where the files go is said once, on the change's own line (merge_change).
        out = [f"  the original directory goes to {backup}"]
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


def _unreserved(filename: str) -> str:
    # `con.md` cannot exist on a Windows machine the store syncs to (docs/adr/0057).
    if not platform.reserved_name(filename):
        return filename
    stem, dot, rest = filename.partition(".")
    return f"{stem}-notes{dot}{rest}"


def plan_merge(native: Path, tier_dir: Path | None, taken_names: Iterable[str]) -> MergePlan:
    """Decide, without writing, how the files of ``native`` go into ``tier_dir`` (None: a
    store not created yet). A file name taken by different content gets
    ``<stem>.imported-<n>``, one Windows reserves (``con.md``) ``<stem>-notes.md``; an entry
    ``name`` taken by another entry gets ``<name>-imported-<n>``, so no two entries share a
    name afterwards."""
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
        wanted = _unreserved(name)
        dest = tier_dir / wanted if tier_dir is not None else None
        existing = fsutil.read_bytes_or_none(dest) if dest is not None and dest.exists() else None
        if existing == data:
            plan.moves.append(Move(name, wanted, "same"))
            continue
        final = wanted
        if existing is not None or wanted in used:
            final = _free_name(tier_dir, wanted, used)
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
    import yaml  # only a merge that renames an entry needs it

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
    return entry.serialize(parsed._replace(name=name)).encode("utf-8")


def merge(native: Path, tier_dir: Path, plan: MergePlan) -> None:
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
    return backups.free_path(
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
    return Change(link, "merge", detail, "\n".join(plan.describe(backup)) + "\n")


def preview(journal: Journal, link: Path) -> tuple[Change | None, MergePlan | None]:
    """The merge a first run would make into a store that does not exist yet (--dry-run)."""
    st = lstat_or_none(link)
    if st is None or not stat.S_ISDIR(st.st_mode) or platform.is_link(st):
        return None, None
    plan = plan_merge(link, None, ())
    return merge_change(link, None, plan, backup_dir(journal, link)), plan


def merged_entries(native: Path, plan: MergePlan, *, renamed: bool = False) -> list[entry.Entry]:
    """The entries the planned merge adds to the tier, as the tier will read them: what a
    dry run's blocks show (the real run's blocks are rendered after the merge). ``renamed``:
    ``native`` is the tier the merge wrote, read under the files' new names."""
    out = []
    for move in plan.moves:
        if move.state == "same":
            continue  # already in the tier, so already in its entries
        try:
            src = native / (move.dest if renamed else move.source)
            parsed = entry.parse(src.read_bytes().decode("utf-8"), move.dest)
        except (OSError, UnicodeDecodeError, entry.EntryParseError):
            continue  # not an entry (the tier will skip it too; `coffer doctor` says why)
        out.append(parsed._replace(name=move.entry_name) if move.entry_name else parsed)
    return out
