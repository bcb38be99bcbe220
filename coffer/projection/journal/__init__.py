"""The journal: what coffer changed outside the store, one record per path, and how each
change is put back (docs/adr/0007-journal.md).

``ledger`` keeps the records on disk; ``records`` types them, one class per kind, over the
JSON fields in ``fields``; ``moves`` follows a project that moved (docs/adr/0021).
"""

from __future__ import annotations

from coffer.projection.journal.ledger import Damage, Journal, sha256
from coffer.projection.journal.records import (
    BlockRecord,
    GitRecord,
    GitState,
    JournalRecord,
    LinkRecord,
    NativeRecord,
    OtherRecord,
    ServiceRecord,
    SetupRecord,
    TeamRecord,
    parse,
    validate,
)

__all__ = [
    "BlockRecord",
    "Damage",
    "GitRecord",
    "GitState",
    "Journal",
    "JournalRecord",
    "LinkRecord",
    "NativeRecord",
    "OtherRecord",
    "ServiceRecord",
    "SetupRecord",
    "TeamRecord",
    "parse",
    "sha256",
    "validate",
]
