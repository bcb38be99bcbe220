"""``coffer uninstall``: the one way out that cannot lose anything (docs/adr/0021).

Order matters: the session-start hooks and the watcher go first (else the next session
start projects everything again), then every projection. The store holds the user's
memories and the directories coffer replaced, so it is deleted only when asked, and only
when nothing is left to undo and every file its directory backups hold is back where the
user had it (same bytes, or a link with the same target).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from coffer.base.digests import sha256_hex
from coffer.base.report import Problem, Report
from coffer.projection import dirbackup
from coffer.projection.engine import Engine
from coffer.setup import service, unwiring


@dataclass
class Outcome:
    report: Report
    left: list[str] = field(default_factory=list)  # journal paths still to undo
    only_in_store: list[Path] = field(default_factory=list)  # backup files not restored
    deleted: list[Path] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.report.ok and not self.left and not self.only_in_store


def _fingerprints(tops: Iterable[Path]) -> set[tuple[str, str]]:
    """("file", sha256) and ("link", target) of everything under ``tops``."""
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
        return {("file", sha256_hex(path.read_bytes()))}
    return set()


def not_restored(backups: Path, restored: Iterable[Path]) -> list[Path]:
    """Files and links in the directory backups that are nowhere in ``restored``."""
    if not backups.is_dir():
        return []
    have = _fingerprints(restored)
    out = []
    for dirpath, dirnames, filenames in os.walk(backups):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            marks = _fingerprint(path)
            if marks and not marks <= have:
                out.append(path)
    return sorted(out)


def run(
    engine: Engine, environ: Mapping[str, str], *, dry_run: bool, delete_store: bool
) -> Outcome:
    journal = engine.journal
    report = service.undo(journal, environ, dry_run=dry_run)
    report.extend(unwiring.undo(journal, (), dry_run=dry_run))
    report.extend(engine.unproject(None, all_=True, dry_run=dry_run))
    outcome = Outcome(report)
    if dry_run:
        return outcome
    outcome.left = sorted({str(r.get("path")) for r in journal.records()})
    root = engine.store.root
    homes = [Path(p) for p in dirbackup.restored(journal.backups)]
    outcome.only_in_store = not_restored(journal.backups / "dirs", [p for p in homes if p.is_dir()])
    if not delete_store:
        return outcome
    if not outcome.clean:
        report.problems.append(
            Problem(root, "refused", "not deleted: something above could not be put back")
        )
        return outcome
    for path in (root, journal.ledger):
        if path.exists():
            shutil.rmtree(path)
            outcome.deleted.append(path)
    return outcome
