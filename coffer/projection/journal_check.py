"""`coffer doctor`'s look at the journal: damaged records, and backups an undo would need."""

from __future__ import annotations

from coffer.projection.journal import Journal
from coffer.store.health import Finding
from coffer.store.store import Store


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
