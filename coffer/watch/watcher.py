"""``coffer watch``: keeps every projection current while agents write memory.

With coffer/watch/observers.py, the only modules that import watchdog
(docs/adr/0008-watch-daemon.md). It watches the
canonical store, never a rendered file: each tier directory (the global one and every
projected project's) non-recursively, the store root (``projects.json``, ``config.json``)
and ``journal/`` (a project projected after the start). The observer thread only classifies
an event and enqueues its key; the main thread is the single worker: it sleeps on a socket
pair, runs one ``Engine.refresh`` per burst of a key, and writes the status at most once a
second. An unchanged render writes nothing, and an event about ``MEMORY.md`` whose content is
what the last pass left is dropped, so coffer's own writes end a burst instead of looping.

This module is the loop and the worker; what an event means is coffer.watch.events, which
directories are watched coffer.watch.watchset, and what gets logged coffer.watch.reporting.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from watchdog.events import (
    FileSystemEvent,
)

from coffer.app import App
from coffer.base import fsutil
from coffer.base.report import Problem, Report
from coffer.projection.engine import Engine
from coffer.store import Store, Tier
from coffer.store.index import INDEX_NAME
from coffer.store.projects import now_iso
from coffer.store.settings import CONFIG
from coffer.watch import daemon
from coffer.watch.events import (
    CONFIG_KEY,
    PROJECTS,
    TIER,
    FileEvent,
    classify,
    digest,
)
from coffer.watch.observers import Observers
from coffer.watch.reporting import Reporter
from coffer.watch.status import Status, write_status
from coffer.watch.sync_runner import BackgroundSync
from coffer.watch.watchset import WatchSet

if TYPE_CHECKING:
    from typing import Any

DEFAULT_DEBOUNCE = 0.15
MAX_WAIT = 1.0
DEFAULT_POLL_INTERVAL = 2.0
STATUS_EVERY = 1.0  # at most one status write per second


@dataclass(frozen=True)
class WatchOptions:
    """How ``coffer watch`` waits for changes (its command-line options)."""

    poll: bool = False  # poll even where native file events work
    poll_interval: float = DEFAULT_POLL_INTERVAL
    debounce: float = DEFAULT_DEBOUNCE  # quiet time that ends a burst
    max_wait: float = MAX_WAIT  # a burst is processed after this even if events continue
    sync: bool = True  # run coffer sync rounds in the background when sync is set up
    sync_interval: float | None = None  # seconds between pulls; None: settings, then 300


class Watcher:
    """The daemon for one store. ``run`` blocks until SIGTERM/SIGINT or ``request_stop``."""

    def __init__(
        self,
        store: Store,
        environ: Mapping[str, str],
        *,
        log: logging.Logger,
        options: WatchOptions | None = None,
    ) -> None:
        opts = options or WatchOptions()
        self.store = store
        self.environ = environ
        self.app = App(environ, store)  # the composition root (docs/adr/0026)
        self.log = log
        self.force_poll = opts.poll
        self.poll_interval = opts.poll_interval
        self.coalescer = daemon.Coalescer(opts.debounce, opts.max_wait)
        self.waker = daemon.Waker()
        self.lock = daemon.InstanceLock(store.root)
        self.status = Status(os.getpid(), str(store.root), now_iso())
        self.stop_requested = False
        self.exit_code = 0
        self.engine = self._new_engine()
        self.reporter = Reporter(log, self.status)
        self.observers = Observers(
            self._on_event, self.status, log, opts.poll_interval, self.reporter.error
        )
        self.watches = self.observers.watches  # role -> watch
        self.watchset = WatchSet(store, environ, self.observers, self.reporter, self.coalescer)
        self.index_digest: dict[str, str | None] = {}  # tier id -> MEMORY.md after our pass
        every = opts.sync_interval if opts.sync else 0.0  # 0: off
        self.sync = BackgroundSync(self.app, log, self.waker.wake, interval=every)
        self._last_status = 0.0
        self._old_handlers: dict[int, Any] = {}

    # ---- lifecycle ---------------------------------------------------------------------

    def run(self) -> int:
        self.lock.acquire()  # AlreadyRunningError: exit before touching anything
        try:
            self._write_status()
            self._install_signals()
            self._start()
            while not self._stopping():
                for burst in self.coalescer.pop_due():
                    if self._stopping():
                        break
                    self._process(burst)
                self._sync_tick()
                self._flush_status()
                if not self._stopping():
                    self.waker.wait(self._timeout())
        finally:
            self._shutdown()
        return self.exit_code

    def _stopping(self) -> bool:
        return self.stop_requested  # set by a signal handler between any two statements

    def request_stop(self) -> None:
        self.stop_requested = True
        self.waker.wake()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.stop_requested:
            raise KeyboardInterrupt  # a second Ctrl-C: stop now
        self.stop_requested = True  # the worker finishes its current refresh, then exits
        # Ctrl-C exits 130, as a shell expects of an interrupted command; SIGTERM (a
        # service manager stopping it) is a clean stop, exit 0.
        self.exit_code = 130 if signum == signal.SIGINT else 0

    def _install_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        signal.set_wakeup_fd(self.waker.signal_fd, warn_on_full_buffer=False)
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)

    def _restore_signals(self) -> None:
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)
        if self._old_handlers:
            signal.set_wakeup_fd(-1)
        self._old_handlers.clear()

    def _start(self) -> None:
        root = self.store.root
        self.store.global_tier(create=True)
        fsutil.ensure_dir(self.engine.journal.dir)
        reason = "--poll" if self.force_poll else daemon.polling_reason(root)
        self.status.polling_reason = reason
        self.observers.start(polling=reason is not None)
        if reason is not None:
            self.log.info("polling every %g s: %s", self.poll_interval, reason)
        self.watchset.rescan(self.engine, force=True)
        self.status.state = "watching"
        self._write_status()
        self.log.info(
            "watching %s: %d projects and the global tier (%s, pid %d)",
            root,
            self.status.projects,
            self.status.observer,
            os.getpid(),
        )

    def _shutdown(self) -> None:
        self.log.info("stopping")
        self.sync.stop()
        self.observers.stop()
        self.status.state = "stopped"
        self.status.stopped_at = now_iso()
        self.status.pending = len(self.coalescer)
        with contextlib.suppress(Exception):
            self._write_status()
        self._restore_signals()
        self.waker.close()
        self.lock.release()
        self.log.info("stopped")

    # ---- the observer thread: classify and enqueue, nothing else -----------------------

    def _on_event(self, role: str, event: FileSystemEvent) -> None:
        try:
            src = os.fsdecode(event.src_path)
            dest = os.fsdecode(event.dest_path) if event.dest_path else ""
            w = self.watches.get(role)
            watched = str(w.path) if w is not None else None
            seen = classify(
                role, watched, FileEvent(src, dest, event.is_directory, event.event_type)
            )
            if seen.dead and w is not None:
                w.dead = True
            if seen.key is None:
                return
            self.status.events += 1
            if self.log.isEnabledFor(logging.DEBUG):
                self.log.debug(
                    "event %s %s%s", event.event_type, src, f" -> {dest}" if dest else ""
                )
            if self.coalescer.add(seen.key, index_only=seen.index_only):
                self.waker.wake()
        except Exception:  # the observer thread must never die
            self.log.exception("error while handling a file event")

    # ---- the worker --------------------------------------------------------------------

    def _timeout(self) -> float | None:
        now = time.monotonic()
        times = (self.coalescer.next_due(), self.reporter.due, self.sync.next_due())
        due = [t for t in times if t is not None]
        return max(0.0, min(due) - now) if due else None  # None: sleep until an event

    def _process(self, burst: daemon.Burst) -> None:
        self.log.debug("pass %s after %d events", burst.key, burst.events)
        self.reporter.touch()
        try:
            if burst.key == CONFIG_KEY:
                self.engine = self._new_engine()
                self.log.info("reloaded settings from %s", self.store.root / CONFIG)
                self.sync.reload()
                self.watchset.rescan(self.engine, force=True)
            elif burst.key == PROJECTS:
                self.watchset.rescan(self.engine, force=False)
            elif burst.key.startswith(TIER):
                tier_id = burst.key.removeprefix(TIER)
                w = self.watches.get(burst.key)
                if w is None or w.tier is None:
                    return
                if burst.index_only and digest(w.tier.dir / INDEX_NAME) == self.index_digest.get(
                    tier_id
                ):
                    self.status.suppressed += 1
                    self.log.debug("ignored coffer's own write of %s", w.tier.dir / INDEX_NAME)
                    return
                self._refresh(w.tier)
                self.sync.changed()  # a memory may have changed: push it (debounced)
        except Exception as exc:  # the daemon survives anything one pass throws
            self.reporter.error(
                Problem(self.store.root, "error", f"{burst.key}: {type(exc).__name__}: {exc}")
            )

    def _new_engine(self) -> Engine:
        # A fresh engine re-reads the settings; the app loads the adapters only once.
        return self.app.engine()

    def _refresh(self, tier: Tier) -> None:
        report = Report()
        try:
            if self.store.regenerate_index(tier):
                self.log.info("%s: updated %s", tier.label, tier.dir / INDEX_NAME)
                self.status.changes += 1
            root = Path(tier.info.root) if tier.scope == "project" else None
            report = self.engine.refresh(tier.scope, root)
        except Exception as exc:
            report.problems.append(
                Problem(tier.dir, "error", f"refresh failed: {type(exc).__name__}: {exc}")
            )
        self.index_digest[tier.info.id] = digest(tier.dir / INDEX_NAME)
        self.status.renders += 1
        for change in report.changes:
            self.log.info("%s: %s", tier.label, change.line())
            self.status.changes += 1
        self.reporter.notes(tier.info.id, tier.label, tuple(report.notices))
        self.reporter.report(TIER + tier.info.id, report.problems)

    def _sync_tick(self) -> None:
        try:
            pulled = self.sync.tick()
            self.reporter.report("sync", [])
        except Exception as exc:  # listing the store's entries failed: said once, retried
            why = f"background sync: {type(exc).__name__}: {exc}"
            self.reporter.report("sync", [Problem(self.store.root, "error", why)])
            return
        if pulled:  # the round imported entries: the normal re-render of every watched tier
            for key in [PROJECTS, *(k for k in self.watches if k.startswith(TIER))]:
                self.coalescer.add(key, immediate=True)
        if self.sync.dirty:
            self.status.sync = self.sync.snapshot()
            self.reporter.touch()

    # ---- status ------------------------------------------------------------------------

    def _flush_status(self) -> None:
        if self.reporter.due is None:
            return
        now = time.monotonic()
        if now - self._last_status < STATUS_EVERY:
            self.reporter.due = self._last_status + STATUS_EVERY
            return
        self._write_status()

    def _write_status(self) -> None:
        self.status.pending = len(self.coalescer)
        try:
            write_status(self.store.root, self.status)
        except Exception as exc:
            self.log.warning("cannot write the status file: %s", exc)
        self._last_status = time.monotonic()
        self.reporter.due = None


def run(
    store: Store,
    environ: Mapping[str, str],
    options: WatchOptions,
    *,
    log_file: Path | None = None,
    verbose: bool = False,
) -> int:
    """Run the daemon in the foreground until stopped: 0 after SIGTERM, 130 after Ctrl-C."""
    log = daemon.setup_logging(log_file, verbose)
    return Watcher(store, environ, log=log, options=options).run()
