"""``coffer uninstall``: the one way out that cannot lose anything (docs/adr/0021).

Order matters: the session-start hooks and the watcher go first (else the next session
start projects everything again), then every projection. The store holds the user's
memories and the directories coffer replaced, so it is deleted only when asked, and only
when nothing is left to undo and every file its directory backups hold is back where the
user had it (same bytes, or a link with the same target). A backed-up ``MEMORY.md`` is an
index coffer regenerates: only its hand-written lines are the user's, and those must be in
the restored index (docs/adr/0045). A dry run judges all of this as the real run will.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from coffer.base import fsutil
from coffer.base.report import Problem, Report
from coffer.projection.engine import Engine
from coffer.projection.symlink import backups
from coffer.setup import service, unwiring
from coffer.store import index


@dataclass
class Kept:
    """A file or link of a directory backup that is nowhere in the directory it came from:
    the user's only copy is in the store."""

    path: Path  # in the store's backups
    home: Path | None  # the directory it was taken from (None: no longer known)
    lines: list[str] = field(default_factory=list)  # for a MEMORY.md: the hand lines lost

    def line(self) -> str:
        if self.home is None:
            return f"only in the store: {self.path}; copy it somewhere safe to keep it"
        if self.lines:
            shown = "".join(f"\n    {x}" for x in self.lines)
            return (
                f"only in the store: {len(self.lines)} hand-written line(s) of {self.path} "
                f"(from {self.home}); to keep them, add them to "
                f"{self.home / index.INDEX_NAME}:{shown}"
            )
        # Never over the file the directory holds now: beside it, under a free name.
        dest = self.home / self.path.name
        if os.path.lexists(dest):
            dest = backups.free_path(self.home / f"{self.path.name}.coffer-original")
        keep = f"cp -p {shlex.quote(str(self.path))} {shlex.quote(str(dest))}"
        return f"only in the store: {self.path} (from {self.home}); to keep it: {keep}"


@dataclass
class Outcome:
    report: Report
    left: list[str] = field(default_factory=list)  # journal paths still to undo
    only_in_store: list[Kept] = field(default_factory=list)  # backup files not restored
    deleted: list[Path] = field(default_factory=list)
    to_delete: list[Path] = field(default_factory=list)  # what --delete-store removes

    @property
    def clean(self) -> bool:
        return self.report.ok and not self.left and not self.only_in_store


def _fingerprints(tops: Iterable[Path]) -> set[tuple[str, str]]:
    """("file", sha256) and ("link", target) of everything under ``tops`` (a top that is a
    link to a directory is read through: the directory it becomes on undo)."""
    out: set[tuple[str, str]] = set()
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                out |= _fingerprint(Path(dirpath) / name)
    return out


def _fingerprint(path: Path) -> set[tuple[str, str]]:
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        return {("link", os.readlink(path))}
    if stat.S_ISREG(mode):
        return {("file", hashlib.sha256(path.read_bytes()).hexdigest())}
    return set()


def _index_lines(tops: Iterable[Path]) -> set[str]:
    """Every line of the MEMORY.md of each of ``tops``."""
    out: set[str] = set()
    for top in tops:
        data = fsutil.read_bytes_or_none(top / index.INDEX_NAME)
        out |= set((data or b"").decode("utf-8", "surrogateescape").splitlines())
    return out


def _lost_lines(path: Path, have: set[str]) -> list[str]:
    """A backed-up MEMORY.md is coffer's to regenerate (docs/adr/0045): what of it is the
    user's are the lines no entry of its directory explains, as the merge kept them."""
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    entries = [p.name for p in path.parent.iterdir() if p.name != index.INDEX_NAME]
    return [x for x in index.preserved_lines(text, entries, []) if x.strip() and x not in have]


def _homes(restored: Iterable[Path]) -> dict[str, Path]:
    """The directory each backup was taken from, by the hash its name carries."""
    return {hashlib.sha256(str(p).encode()).hexdigest()[:12]: p for p in restored}


def not_restored(backup_dirs: Path, restored: Iterable[Path]) -> list[Kept]:
    """Files and links in the directory backups (``backup_dirs``) that are nowhere in
    ``restored``, and hand-written MEMORY.md lines that are in none of their indexes."""
    if not backup_dirs.is_dir():
        return []
    tops = list(restored)
    have, lines, homes = _fingerprints(tops), _index_lines(tops), _homes(tops)
    out = []
    for dirpath, dirnames, filenames in os.walk(backup_dirs):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            top = path.relative_to(backup_dirs).parts[0]
            home = homes.get(top.split("-")[1] if "-" in top else "")
            if home is not None and len(path.relative_to(backup_dirs).parts) > 2:
                home = home.joinpath(*path.relative_to(backup_dirs).parts[1:-1])
            marks = _fingerprint(path)
            if not marks or marks <= have:
                continue
            if name == index.INDEX_NAME and path.parent.parent == backup_dirs:
                lost = _lost_lines(path, lines)
                if lost:
                    out.append(Kept(path, home, lost))
                continue
            out.append(Kept(path, home))
    return sorted(out, key=lambda k: k.path)


def run(
    engine: Engine,
    environ: Mapping[str, str],
    *,
    dry_run: bool,
    delete_store: bool,
    force: bool = False,
) -> Outcome:
    """Undo everything; judge, as the real run will, what only the store then holds."""
    journal = engine.journal
    links = [Path(r.path) for r in journal.load_all() if r.kind == "symlink" and r.path]
    # Both go, one way or the other: an undo that empties the journal removes the ledger.
    there = [p for p in (engine.store.root, journal.ledger) if p.exists()]
    report = service.undo(journal, environ, dry_run=dry_run)
    report.extend(unwiring.undo(journal, (), dry_run=dry_run))
    report.extend(engine.unproject(None, all_=True, dry_run=dry_run, force=force))
    outcome = Outcome(report)
    refused = {str(p.path) for p in report.problems}
    if dry_run:
        # What the real run leaves: the records whose undo it refuses.
        outcome.left = sorted({str(r.path) for r in journal.load_all() if str(r.path) in refused})
    else:
        outcome.left = sorted({str(r.get("path")) for r in journal.records()})
    root = engine.store.root
    homes = {Path(p) for p in backups.restored(journal.backups)}
    if dry_run:
        # A link undo turns back into a directory holding what the link shows now.
        homes |= {p for p in links if str(p) not in refused}
    outcome.only_in_store = not_restored(journal.backups / "dirs", [p for p in homes if p.is_dir()])
    if not delete_store:
        return outcome
    # --force: the user kept what they need of what only the store holds; never past
    # what is still to undo (the ledger going with the store would forget it).
    if not outcome.clean and not (force and report.ok and not outcome.left):
        report.problems.append(
            Problem(root, "refused", "not deleted: something above could not be put back")
        )
        return outcome
    outcome.to_delete = there
    if dry_run:
        return outcome
    for path in there:
        if path.exists():
            shutil.rmtree(path)
        outcome.deleted.append(path)
    return outcome
