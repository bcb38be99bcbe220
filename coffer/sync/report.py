"""What one sync round did (the value the CLI prints and the watcher logs)."""

from __future__ import annotations

from typing import NamedTuple


class SyncReport(NamedTuple):
    pulled: int  # store files written or removed from what the remote had
    pushed: int  # repository files the remote gained or changed
    conflicts: tuple[str, ...]  # conflict copies made this round (repository paths)
    blocked: tuple[str, ...]  # entries the secret gate refused, by name
    summary: str  # one line
    refused: tuple[str, ...] = ()  # pulled files kept out of the store, and why
    unkeyed: tuple[str, ...] = ()  # projects that stay on this machine (no key)
    held_deletions: tuple[str, ...] = ()  # a burst of deletions not pushed (docs/adr/0052)
