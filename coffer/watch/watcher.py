"""``coffer watch``: keeps every projection current while agents write memory.

The only module that imports watchdog (docs/adr/0008-watch-daemon.md). It watches the
canonical store, never a rendered file: each tier directory (the global one and every
projected project's) non-recursively, the store root (``projects.json``, ``config.json``)
and ``journal/`` (a project projected after the start). The observer thread only classifies
an event and enqueues its key; the main thread is the single worker: it sleeps on a socket
pair, runs one ``Engine.refresh`` per burst of a key, and writes the status at most once a
second. An unchanged render writes nothing, and an event about ``MEMORY.md`` whose content is
what the last pass left is dropped, so coffer's own writes end a burst instead of looping.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from watchdog.events import (
    DirDeletedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers.api import BaseObserver, ObservedWatch

from coffer import fsutil
from coffer.app import App
from coffer.errors import CofferError
from coffer.projection.engine import Engine
from coffer.report import Problem, Report
from coffer.store import watch_state
from coffer.store.index import INDEX_NAME
from coffer.store.projects import now_iso
from coffer.store.settings import CONFIG
from coffer.store.store import Store, Tier
from coffer.store.ulid import GLOBAL_ID
from coffer.watch import daemon

DEFAULT_DEBOUNCE = 0.15
MAX_WAIT = 1.0
DEFAULT_POLL_INTERVAL = 2.0
STATUS_EVERY = 1.0  # at most one status write per second
# Only the inotify masks these need are requested: our own reads (IN_OPEN, IN_CLOSE_NOWRITE)
# never wake the daemon.
_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]
_PROJECTS = "projects"
_CONFIG = "config"
_TIER = "tier:"
_HANDOFFS = "handoffs:"


def _relevant(name: str) -> bool:
    """A name that can change a tier's output: entry files and MEMORY.md (what the catalog
    reads), never coffer's temporary files, hidden files or editor droppings."""
    return name.endswith(".md") and not name.startswith(".") and not fsutil.is_tmp_name(name)


def _digest(path: Path) -> str | None:
    try:
        data = fsutil.read_bytes_or_none(path)
    except (OSError, ValueError):
        return None
    return hashlib.sha256(data).hexdigest() if data is not None else None


class _Handler(FileSystemEventHandler):
    def __init__(self, sink: Callable[[str, FileSystemEvent], None], role: str) -> None:
        self._sink = sink
        self._role = role

    def on_any_event(self, event: FileSystemEvent) -> None:
        self._sink(self._role, event)


@dataclass
class _Watch:
    path: Path
    handler: _Handler
    observed: ObservedWatch | None = None
    tier: Tier | None = None
    dead: bool = False  # the directory itself was deleted or moved away
    recursive: bool = False  # handoffs may sit in subdirectories (docs/vault-format.md §7.1)


class Watcher:
    """The daemon for one store. ``run`` blocks until SIGTERM/SIGINT or ``request_stop``."""

    def __init__(
        self,
        store: Store,
        environ: Mapping[str, str],
        *,
        log: logging.Logger,
        poll: bool = False,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        debounce: float = DEFAULT_DEBOUNCE,
        max_wait: float = MAX_WAIT,
    ) -> None:
        self.store = store
        self.environ = environ
        self.app = App(environ, store)  # the composition root (docs/adr/0026)
        self.log = log
        self.force_poll = poll
        self.poll_interval = poll_interval
        self.coalescer = daemon.Coalescer(debounce, max_wait)
        self.waker = daemon.Waker()
        self.lock = daemon.InstanceLock(store.root)
        self.status = watch_state.Status(os.getpid(), str(store.root), now_iso())
        self.stop_requested = False
        self.exit_code = 0
        self.engine = self._new_engine()
        self.observer: BaseObserver | None = None
        self.watches: dict[str, _Watch] = {}  # role -> watch
        self.index_digest: dict[str, str | None] = {}  # tier id -> MEMORY.md after our pass
        self.reported: dict[str, tuple[str, ...]] = {}  # key -> problem lines last logged
        self.noted: dict[str, tuple[str, ...]] = {}  # tier id -> notices last logged
        self._scan_sig: object = None
        self._status_due: float | None = None
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
        self._new_observer(polling=reason is not None)
        if reason is not None:
            self.log.info("polling every %g s: %s", self.poll_interval, reason)
        self._rescan(force=True)
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
        if self.observer is not None:
            with contextlib.suppress(Exception):
                self.observer.stop()
                self.observer.join(timeout=10)
        self.status.state = "stopped"
        self.status.stopped_at = now_iso()
        self.status.pending = len(self.coalescer)
        with contextlib.suppress(Exception):
            self._write_status()
        self._restore_signals()
        self.waker.close()
        self.lock.release()
        self.log.info("stopped")

    # ---- observers ---------------------------------------------------------------------

    def _new_observer(self, *, polling: bool) -> None:
        observer: BaseObserver
        if polling:
            from watchdog.observers.polling import PollingObserver

            observer = PollingObserver(timeout=self.poll_interval)
        else:
            from watchdog.observers import Observer

            observer = Observer()
        observer.start()
        self.observer = observer
        name = type(observer).__name__
        self.status.observer = name
        self.status.mode = "polling" if "Polling" in name else "native"
        self.status.poll_interval = self.poll_interval if self.status.mode == "polling" else None

    def _schedule(self, w: _Watch) -> bool:
        assert self.observer is not None
        try:
            w.observed = self.observer.schedule(
                w.handler, str(w.path), recursive=w.recursive, event_filter=_EVENTS
            )
            return True
        except OSError as exc:
            if self.status.mode == "polling":
                self._error(Problem(w.path, "error", f"cannot watch it: {exc}"))
                return False
            # Native events unavailable (inotify watch limit, unsupported file system): poll.
            self.log.warning("native file events failed on %s (%s); polling instead", w.path, exc)
        with contextlib.suppress(Exception):
            self.observer.stop()
            self.observer.join(timeout=10)
        self._new_observer(polling=True)
        for other in self.watches.values():
            if other is not w:
                self._schedule(other)
        return self._schedule(w)

    def _watch(
        self, role: str, path: Path, tier: Tier | None = None, *, recursive: bool = False
    ) -> bool:
        w = _Watch(path, _Handler(self._on_event, role), tier=tier, recursive=recursive)
        if not self._schedule(w):
            return False
        self.watches[role] = w
        return True

    def _unwatch(self, role: str) -> None:
        w = self.watches.pop(role, None)
        if w is not None and w.observed is not None and self.observer is not None:
            with contextlib.suppress(Exception):  # already gone with its directory
                self.observer.unschedule(w.observed)

    # ---- the observer thread: classify and enqueue, nothing else -----------------------

    def _on_event(self, role: str, event: FileSystemEvent) -> None:
        try:
            src = os.fsdecode(event.src_path)
            dest = os.fsdecode(event.dest_path) if event.dest_path else ""
            names = [os.path.basename(p) for p in (src, dest) if p]
            key: str | None = None
            index_only = False
            w = self.watches.get(role)
            if event.is_directory:
                if (
                    w is not None
                    and src == str(w.path)
                    and event.event_type in ("deleted", "moved")
                ):
                    w.dead = True
                    key = _PROJECTS  # the rescan watches it again
            elif role == "root":
                if CONFIG in names:
                    key = _CONFIG
                elif "projects.json" in names:
                    key = _PROJECTS
            elif role.startswith(_HANDOFFS):
                # A handoff saved, retired or removed: that project's blocks list them.
                if any(n.endswith(".md") for n in names):
                    key = _TIER + role.removeprefix(_HANDOFFS).split(":", 1)[0]
            elif role == "journal":
                if any(n.endswith(".json") and not fsutil.is_tmp_name(n) for n in names):
                    key = _PROJECTS
            else:
                relevant = [n for n in names if _relevant(n)]
                if relevant:
                    key = role
                    index_only = all(n == INDEX_NAME for n in relevant)
            if key is None:
                return
            self.status.events += 1
            if self.log.isEnabledFor(logging.DEBUG):
                self.log.debug(
                    "event %s %s%s", event.event_type, src, f" -> {dest}" if dest else ""
                )
            if self.coalescer.add(key, index_only=index_only):
                self.waker.wake()
        except Exception:  # the observer thread must never die
            self.log.exception("error while handling a file event")

    # ---- the worker --------------------------------------------------------------------

    def _timeout(self) -> float | None:
        now = time.monotonic()
        due = [t for t in (self.coalescer.next_due(), self._status_due) if t is not None]
        return max(0.0, min(due) - now) if due else None  # None: sleep until an event

    def _process(self, burst: daemon.Burst) -> None:
        self.log.debug("pass %s after %d events", burst.key, burst.events)
        self._status_due = self._status_due or time.monotonic()
        try:
            if burst.key == _CONFIG:
                self.engine = self._new_engine()
                self.log.info("reloaded settings from %s", self.store.root / CONFIG)
                self._rescan(force=True)
            elif burst.key == _PROJECTS:
                self._rescan(force=False)
            elif burst.key.startswith(_TIER):
                tier_id = burst.key.removeprefix(_TIER)
                w = self.watches.get(burst.key)
                if w is None or w.tier is None:
                    return
                if burst.index_only and _digest(w.tier.dir / INDEX_NAME) == self.index_digest.get(
                    tier_id
                ):
                    self.status.suppressed += 1
                    self.log.debug("ignored coffer's own write of %s", w.tier.dir / INDEX_NAME)
                    return
                self._refresh(w.tier)
        except Exception as exc:  # the daemon survives anything one pass throws
            self._error(
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
        self.index_digest[tier.info.id] = _digest(tier.dir / INDEX_NAME)
        self.status.renders += 1
        for change in report.changes:
            self.log.info("%s: %s", tier.label, change.line())
            self.status.changes += 1
        notes = tuple(report.notices)
        for note in notes:  # like problems: once while it lasts ("12 entries did not fit")
            seen = note in self.noted.get(tier.info.id, ())
            self.log.log(logging.DEBUG if seen else logging.INFO, "%s: note: %s", tier.label, note)
        self.noted[tier.info.id] = notes
        self._report(_TIER + tier.info.id, report.problems)

    def _report(self, key: str, problems: list[Problem]) -> None:
        """Log each problem once while it lasts (drift would otherwise repeat on every pass)."""
        lines = tuple(dict.fromkeys(p.line() for p in problems))
        before = self.reported.get(key, ())
        for line in lines:
            if line not in before:
                self._error_line(line)
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
        self.status.problems = current[: daemon.MAX_PROBLEMS]

    def _error(self, problem: Problem) -> None:
        self._error_line(problem.line())

    def _error_line(self, line: str) -> None:
        self.log.warning("%s", line)
        self.status.last_error = line
        self.status.last_error_at = now_iso()
        self._status_due = self._status_due or time.monotonic()

    def _rescan(self, *, force: bool) -> None:
        """Watch the global tier and every projected project; drop the rest."""
        sig = self._signature()
        for w in self.watches.values():
            # watchdog reports no event when a watched directory itself is moved away.
            w.dead = w.dead or not w.path.is_dir()
        dead = any(w.dead for w in self.watches.values())
        if sig == self._scan_sig and not force and not dead:
            return
        self._scan_sig = sig
        try:
            ids = {p.id for p in self.engine.projected_projects()} | {GLOBAL_ID}
            wanted = {_TIER + t.info.id: t for t in self.store.all_tiers() if t.info.id in ids}
        except Exception as exc:  # a corrupt journal record or registry: keep what we watch
            self._error(Problem(self.store.root, "error", f"cannot list projected projects: {exc}"))
            self._scan_sig = None  # retry on the next change
            gtier = self.store.global_tier()
            wanted = {r: w.tier for r, w in self.watches.items() if w.tier is not None}
            wanted.setdefault(_TIER + GLOBAL_ID, gtier)
        for role, path in (("root", self.store.root), ("journal", self.engine.journal.dir)):
            if role not in self.watches or self.watches[role].dead:
                self._unwatch(role)
                try:
                    fsutil.ensure_dir(path)  # deleted under us: recreated, as at the start
                except CofferError as exc:
                    self._error(Problem(path, "error", str(exc)))
                    continue
                self._watch(role, path)
        for role, w in list(self.watches.items()):
            if w.tier is not None and (role not in wanted or w.dead):
                self._unwatch(role)
                if role not in wanted:
                    self.log.info("stopped watching %s (no longer projected)", w.tier.label)
                    self._report(role, [])
        for role, tier in wanted.items():
            if role in self.watches:
                continue
            try:
                fsutil.ensure_dir(tier.dir)  # a tier never written to still needs watching
            except CofferError as exc:
                self._error(Problem(tier.dir, "error", f"cannot watch {tier.label}: {exc}"))
                continue
            if self._watch(role, tier.dir, tier):
                self.log.info("watching %s: %s", tier.label, tier.dir)
                # Catch up on anything that changed while nobody was watching.
                self.coalescer.add(role, immediate=True)
        self._rescan_handoffs(wanted)
        self.status.projects = sum(
            1 for w in self.watches.values() if w.tier is not None and w.tier.scope == "project"
        )

    def _rescan_handoffs(self, wanted: Mapping[str, Tier]) -> None:
        """Watch the vault handoff directories of every projected project, so a handoff
        reaches the blocks that list it without waiting for the next `coffer project`.
        Only directories that exist are watched; a vault created later is picked up at the
        next rescan (journal or registry change)."""
        from coffer.vault.handoffs import project_vault

        want: dict[str, tuple[Path, Tier]] = {}
        for tier in wanted.values():
            if tier.scope != "project" or not tier.info.root:
                continue
            try:
                vault = Path(project_vault(tier.info.root, self.environ))
            except Exception as exc:  # an invalid ECC_MEMORY_PROJECT_ROOT: nothing to watch
                self.log.debug("no vault to watch for %s: %s", tier.label, exc)
                continue
            for scope in ("project", "team"):
                directory = vault / scope / "handoffs"
                if directory.is_dir() and not directory.is_symlink():
                    want[f"{_HANDOFFS}{tier.info.id}:{scope}"] = (directory, tier)
        for role, w in list(self.watches.items()):
            if role.startswith(_HANDOFFS) and (role not in want or w.dead):
                self._unwatch(role)
        for role, (directory, tier) in want.items():
            if role not in self.watches and self._watch(role, directory, recursive=True):
                self.log.info("watching handoffs for %s: %s", tier.label, directory)

    def _signature(self) -> object:
        # Cheap: a listing and two stats, so coffer's own journal updates cost no parsing.
        names: tuple[str, ...] = ()
        with contextlib.suppress(OSError):
            names = tuple(sorted(os.listdir(self.engine.journal.dir)))
        stats = []
        for name in ("projects.json", CONFIG):
            try:
                st = os.stat(self.store.root / name)
                stats.append((st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                stats.append((0, 0, 0))
        return names, tuple(stats)

    # ---- status ------------------------------------------------------------------------

    def _flush_status(self) -> None:
        if self._status_due is None:
            return
        now = time.monotonic()
        if now - self._last_status < STATUS_EVERY:
            self._status_due = self._last_status + STATUS_EVERY
            return
        self._write_status()

    def _write_status(self) -> None:
        self.status.pending = len(self.coalescer)
        try:
            watch_state.write_status(self.store.root, self.status)
        except Exception as exc:
            self.log.warning("cannot write the status file: %s", exc)
        self._last_status = time.monotonic()
        self._status_due = None


def run(
    store: Store,
    environ: Mapping[str, str],
    *,
    log_file: Path | None = None,
    verbose: bool = False,
    poll: bool = False,
    poll_interval: float = DEFAULT_POLL_INTERVAL,
    debounce: float = DEFAULT_DEBOUNCE,
) -> int:
    """Run the daemon in the foreground until stopped: 0 after SIGTERM, 130 after Ctrl-C."""
    log = daemon.setup_logging(log_file, verbose)
    watcher = Watcher(
        store,
        environ,
        log=log,
        poll=poll,
        poll_interval=poll_interval,
        debounce=debounce,
    )
    return watcher.run()
