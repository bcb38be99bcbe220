"""What ``coffer watch`` says: each problem and note logged once while it lasts (drift would
otherwise repeat on every pass), the current ones kept in the status file."""

from __future__ import annotations

import logging
import time

from coffer.base.report import Problem
from coffer.store.projects import now_iso
from coffer.watch.daemon import MAX_PROBLEMS
from coffer.watch.status import Status


class Reporter:
    def __init__(self, log: logging.Logger, status: Status) -> None:
        self.log = log
        self.status = status
        self.reported: dict[str, tuple[str, ...]] = {}  # key -> problem lines last logged
        self.noted: dict[str, tuple[str, ...]] = {}  # tier id -> notices last logged
        self.due: float | None = None  # when the status file should be rewritten

    def touch(self) -> None:
        """The status changed: write it at the next chance (at most once a second)."""
        self.due = self.due or time.monotonic()

    def report(self, key: str, problems: list[Problem]) -> None:
        """Log each problem once while it lasts."""
        lines = tuple(dict.fromkeys(p.line() for p in problems))
        before = self.reported.get(key, ())
        for line in lines:
            if line not in before:
                self.error_line(line)
            else:
                self.log.debug("still: %s", line)
        for line in before:
            if line not in lines:
                self.log.info("resolved: %s", line)
        if lines:
            self.reported[key] = lines
        else:
            self.reported.pop(key, None)
        current = [line for ls in self.reported.values() for line in ls]
        self.status.problems = current[:MAX_PROBLEMS]

    def notes(self, tier_id: str, label: str, notes: tuple[str, ...]) -> None:
        """Like problems: once while it lasts ("12 entries did not fit")."""
        for note in notes:
            seen = note in self.noted.get(tier_id, ())
            self.log.log(logging.DEBUG if seen else logging.INFO, "%s: note: %s", label, note)
        self.noted[tier_id] = notes

    def error(self, problem: Problem) -> None:
        self.error_line(problem.line())

    def error_line(self, line: str) -> None:
        self.log.warning("%s", line)
        self.status.last_error = line
        self.status.last_error_at = now_iso()
        self.touch()
