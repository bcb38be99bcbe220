"""The journal: what coffer changed outside the store, one record per path, and how each
change is put back (docs/adr/0007-journal.md).

``ledger`` keeps the records on disk; ``records`` types them, one class per kind, over the
JSON fields in ``fields``; ``moves`` follows a project that moved (docs/adr/0021).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.projection.journal.ledger import Damage, Journal, sha256

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


# The records load on first use (PEP 562), not with the journal: building their frozen
# dataclasses costs about 10 ms, which `coffer explain` and `coffer doctor` (they open the
# journal, never parse a record) do not pay (docs/adr/0049). mypy reads the imports
# themselves, so a misspelled name is still an error there.
if TYPE_CHECKING:
    from coffer.projection.journal.agent_records import (
        LinkRecord,
        NativeRecord,
        ServiceRecord,
        SetupRecord,
    )
    from coffer.projection.journal.records import (
        BlockRecord,
        GitRecord,
        GitState,
        JournalRecord,
        OtherRecord,
        TeamRecord,
        parse,
        validate,
    )
else:
    # coffer.projection.journal.agent_records; the other names are records'.
    _AGENT_RECORDS = frozenset({"LinkRecord", "NativeRecord", "ServiceRecord", "SetupRecord"})

    def __getattr__(name: str) -> object:
        if name in _AGENT_RECORDS:
            from coffer.projection.journal import agent_records

            return getattr(agent_records, name)
        if name in __all__:
            from coffer.projection.journal import records

            return getattr(records, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
