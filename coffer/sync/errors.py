"""What a sync round can fail with, for the CLI and the watcher (docs/adr/0034)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffer.base.errors import CofferError

if TYPE_CHECKING:
    from coffer.sync.report import SyncReport


class SyncError(CofferError):
    """Sync is not set up, or its own repository cannot be used as asked."""


class RemoteUnreachable(CofferError):
    """The remote could not be reached (network down, host unknown, remote path missing,
    authentication refused). Local work is intact and committed locally; the next round
    pushes it."""


class PushRefused(CofferError):
    """The secret gate blocked entries: nothing was pushed. The message names them (with
    any token in a name redacted); ``report`` says what the round did before refusing."""

    def __init__(self, message: str, report: SyncReport | None = None) -> None:
        super().__init__(message)
        self.report = report
