"""The watcher's background sync (docs/adr/0035-background-sync.md): runs a
``coffer.sync`` round on its own thread whenever the schedule (coffer.watch.sync_loop) says
so, so a refresh never waits on the network, and hands the outcome back to the worker.

The worker thread calls every method here; only :meth:`BackgroundSync._run` runs on the
round's thread, and it talks back through one locked slot and the worker's wake-up. The
round gets an :class:`App` of its own (its own store object and engine): to the watcher it
is what a ``coffer sync`` started from a shell would be, under the same file locks.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from coffer.app import App
from coffer.base.errors import CofferError
from coffer.secrets import redact
from coffer.store import Store
from coffer.store.index import INDEX_NAME
from coffer.watch.events import relevant
from coffer.watch.sync_loop import (
    DEFAULT_INTERVAL,
    FAILED,
    OK,
    REFUSED,
    UNREACHABLE,
    Outcome,
    SyncSchedule,
)

if TYPE_CHECKING:
    from typing import Any

RECHECK = 300.0  # while sync is not set up: how often to look again (one stat)
JOIN_AT_STOP = 5.0  # seconds a stopping watcher waits for a round in flight


def run_round(app: App, push: bool) -> Outcome:
    """One ``sync_once``, its result or failure as an :class:`Outcome` (never raises)."""
    from coffer.sync import api
    from coffer.sync.errors import PushRefused, RemoteUnreachable

    try:
        report = api.sync_once(app, push=push)
    except RemoteUnreachable as exc:
        return Outcome(UNREACHABLE, redact(str(exc)))
    except PushRefused as exc:
        before = exc.report  # what the round did (pulled) before the gate refused
        pulled = before.pulled if before is not None else 0
        conflicts = tuple(before.conflicts) if before is not None else ()
        return Outcome(REFUSED, redact(str(exc)), pulled, 0, conflicts)
    except Exception as exc:  # the watcher outlives any round
        return Outcome(FAILED, redact(f"{type(exc).__name__}: {exc}"))
    return Outcome(
        OK,
        redact(report.summary),
        report.pulled,
        report.pushed,
        tuple(report.conflicts),
        tuple(report.blocked),
    )


def is_configured(app: App) -> bool:
    """``coffer sync init`` was run for this store (a file check, every tick)."""
    from coffer.sync import api

    return api.configured(app)


def fingerprint(store: Store) -> frozenset[tuple[str, str, int, int]]:
    """Every entry file of every tier by name, size and mtime: equal before and after a
    burst of events when those events were the last round's own imports (or touched no
    entry: MEMORY.md, a handoff)."""
    seen: set[tuple[str, str, int, int]] = set()
    for tier in store.all_tiers():
        try:
            with os.scandir(tier.dir) as it:
                for e in it:
                    name = e.name
                    if name == INDEX_NAME or not relevant(name):
                        continue
                    st = e.stat(follow_symlinks=False)
                    seen.add((tier.info.id, name, st.st_size, st.st_mtime_ns))
        except OSError:
            continue  # a tier never written, or gone
    return frozenset(seen)


class Hooks(NamedTuple):
    """What a round needs from the world; tests pass fakes."""

    round: Callable[[App, bool], Outcome] = run_round
    configured: Callable[[App], bool] = is_configured
    fingerprint: Callable[[Store], object] = fingerprint
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time


class BackgroundSync:
    """The schedule, the round's thread and what the status file shows of them.

    ``interval``: seconds between pull rounds as ``--sync-interval`` gave them; None takes
    the settings' ``sync_interval`` (re-read by :meth:`reload`), then the default; 0 turns
    background sync off (``--no-sync``)."""

    def __init__(
        self,
        app: App,
        log: logging.Logger,
        wake: Callable[[], None],
        *,
        interval: float | None,
        hooks: Hooks | None = None,
    ) -> None:
        self.app = app
        self.log = log
        self.wake = wake
        self.hooks = hooks or Hooks()
        self.flag = interval
        self.off = interval == 0
        self.schedule = SyncSchedule(self.hooks.clock(), interval=self._interval())
        self.active: bool | None = None  # sync set up for this store (None: not looked yet)
        self.recheck_at = 0.0
        self.baseline: object = None  # the store's entries after the last round
        self.dirty = True  # the status file should show a new snapshot
        self._round_app: App | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._done: tuple[Outcome, object] | None = None

    def _interval(self) -> float:
        if self.flag:
            return self.flag
        from coffer.store import settings

        try:
            chosen = settings.load(self.app.store_root).sync_interval
        except CofferError as exc:  # the watcher reports bad settings on its own pass
            self.log.debug("sync: settings unreadable, default interval: %s", exc)
            chosen = None
        return chosen or DEFAULT_INTERVAL

    def reload(self) -> None:
        """The settings changed: a new ``sync_interval`` applies from now."""
        if not self.off and self.flag is None:
            self.schedule.set_interval(self._interval(), self.hooks.clock())
            self.dirty = True

    # ---- the worker's side -------------------------------------------------------------

    def changed(self) -> None:
        """A tier's entries may have changed (a burst the watcher processed)."""
        if self.active:
            self.schedule.changed(self.hooks.clock())

    def next_due(self) -> float | None:
        """When the worker should wake for sync (None: only a round's end wakes it)."""
        if self._thread is not None or self.off:
            return None
        if not self.active:
            return self.recheck_at
        return self.schedule.next_due()

    def tick(self) -> bool:
        """Take a finished round's outcome and start a due one; True when the finished
        round pulled entries (the watcher then re-renders every tier)."""
        pulled = self._collect()
        now = self.hooks.clock()
        if self._thread is None and not self.off and self._look(now):
            self._maybe_start(now)
        return pulled

    def _look(self, now: float) -> bool:
        """Whether sync is set up, asked at most every RECHECK seconds while it is not."""
        if self.active or now >= self.recheck_at:
            try:
                active = self.hooks.configured(self.app)
            except Exception as exc:  # coffer.sync missing or broken: the watcher still runs
                self.log.debug("sync: not available: %s: %s", type(exc).__name__, exc)
                active = False
            if active != self.active:
                if active:
                    self.log.info("sync: on, a round every %g s", self.schedule.interval)
                elif self.active is not None:
                    self.log.info("sync: off (not set up any more)")
                self.active, self.dirty = active, True
                self.schedule.next_pull = min(self.schedule.next_pull, now)
            self.recheck_at = now + RECHECK
        return bool(self.active)

    def _maybe_start(self, now: float) -> None:
        schedule = self.schedule
        due = schedule.next_due()
        if due is None or now < due:
            return
        change = schedule.change_due()
        if schedule.retry_at is None and change is not None and change <= now:
            if self._fingerprint() == self.baseline:
                schedule.drop_change()  # the events were the last round's own writes
                self.log.debug("sync: no entry changed since the last round")
                if schedule.next_pull > now:
                    self.dirty = True
                    return
        elif schedule.push_held and self._fingerprint() != self.baseline:
            schedule.changed(now)  # an entry changed where no event reached us
        rnd = schedule.start(now)
        if rnd is None:
            return
        self.log.debug("sync: round (%s%s)", rnd.reason, "" if rnd.push else ", pull only")
        self.dirty = True
        thread = threading.Thread(
            target=self._run, args=(rnd.push,), name="coffer-sync", daemon=True
        )
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had: a failed round, backed off
            for level, line in schedule.finished(now, Outcome(FAILED, f"RuntimeError: {exc}")):
                self.log.log(level, "%s", line)
            return
        self._thread = thread

    def _fingerprint(self) -> object:
        """The store's entries now; on an error a value equal to nothing (so a round runs:
        when in doubt, sync), never an exception that would leave a due round unstarted."""
        try:
            return self.hooks.fingerprint(self.app.store)
        except Exception as exc:
            self.log.debug("sync: cannot list the store's entries: %s", exc)
            return object()

    def _collect(self) -> bool:
        with self._lock:
            done, self._done = self._done, None
        if done is None:
            return False
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        outcome, after = done
        self.baseline = after
        for level, line in self.schedule.finished(self.hooks.clock(), outcome):
            self.log.log(level, "%s", line)
        self.dirty = True
        return outcome.pulled > 0

    def snapshot(self) -> dict[str, Any] | None:
        """What ``coffer watch --status`` shows (None: sync is not set up)."""
        self.dirty = False
        if not self.active:
            return None
        return self.schedule.snapshot(self.hooks.clock(), self.hooks.wall())

    def stop(self) -> None:
        """Give a round in flight a moment to finish; past that its git (and the ssh that
        git started) is killed, so nothing outlives the watcher (its git commands are
        atomic on their own: the next round starts from what was committed)."""
        thread = self._thread
        if thread is not None:
            thread.join(JOIN_AT_STOP)
            if thread.is_alive():
                from coffer.sync import gitcmd

                gitcmd.stop_all()
                thread.join(JOIN_AT_STOP)
                self.log.info("sync: a round was still running at stop; it was cut short")

    # ---- the round's thread --------------------------------------------------------------

    def _run(self, push: bool) -> None:
        if self._round_app is None:
            store = self.app.store
            self._round_app = App(self.app.environ, Store(store.root, store.home))
        try:
            outcome = self.hooks.round(self._round_app, push)
        except Exception as exc:  # run_round catches sync's errors; this is anything else
            outcome = Outcome(FAILED, redact(f"{type(exc).__name__}: {exc}"))
        try:
            after: object = self.hooks.fingerprint(self._round_app.store)
        except Exception:
            after = None
        with self._lock:
            self._done = (outcome, after)
        self.wake()
