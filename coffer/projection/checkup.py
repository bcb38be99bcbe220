"""`coffer doctor`'s look at the journal: damaged records, and backups an undo would need."""

from __future__ import annotations

from pathlib import Path

from coffer.projection.git.files import broken_filter
from coffer.projection.journal import Journal
from coffer.store import Finding, Store


def check_journal(store: Store) -> list[Finding]:
    """Damaged journal records, and backups an exact undo would need that are gone."""
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
