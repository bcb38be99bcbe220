"""What a projection run did, found or would do: plain data for every front end."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 entry``, ``2 entries``: the count and the right form of the noun."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


# NamedTuples and a plain class, not dataclasses: every command that writes makes a Report,
# and a dataclass costs ~0.5 ms to define on 3.11 (docs/adr/0023).
class Change(NamedTuple):
    """One change made (or, in a dry run, planned) outside the store."""

    path: Path
    action: str  # create, update, link, merge, disable, import, remove, restore
    detail: str = ""  # tense-free: line() puts "would" or the past tense in front
    diff: str = ""

    def line(self, *, planned: bool = False) -> str:
        verb = f"would {self.action}" if planned else _PAST.get(self.action, self.action)
        return f"{verb} {self.path}" + (f": {self.detail}" if self.detail else "")


_PAST = {
    "create": "created",
    "update": "updated",
    "link": "linked",
    "merge": "merged",
    "disable": "disabled",
    "import": "imported",
    "remove": "removed",
    "restore": "restored",
    "start": "started",
    "stop": "stopped",
}


class Problem(NamedTuple):
    """Something coffer refused to do, or found wrong, at one path."""

    path: Path
    state: str  # foreign, drifted, malformed, over-budget, broken, refused, error
    message: str

    def line(self) -> str:
        return f"{self.state}: {self.path}: {self.message}"


class Report:
    """What one run did (``changes``), refused or found wrong (``problems``), and said."""

    __slots__ = ("alerts", "changes", "notices", "problems")

    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.problems: list[Problem] = []
        self.notices: list[str] = []
        # Said even with --quiet (on stderr): switching an agent's own memory off is never
        # silent.
        self.alerts: list[str] = []

    def __repr__(self) -> str:
        return (
            f"Report(changes={self.changes!r}, problems={self.problems!r}, "
            f"notices={self.notices!r}, alerts={self.alerts!r})"
        )

    @property
    def ok(self) -> bool:
        return not self.problems

    def extend(self, other: Report) -> None:
        self.changes += other.changes
        self.problems += other.problems
        self.notices += other.notices
        self.alerts += other.alerts
