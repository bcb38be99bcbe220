"""When ``coffer watch`` runs a sync round (docs/adr/0035-background-sync.md).

A pure state machine: no clock, thread, network or logger. The caller
(coffer.watch.sync_runner) feeds it monotonic times, memory changes and each round's
:class:`Outcome`, starts a round when :meth:`SyncSchedule.start` hands one out, and logs the
lines :meth:`SyncSchedule.finished` returns. So every rule below is tested by feeding it
times, without sleeping.

- A round every ``interval`` seconds (pull), and one ``debounce`` seconds after the last
  memory change (push), at the latest ``max_wait`` after the first change of a burst.
- One round at a time; a change during a round arms the next one.
- ``RemoteUnreachable`` (and any other failure): retry after 30 s, doubling up to
  ``backoff_cap``; one log line going offline, one coming back, nothing in between.
- ``PushRefused`` or a report with blocked entries: logged once per distinct blocked set;
  until a memory changes, rounds only pull (pushing the same refused set is pointless).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any

DEFAULT_INTERVAL = 300.0  # seconds between pull rounds
DEFAULT_DEBOUNCE = 10.0  # quiet time after the last memory change before pushing
MAX_WAIT = 60.0  # a long burst of changes is pushed at the latest this long after its start
BACKOFF_FIRST = 30.0  # the first retry after a failed round
BACKOFF_CAP = 1800.0  # the longest wait between retries

OK, UNREACHABLE, REFUSED, FAILED = "ok", "unreachable", "refused", "failed"

Line = tuple[int, str]  # a log level and a message


class Outcome(NamedTuple):
    """What one round came to: ``ok`` with its report's numbers, or the kind of failure."""

    kind: str  # OK, UNREACHABLE, REFUSED or FAILED
    detail: str = ""  # the report's summary, or the error message
    pulled: int = 0
    pushed: int = 0
    conflicts: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()


class Round(NamedTuple):
    """A round to run now."""

    push: bool
    reason: str  # "start", "interval", "change" or "retry"


def iso(wall: float) -> str:
    """A wall-clock time as coffer's other stamps are written (``now_iso``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(wall))


def _ago(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class SyncSchedule:
    """Decides when a round runs and what gets logged about it. Not thread-safe: one
    thread (the watcher's worker) calls every method."""

    def __init__(
        self,
        now: float,
        *,
        interval: float = DEFAULT_INTERVAL,
        debounce: float = DEFAULT_DEBOUNCE,
        max_wait: float = MAX_WAIT,
        backoff_cap: float = BACKOFF_CAP,
    ) -> None:
        self.interval = interval
        self.debounce = debounce
        self.max_wait = max(max_wait, debounce)
        self.backoff_cap = backoff_cap
        self.next_pull = now  # the first round runs at once: pull what came in meanwhile
        self.change_first: float | None = None  # the pending burst of memory changes
        self.change_last: float | None = None
        self.running: Round | None = None
        self.failures = 0  # consecutive failed rounds
        self.retry_at: float | None = None  # set while failing: replaces every other due time
        self.offline_since: float | None = None
        self.failure_logged: str | None = None  # the non-network error last logged
        self.blocked: str | None = None  # the refused set last logged (its message)
        self.push_held = False  # a refused push waits for a memory change
        self.last_round_at: float | None = None
        self.last_result: str | None = None
        self.last_error: str | None = None
        self.last_error_at: float | None = None
        self.rounds = 0
        self.pulled = 0
        self.pushed = 0

    # ---- inputs ------------------------------------------------------------------------

    def changed(self, now: float) -> None:
        """A memory changed in the store: push it after the debounce."""
        if self.change_first is None:
            self.change_first = now
        self.change_last = now

    def drop_change(self) -> None:
        """The pending change turned out to be the last round's own writes."""
        self.change_first = self.change_last = None

    def set_interval(self, interval: float, now: float) -> None:
        if interval != self.interval:
            self.next_pull = min(self.next_pull, now + interval)
            self.interval = interval

    # ---- when ----------------------------------------------------------------------------

    def change_due(self) -> float | None:
        if self.change_first is None or self.change_last is None:
            return None
        return min(self.change_last + self.debounce, self.change_first + self.max_wait)

    def next_due(self) -> float | None:
        """When the next round should start; None while one runs (its end re-plans)."""
        if self.running is not None:
            return None
        if self.retry_at is not None:
            return self.retry_at  # failing: the back-off decides, changes wait for it
        change = self.change_due()
        return self.next_pull if change is None else min(change, self.next_pull)

    def start(self, now: float) -> Round | None:
        """The round to run now, or None when none is due (or one is running)."""
        due = self.next_due()
        if due is None or now < due:
            return None
        if self.retry_at is not None:
            reason = "retry"
        elif self.last_round_at is None:
            reason = "start"
        else:
            change = self.change_due()
            reason = "change" if change is not None and change <= now else "interval"
        pending = self.change_first is not None
        self.drop_change()  # a change from now on arms the next round
        if pending:
            self.push_held = False  # the entries changed: the gate may pass them now
        self.running = Round(push=pending or not self.push_held, reason=reason)
        return self.running

    # ---- outcomes ------------------------------------------------------------------------

    def finished(self, now: float, outcome: Outcome) -> list[Line]:
        """Record the running round's outcome; the lines to log."""
        self.running = None
        self.last_round_at = now
        self.next_pull = now + self.interval
        if outcome.kind == UNREACHABLE:
            return self._unreachable(now, outcome.detail)
        if outcome.kind == FAILED:
            return self._failed(now, outcome.detail)
        if outcome.kind == REFUSED:
            # The gate refuses before the network is tried: says nothing about reachability.
            if self.retry_at is not None:
                self.retry_at = now + self._delay()
            self.last_result = f"push refused: {outcome.detail}"
            return self._refused(now, outcome.detail, hold=True)
        lines = self._recovered(now)
        self.rounds += 1
        self.pulled += outcome.pulled
        self.pushed += outcome.pushed
        self.last_result = outcome.detail
        moved = outcome.pulled or outcome.pushed or outcome.conflicts
        level = logging.WARNING if outcome.conflicts else logging.INFO
        lines.append((level if moved else logging.DEBUG, f"sync: {outcome.detail}"))
        if outcome.blocked:
            names = ", ".join(outcome.blocked)
            held = f"{len(outcome.blocked)} held back: {names}"
            return lines + self._refused(now, held, hold=False)
        if self.blocked is not None:
            self.blocked = None
            lines.append((logging.INFO, "sync: the secret gate no longer holds anything back"))
        return lines

    def _delay(self) -> float:
        return min(self.backoff_cap, BACKOFF_FIRST * 2.0 ** min(max(self.failures - 1, 0), 20))

    def _backoff(self, now: float) -> float:
        self.failures += 1
        delay = self._delay()
        self.retry_at = now + delay
        return delay

    def _error(self, now: float, detail: str) -> None:
        self.last_error = detail
        self.last_error_at = now
        self.last_result = f"failed: {detail}"

    def _unreachable(self, now: float, detail: str) -> list[Line]:
        delay = self._backoff(now)
        self._error(now, detail)
        if self.offline_since is not None:
            return [(logging.DEBUG, f"sync: still offline ({detail}); next try in {_ago(delay)}")]
        self.offline_since = now
        return [
            (
                logging.WARNING,
                f"sync: remote unreachable, working offline ({detail}); "
                f"retrying with back-off, next try in {_ago(delay)}",
            )
        ]

    def _failed(self, now: float, detail: str) -> list[Line]:
        delay = self._backoff(now)
        self._error(now, detail)
        if detail == self.failure_logged:
            return [(logging.DEBUG, f"sync: still failing ({detail}); next try in {_ago(delay)}")]
        self.failure_logged = detail
        return [(logging.WARNING, f"sync: round failed: {detail}; next try in {_ago(delay)}")]

    def _recovered(self, now: float) -> list[Line]:
        """A round that got through after failures: one line, and the back-off ends."""
        lines: list[Line] = []
        if self.offline_since is not None:
            lines.append(
                (
                    logging.INFO,
                    f"sync: back online after {_ago(now - self.offline_since)} offline "
                    f"({self.failures} failed {'try' if self.failures == 1 else 'tries'})",
                )
            )
        elif self.failure_logged is not None:
            lines.append((logging.INFO, "sync: rounds work again"))
        self.offline_since = self.retry_at = self.failure_logged = None
        self.failures = 0
        return lines

    def _refused(self, now: float, detail: str, *, hold: bool) -> list[Line]:
        """Entries the secret gate keeps from the remote: logged once per distinct set. A
        refused push (``hold``) is not tried again until a memory changes; a report that
        only held some back pushed the rest, so rounds go on as before."""
        self.push_held = self.push_held or hold
        if detail == self.blocked:
            return [(logging.DEBUG, f"sync: still held back: {detail}")]
        self.blocked = detail
        self.last_error, self.last_error_at = f"push refused: {detail}", now
        return [(logging.WARNING, f"sync: push refused by the secret gate: {detail}")]

    # ---- what --status shows -------------------------------------------------------------

    def state(self) -> str:
        if self.running is not None:
            return "running"
        if self.offline_since is not None:
            return "offline"
        if self.retry_at is not None:
            return "failing"
        return "held" if self.push_held else "idle"

    def snapshot(self, now: float, wall: float) -> dict[str, Any]:
        """The schedule as JSON for the status file, monotonic times made wall-clock."""

        def at(t: float | None) -> str | None:
            return None if t is None else iso(wall + (t - now))

        return {
            "state": self.state(),
            "interval": self.interval,
            "last_round_at": at(self.last_round_at),
            "last_result": self.last_result,
            "next_round_at": at(self.next_due()),
            "offline_since": at(self.offline_since),
            "failures": self.failures,
            "last_error": self.last_error,
            "last_error_at": at(self.last_error_at),
            "held_back": self.blocked,
            "rounds": self.rounds,
            "pulled": self.pulled,
            "pushed": self.pushed,
        }
