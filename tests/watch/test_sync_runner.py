"""``coffer watch``'s background sync (coffer/watch/sync_runner.py, ADR 0035): the round's
thread, the own-write check and the watcher's wiring, with a fake ``sync_once``; the
schedule itself is tests/watch/test_sync_loop.py. Threads are real; waits are short polls
with a deadline, never a sleep a result depends on."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from coffer.app import App
from coffer.store import Store, settings, watch_state
from coffer.watch.events import PROJECTS, TIER
from coffer.watch.sync_loop import OK, REFUSED, UNREACHABLE, Outcome
from coffer.watch.sync_runner import RECHECK, BackgroundSync, Hooks, fingerprint
from tests.helpers import coffer, imported_after, make_repo

DEADLINE = 10.0


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class FakeSync:
    """``sync_once`` as the round sees it: scripted outcomes, the pushes it was asked for,
    and an optional gate the test opens to let a round finish."""

    def __init__(self, *outcomes: Outcome) -> None:
        self.outcomes = list(outcomes)
        self.calls: list[bool] = []
        self.threads: list[str] = []
        self.gate: threading.Event | None = None
        self.configured = True

    def round(self, app: App, push: bool) -> Outcome:
        self.calls.append(push)
        self.threads.append(threading.current_thread().name)
        if self.gate is not None:
            assert self.gate.wait(DEADLINE)
        return self.outcomes.pop(0) if self.outcomes else Outcome(OK, "nothing new")


def store() -> Store:
    return Store.from_environ(os.environ)


def wait_for(check: Callable[[], object], what: str) -> None:
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def log() -> logging.Logger:
    return logging.getLogger("test-watch-sync")


def background(
    fake: FakeSync, clock: Clock, log: logging.Logger, interval: float | None = None
) -> tuple[BackgroundSync, threading.Event]:
    woke = threading.Event()
    hooks = Hooks(round=fake.round, configured=lambda app: fake.configured, clock=clock)
    app = App(os.environ, store())
    return BackgroundSync(app, log, woke.set, interval=interval, hooks=hooks), woke


def finish(bs: BackgroundSync, woke: threading.Event) -> bool:
    """Wait for the round in flight to report back, then let the worker take it."""
    assert woke.wait(DEADLINE), "the round never woke the worker"
    woke.clear()
    return bs.tick()


def test_rounds_run_on_their_own_thread_and_report_back(
    log: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    fake, clock = FakeSync(Outcome(OK, "synced: pulled 2 files", pulled=2)), Clock()
    bs, woke = background(fake, clock, log)
    fake.gate = threading.Event()
    with caplog.at_level(logging.INFO, logger=log.name):
        assert bs.tick() is False  # started, not waited for
        assert bs.schedule.running is not None and bs.next_due() is None
        assert bs.tick() is False  # the worker goes on while the round waits on the network
        fake.gate.set()
        assert finish(bs, woke) is True  # it pulled: the watcher re-renders
    assert fake.threads == ["coffer-sync"] and fake.calls == [True]
    assert "sync: on" in caplog.text and "sync: synced: pulled 2 files" in caplog.text
    snap = bs.snapshot()
    assert snap is not None and snap["state"] == "idle" and snap["pulled"] == 2
    assert bs.next_due() == clock.t + 300


def test_nothing_runs_until_sync_is_set_up_and_it_is_looked_for_rarely(
    log: logging.Logger,
) -> None:
    fake, clock = FakeSync(), Clock()
    fake.configured = False
    bs, woke = background(fake, clock, log)
    assert bs.tick() is False and fake.calls == []
    assert bs.snapshot() is None  # --status shows no sync part
    assert bs.next_due() == clock.t + RECHECK  # one stat every 5 minutes, no busy loop
    bs.changed()  # a memory change does not start anything either
    clock.t += RECHECK - 1
    bs.tick()
    assert fake.calls == []
    fake.configured = True  # `coffer sync init` ran meanwhile
    clock.t += 1
    bs.tick()
    finish(bs, woke)
    assert fake.calls == [True]


def test_no_sync_turns_it_off(log: logging.Logger) -> None:
    fake, clock = FakeSync(), Clock()
    bs, _ = background(fake, clock, log, interval=0.0)
    bs.tick()
    assert fake.calls == [] and bs.next_due() is None and bs.snapshot() is None


def test_the_last_rounds_own_writes_do_not_start_a_push_round(
    log: logging.Logger, tmp_path: Path
) -> None:
    fake, clock = FakeSync(), Clock()
    bs, woke = background(fake, clock, log)
    tier = store().global_tier(create=True)
    fake.gate = threading.Event()
    bs.tick()
    (tier.dir / "pulled.md").write_text("---\nname: pulled\n---\nfrom the other machine\n")
    fake.gate.set()
    finish(bs, woke)  # the entry the round "imported" is in the baseline it leaves
    bs.changed()  # ... so the events its writes cause are recognised
    clock.t += 10
    bs.tick()
    assert fake.calls == [True] and bs.schedule.change_due() is None
    # An agent's write is not.
    (tier.dir / "mine.md").write_text("---\nname: mine\n---\nwritten here\n")
    bs.changed()
    clock.t += 10
    bs.tick()
    finish(bs, woke)
    assert fake.calls == [True, True]


def test_a_refused_push_waits_for_a_change_even_one_no_event_reported(
    log: logging.Logger,
) -> None:
    refused = Outcome(REFUSED, "push refused: 1 entry holds what looks like a secret (k)")
    fake, clock = FakeSync(refused, refused), Clock()
    bs, woke = background(fake, clock, log)
    tier = store().global_tier(create=True)
    bs.tick()
    finish(bs, woke)
    clock.t += 300
    bs.tick()
    finish(bs, woke)
    assert fake.calls == [True, False]  # the interval round only pulls
    # An entry written in a tier the watcher does not watch: the next round sees it.
    (tier.dir / "k.md").write_text("---\nname: k\n---\nfixed\n")
    clock.t += 300
    bs.tick()
    finish(bs, woke)
    assert fake.calls == [True, False, True]


def test_the_interval_comes_from_the_flag_then_the_settings(log: logging.Logger) -> None:
    root = store().root
    settings.save(root, settings.Settings(sync_interval=60))
    fake, clock = FakeSync(), Clock()
    bs, _ = background(fake, clock, log)
    assert bs.schedule.interval == 60
    settings.save(root, settings.Settings(sync_interval=900))
    bs.reload()
    assert bs.schedule.interval == 900
    flagged, _ = background(fake, clock, log, interval=30.0)
    flagged.reload()
    assert flagged.schedule.interval == 30
    assert settings.load(root).sync_interval == 900.0
    (root / settings.CONFIG).write_text('{"sync_interval": 1}')
    with pytest.raises(Exception, match="sync_interval must be a number of seconds"):
        settings.load(root)


def test_fingerprint_sees_entries_not_the_index_or_temp_files() -> None:
    s = store()
    tier = s.global_tier(create=True)
    before = fingerprint(s)
    (tier.dir / "MEMORY.md").write_text("- index\n")
    (tier.dir / ".tmp-x.md").write_text("partial")
    assert fingerprint(s) == before
    (tier.dir / "e.md").write_text("---\nname: e\n---\nx\n")
    assert fingerprint(s) != before


# ---- the watcher's wiring ---------------------------------------------------------------


@pytest.fixture
def watcher(tmp_path: Path, log: logging.Logger) -> Iterator[tuple[object, FakeSync]]:
    from coffer.watch.watcher import Watcher

    repo = make_repo(tmp_path / "repo")
    Path(os.environ["CODEX_HOME"]).mkdir(exist_ok=True)
    assert coffer("project", "--project", str(repo)).returncode == 0
    w = Watcher(store(), os.environ, log=log)
    fake = FakeSync()
    w.sync.hooks = Hooks(round=fake.round, configured=lambda app: fake.configured)
    w._start()  # observers and the watch set, as run() starts them
    try:
        yield w, fake
    finally:
        w.observers.stop()
        w.waker.close()


def test_the_watcher_re_renders_after_a_round_that_pulled(
    watcher: tuple[object, FakeSync],
) -> None:
    from coffer.watch.watcher import Watcher

    w, fake = watcher
    assert isinstance(w, Watcher)
    fake.outcomes = [Outcome(OK, "synced: pulled 1 file", pulled=1)]
    w.coalescer.pop_due(now=time.monotonic() + 60)  # the catch-up pass: done
    w._sync_tick()
    wait_for(lambda: w.sync._done is not None, "the round")
    w._sync_tick()
    due = {b.key for b in w.coalescer.pop_due()}  # immediately due, no debounce
    tiers = {k for k in w.watches if k.startswith(TIER)}
    assert len(tiers) == 2 and due == {PROJECTS, *tiers}
    assert w.status.sync is not None and w.status.sync["pulled"] == 1
    assert w.reporter.due is not None  # the status file is rewritten with it


def test_a_processed_tier_burst_arms_a_push_and_the_status_shows_offline(
    watcher: tuple[object, FakeSync],
) -> None:
    from coffer.watch.watcher import Watcher

    w, fake = watcher
    assert isinstance(w, Watcher)
    fake.outcomes = [Outcome(UNREACHABLE, "could not resolve host example.invalid")]
    w._sync_tick()
    wait_for(lambda: w.sync._done is not None, "the round")
    w._sync_tick()
    key = next(k for k in w.watches if k.startswith(TIER))
    w.coalescer.add(key)
    for burst in w.coalescer.pop_due(now=time.monotonic() + 60):
        w._process(burst)
    assert w.sync.schedule.change_first is not None  # a push is armed (after the back-off)
    assert w.sync.next_due() == w.sync.schedule.retry_at
    w._write_status()
    data = watch_state.read_status(store().root)
    data["running"] = True
    lines = watch_state.status_lines(data)
    sync = [line for line in lines if line.startswith("sync:")]
    assert sync[0] == "sync: offline, every 300 s"
    assert any(line.startswith("sync: next round 20") for line in sync)
    assert any("offline since" in line and "(1 failed tries)" in line for line in sync)
    assert any("could not resolve host" in line for line in sync)


def test_a_round_that_raises_is_a_failed_round_not_a_dead_thread(
    watcher: tuple[object, FakeSync], caplog: pytest.LogCaptureFixture
) -> None:
    from coffer.watch.watcher import Watcher

    w, _ = watcher
    assert isinstance(w, Watcher)

    def broken(app: App, push: bool) -> Outcome:
        raise RuntimeError("a bug in a round")

    w.sync.hooks = w.sync.hooks._replace(round=broken)
    with caplog.at_level(logging.WARNING, logger="test-watch-sync"):
        w._sync_tick()
        wait_for(lambda: w.sync._done is not None, "the round")
        w._sync_tick()
    assert "sync: round failed: RuntimeError: a bug in a round" in caplog.text
    assert w.sync.schedule.state() == "failing"


# ---- never on the session-start path ---------------------------------------------------


def test_session_start_and_status_import_none_of_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert coffer("project", "--project", str(repo)).returncode == 0
    sync = ("coffer.sync", "coffer.watch.sync_loop", "coffer.watch.sync_runner", "threading")
    assert imported_after(["project"], repo, sync[:3]) == (0, [])
    code, found = imported_after(["watch", "--status"], repo, sync[:3])
    assert (code, found) == (3, [])


def test_a_settings_change_sets_the_interval_of_a_running_watcher(
    watcher: tuple[object, FakeSync],
) -> None:
    from coffer.watch.events import CONFIG_KEY
    from coffer.watch.watcher import Watcher

    w, _ = watcher
    assert isinstance(w, Watcher)
    assert w.sync.schedule.interval == 300
    root = store().root
    current = settings.load(root)
    current.sync_interval = 45
    settings.save(root, current)
    w.coalescer.add(CONFIG_KEY)
    for burst in w.coalescer.pop_due(now=time.monotonic() + 60):
        w._process(burst)
    assert w.sync.schedule.interval == 45
    w._sync_tick()
    assert w.status.sync is not None and w.status.sync["interval"] == 45


def test_an_unreadable_store_listing_means_a_round_runs_not_a_stuck_worker(
    log: logging.Logger,
) -> None:
    fake, clock = FakeSync(), Clock()
    bs, woke = background(fake, clock, log)
    bs.tick()
    finish(bs, woke)

    def broken(store: Store) -> object:
        raise OSError("projects.json: I/O error")

    bs.hooks = bs.hooks._replace(fingerprint=broken)
    bs.changed()
    clock.t += 10
    bs.tick()  # no exception: when in doubt, sync
    finish(bs, woke)
    assert fake.calls == [True, True] and bs.next_due() == clock.t + 300
