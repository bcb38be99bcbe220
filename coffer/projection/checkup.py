"""`coffer doctor`'s look at the journal: damaged records, and backups an undo would need."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from coffer.base import wsl
from coffer.projection.journal import Journal

if TYPE_CHECKING:
    from coffer.store import Store
    from coffer.store.health import Finding


def check_journal(store: Store) -> list[Finding]:
    """Damaged journal records, and backups an exact undo would need that are gone."""
    # Here, not at the top: `coffer adapter list` imports this module for windows_git alone.
    from coffer.store.health import Finding

    journal = Journal(store.root)
    out = [
        Finding(
            "error",
            "journal",
            str(damage.file),
            f"record for {damage.target} is damaged ({damage.reason}); `coffer unproject` "
            f"cannot undo that change: {damage.advice(journal.backups)}",
        )
        for damage in journal.damaged()
    ]
    for record in journal.records():
        if record.get("kind") == "git-config" and isinstance(record.get("path"), str):
            common = Path(record["path"]).parent
            why = windows_git(common.parent if common.name == ".git" else common)
            if why is not None:
                out.append(Finding("warning", "git", str(record["path"]), why))
            # Only a git filter's record needs git's side (and the typed records it imports).
            from coffer.projection.git.files import broken_filter

            broken = broken_filter(Path(record["path"]))
            if broken is not None:
                out.append(
                    Finding(
                        "error",
                        "git",
                        str(record["path"]),
                        f"git's clean filter for coffer's blocks no longer runs: {broken}; "
                        "git refuses to add those files until `coffer project` runs here again",
                    )
                )
        digest = record.get("before_sha256")
        if record.get("kind") not in ("native", "setup") or not isinstance(digest, str):
            continue
        if not (journal.backups / f"{digest}.bak").is_file():
            out.append(
                Finding(
                    "warning",
                    "journal",
                    str(record["path"]),
                    f"the backup of its original bytes ({digest}.bak) is missing; undo "
                    "removes only coffer's own change there, from the values the journal keeps",
                )
            )
    return out


def windows_git(repo: Path) -> str | None:
    """Why a repository on a Windows drive mounted into WSL is a problem for coffer's git
    filter, or None: Windows git runs its filters itself, and cannot run a WSL command."""
    drive = wsl.windows_drive(repo)
    if drive is None:
        return None
    return (
        f"{repo} is on the Windows drive {drive.upper()}: (mounted into WSL): Windows git "
        "cannot run coffer's clean filter, a WSL command, so it refuses to add files that "
        "hold coffer's block (filter.coffer.required); commit from WSL's git instead"
    )
