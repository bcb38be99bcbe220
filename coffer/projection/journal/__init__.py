"""The journal: what coffer changed outside the store, one record per path, and how each
change is put back (docs/adr/0007-journal.md).

``ledger`` keeps the records on disk; ``records`` types them (one shape, with a table of
the fields each kind keeps); ``undoable`` says which JSON can be undone as written;
``moves`` follows a project that moved (docs/adr/0021).
"""

from __future__ import annotations

from coffer.projection.journal.ledger import Damage, Journal, sha256
from coffer.projection.journal.records import SHAPES, GitState, JournalRecord, parse, validate

__all__ = [
    "SHAPES",
    "Damage",
    "GitState",
    "Journal",
    "JournalRecord",
    "parse",
    "sha256",
    "validate",
]
