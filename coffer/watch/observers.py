"""The directories ``coffer watch`` observes, by role, on one watchdog observer.

Native file events where they work; polling where they cannot (a network file system,
``--poll``) or stop working (the inotify watch limit): then every watch moves to a polling
observer. With coffer/watch/watcher.py, the only modules that import watchdog.
"""

from __future__ import annotations

import contextlib
import errno
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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

from coffer.base.report import Problem
from coffer.store import Tier
from coffer.watch.status import Status

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

Sink = Callable[[str, FileSystemEvent], None]


class _Handler(FileSystemEventHandler):
    def __init__(self, sink: Sink, role: str) -> None:
        self._sink = sink
        self._role = role

    def on_any_event(self, event: FileSystemEvent) -> None:
        self._sink(self._role, event)


@dataclass
class Watch:
    path: Path
    handler: _Handler
    observed: ObservedWatch | None = None
    tier: Tier | None = None
    dead: bool = False  # the directory itself was deleted or moved away
    recursive: bool = False  # handoffs may sit in subdirectories (docs/vault-format.md §7.1)


class Observers:
    """One observer and its watches; what it is (native or polling) goes into ``status``."""

    def __init__(
        self,
        sink: Sink,
        status: Status,
        log: logging.Logger,
        poll_interval: float,
        on_error: Callable[[Problem], None],
    ) -> None:
        self.sink = sink
        self.status = status
        self.log = log
        self.poll_interval = poll_interval
        self.on_error = on_error
        self.observer: BaseObserver | None = None
        self.watches: dict[str, Watch] = {}  # role -> watch

    def start(self, *, polling: bool) -> None:
        observer: BaseObserver | None = None
        if not polling:
            observer = self._native()
        if observer is None:
            from watchdog.observers.polling import PollingObserver

            observer = PollingObserver(timeout=self.poll_interval)
            observer.start()
        self.observer = observer
        name = type(observer).__name__
        self.status.observer = name
        self.status.mode = "polling" if "Polling" in name else "native"
        self.status.poll_interval = self.poll_interval if self.status.mode == "polling" else None

    def _native(self) -> BaseObserver | None:
        """The native observer, started; None (said once, in the log and the status) when
        the kernel refuses one: inotify's instance limit (EMFILE, `fs.inotify.max_user_
        instances`, often 128 and shared by every editor and watcher of the user) or its
        watch limit (ENOSPC). Older watchdog releases open the inotify instance here, when
        the observer is made; newer ones with the first watch (`_schedule` says the same)."""
        from watchdog.observers import Observer

        try:
            observer: BaseObserver = Observer()
            observer.start()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self.status.polling_reason = f"native file events are unavailable ({reason})"
            self.log.warning(
                "native file events are unavailable (%s); polling every %g s instead",
                reason,
                self.poll_interval,
            )
            return None
        return observer

    def stop(self) -> None:
        if self.observer is not None:
            with contextlib.suppress(Exception):
                self.observer.stop()
                self.observer.join(timeout=10)

    def _schedule(self, w: Watch) -> bool:
        assert self.observer is not None
        try:
            w.observed = self.observer.schedule(
                w.handler, str(w.path), recursive=w.recursive, event_filter=_EVENTS
            )
            return True
        except OSError as exc:
            if self.status.mode == "polling":
                self.on_error(Problem(w.path, "error", f"cannot watch it: {exc}"))
                return False
            if exc.errno == errno.EMFILE:
                # The instance limit, met here rather than in `_native` where watchdog opens
                # its inotify instance with the first watch (7.1.1 does): no path is to blame.
                reason = exc.strerror or str(exc)
                self.log.warning(
                    "native file events are unavailable (%s); polling every %g s instead",
                    reason,
                    self.poll_interval,
                )
                self.status.polling_reason = f"native file events are unavailable ({reason})"
            else:
                # Native events unavailable (inotify watch limit, unsupported file system).
                self.log.warning(
                    "native file events failed on %s (%s); polling instead", w.path, exc
                )
                self.status.polling_reason = f"native file events failed on {w.path} ({exc})"
        self.stop()
        self.start(polling=True)
        for other in self.watches.values():
            if other is not w:
                self._schedule(other)
        return self._schedule(w)

    def add(
        self, role: str, path: Path, tier: Tier | None = None, *, recursive: bool = False
    ) -> bool:
        w = Watch(path, _Handler(self.sink, role), tier=tier, recursive=recursive)
        if not self._schedule(w):
            return False
        self.watches[role] = w
        return True

    def remove(self, role: str) -> None:
        w = self.watches.pop(role, None)
        if w is not None and w.observed is not None and self.observer is not None:
            with contextlib.suppress(Exception):  # already gone with its directory
                self.observer.unschedule(w.observed)
