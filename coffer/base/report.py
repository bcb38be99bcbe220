"""What a projection run did, found or would do: plain data for every front end."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 entry``, ``2 entries``: the count and the right form of the noun."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


class Diff:
    """A unified diff of one file's change (binary-safe: undecodable bytes shown escaped),
    worked out only when it is shown. Every planned change carries one, but only a dry run
    prints it, and a real run should not pay for difflib."""

    __slots__ = ("after", "before", "path")

    def __init__(self, path: Path, before: bytes | None, after: bytes | None) -> None:
        self.path, self.before, self.after = path, before, after

    def __bool__(self) -> bool:
        return self.before != self.after

    def __contains__(self, text: str) -> bool:
        return text in str(self)

    def __str__(self) -> str:
        import difflib  # dry runs only

        a = (self.before or b"").decode("utf-8", "backslashreplace").splitlines(keepends=True)
        b = (self.after or b"").decode("utf-8", "backslashreplace").splitlines(keepends=True)
        lines = difflib.unified_diff(
            a,
            b,
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path) if self.after is not None else "/dev/null",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
        )


# NamedTuples and a plain class, not dataclasses: every command that writes makes a Report,
# and a dataclass costs ~0.5 ms to define on 3.11 (docs/adr/0023).
class Change(NamedTuple):
    """One change made (or, in a dry run, planned) outside the store."""

    path: Path
    action: str  # create, update, link, merge, disable, import, remove, restore
    detail: str = ""  # tense-free: line() puts "would" or the past tense in front
    diff: str | Diff = ""

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
