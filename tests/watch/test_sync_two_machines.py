"""Background sync end to end (issue 13 §5, ADR 0035): two machines (two homes, two
stores, a clone of one project on each), a bare repository as the remote, and each
machine's real watcher. The test drives the watcher's loop by hand (process due bursts,
tick the sync) instead of ``run()``, and moves the sync's clock past the 10 s debounce
instead of sleeping; the only waits are short polls for a thread or a file event."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from coffer.store import Store, watch_state
from coffer.watch.watcher import Watcher
from tests.helpers import coffer, make_repo

DEADLINE = 30.0
GIT_ID = ("-c", "user.name=t", "-c", "user.email=t@example.com")


def git(*args: str) -> str:
    done = subprocess.run(
        ["git", *GIT_ID, *args], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


class Machine:
    def __init__(self, base: Path, name: str, remote: Path) -> None:
        home = base / "home"
        self.name = name
        self.env = {
            **os.environ,
            "HOME": str(home),
            "COFFER_HOME": str(base / "coffer-home"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CODEX_HOME": str(home / ".codex"),
            **{v: str(base / v.lower()) for v in ("XDG_STATE_HOME", "XDG_CONFIG_HOME")},
            **{v: str(base / v.lower()) for v in ("XDG_DATA_HOME", "XDG_CACHE_HOME")},
        }
        (home / ".codex").mkdir(parents=True)  # Codex is "installed": AGENTS.md blocks
        # The same project (one origin) cloned at a different path on each machine.
        self.repo = make_repo(base / "src" / f"app-{name}")
        self.ok("project", "--project", str(self.repo))
        self.ok("sync", "init", str(remote), "--host", name)
        self.skew = 0.0  # seconds the sync's clock runs ahead (past a debounce, no sleep)
        log = logging.getLogger(f"test-watch-e2e-{name}")
        self.watcher = Watcher(Store.from_environ(self.env), self.env, log=log)
        sync = self.watcher.sync
        sync.hooks = sync.hooks._replace(clock=lambda: time.monotonic() + self.skew)

    def ok(self, *args: str) -> str:
        done = coffer(*args, cwd=self.repo, env=self.env)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def tier_dir(self) -> Path:
        tier = self.watcher.store.project_tier(self.repo)
        assert tier is not None
        return tier.dir

    def pump(self, done: Callable[[], object], what: str) -> None:
        """The watcher's loop, one turn at a time, until ``done()``."""
        w = self.watcher
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            for burst in w.coalescer.pop_due():
                w._process(burst)
            w._sync_tick()
            if done():
                return
            w.waker.wait(0.05)
        raise AssertionError(f"{self.name}: timed out waiting for {what}: {w.status.sync}")

    def first_round(self) -> None:
        """The round every watcher runs at start (nothing to send yet)."""
        sched = self.watcher.sync.schedule
        self.pump(lambda: sched.rounds == 1 and self.idle(), f"{self.name}'s first round")

    def idle(self) -> bool:
        """No round running, none pending, every file event processed."""
        sync = self.watcher.sync
        return sync._thread is None and sync._done is None and len(self.watcher.coalescer) == 0


@pytest.fixture
def machines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Machine, ...]]:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    pair = (Machine(tmp_path / "a", "a", remote), Machine(tmp_path / "b", "b", remote))
    for m in pair:
        m.watcher._start()
    yield pair
    for m in pair:
        m.watcher._shutdown()


def test_a_change_on_a_is_pushed_by_its_watcher_and_bs_watcher_pulls_and_renders(
    machines: tuple[Machine, ...], tmp_path: Path
) -> None:
    a, b = machines
    remote = tmp_path / "remote.git"
    # Each watcher's first round runs at start and finds nothing to send.
    a.first_round()
    b.first_round()
    # An agent on a writes a memory straight into the store, as Claude does.
    entry = a.tier_dir() / "deploy.md"
    entry.write_text(
        "---\nname: deploy\ndescription: how we deploy\ntype: project\n---\n\n"
        "Deploys use make release.\n"
    )
    sched = a.watcher.sync.schedule
    a.pump(lambda: sched.change_due() is not None, "the file event to arm a push")
    assert sched.running is None  # debounced: nothing runs at once
    a.skew += 11  # past the 10 s debounce
    a.pump(lambda: sched.rounds == 2 and a.idle(), "a's push round")
    assert sched.pushed >= 1 and sched.last_result is not None
    assert "pushed 1 file" in sched.last_result
    assert "Deploys use make release." in git(
        "--git-dir", str(remote), "grep", "-h", "-e", "make release", "main"
    )
    # b's next interval round pulls it; the watcher re-renders b's blocks.
    b.skew += 301
    bsched = b.watcher.sync.schedule
    agents = b.repo / "AGENTS.md"
    b.pump(
        lambda: bsched.rounds == 2 and b.idle() and "make release" in agents.read_text(),
        "b's pull and re-render",
    )
    assert (b.tier_dir() / "deploy.md").read_text() == entry.read_text()
    assert bsched.pulled == 1 and b.watcher.status.sync is not None
    assert b.watcher.status.sync["pulled"] == 1
    # The pull's own writes (their file events arm a push) do not make b push them back:
    # at the debounce's end the store's entries are what the round left, so no round runs.
    assert bsched.change_due() is not None
    b.skew += 11
    b.pump(lambda: bsched.change_due() is None and b.idle(), "b to settle")
    assert bsched.rounds == 2 and bsched.running is None


def test_an_unreachable_remote_is_one_line_then_one_line_when_it_is_back(
    machines: tuple[Machine, ...], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    a, _ = machines
    sched = a.watcher.sync.schedule
    a.first_round()
    remote = tmp_path / "remote.git"
    away = tmp_path / "remote-away.git"
    remote.rename(away)  # the remote path is gone: RemoteUnreachable
    with caplog.at_level(logging.INFO, logger="test-watch-e2e-a"):
        for n in (1, 2, 3):
            a.skew += 1800  # past any back-off

            def failed(n: int = n) -> bool:
                return sched.failures == n and a.idle()

            a.pump(failed, f"failed round {n}")
        assert sched.state() == "offline" and a.watcher.status.sync is not None
        assert a.watcher.status.sync["offline_since"] is not None
        away.rename(remote)
        a.skew += 1800
        a.pump(lambda: sched.failures == 0 and a.idle(), "the round after the remote is back")
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("sync:")]
    assert len([s for s in said if "unreachable" in s]) == 1, said
    assert len([s for s in said if s.startswith("sync: back online")]) == 1, said
    assert any("back online" in s and "(3 failed tries)" in s for s in said), said


@pytest.mark.posix_only("POSIX signals (SIGTERM to a child)")
def test_the_real_daemon_syncs_and_status_shows_it(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    a = Machine(tmp_path / "a", "a", remote)
    a.watcher.waker.close()  # the daemon below is a process of its own
    a.ok("remember", "Deploys use make release.", "--name", "deploy")
    log = tmp_path / "watch.log"
    cmd = [sys.executable, "-m", "coffer", "watch", "--log-file", str(log), "--sync-interval", "60"]
    proc = subprocess.Popen(cmd, env=a.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        root = Path(a.env["COFFER_HOME"])

        def synced() -> bool:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            sync = watch_state.read_status_file(root).get("sync")
            return isinstance(sync, dict) and sync.get("rounds") == 1

        end = time.monotonic() + DEADLINE
        while not synced():
            assert time.monotonic() < end, log.read_text() if log.exists() else "no log"
            time.sleep(0.05)
        shown = coffer("watch", "--status", env=a.env)
        assert shown.returncode == 0, shown.stderr
        lines = [line for line in shown.stdout.splitlines() if line.startswith("sync:")]
        assert lines[0] == "sync: idle, every 60 s", shown.stdout
        assert "pushed 1 file" in lines[1] and lines[2].startswith("sync: next round ")
        assert "make release" in git(
            "--git-dir", str(remote), "grep", "-h", "-e", "release", "main"
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0
    said = log.read_text()
    assert "INFO sync: on" in said
    assert [line for line in said.splitlines() if "pushed 1 file" in line], said


def test_a_secret_blocks_the_push_once_and_fixing_it_pushes(
    machines: tuple[Machine, ...], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    a, _ = machines
    sched = a.watcher.sync.schedule
    a.first_round()
    entry = a.tier_dir() / "ci.md"
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    entry.write_text(f"---\nname: ci\ndescription: ci\ntype: project\n---\n\nCI token {token}\n")
    with caplog.at_level(logging.DEBUG, logger="test-watch-e2e-a"):
        a.pump(lambda: sched.change_due() is not None, "the event")
        a.skew += 11
        a.pump(lambda: sched.push_held and a.idle(), "the refused round")
        for _ in range(3):  # interval rounds: pull only, nothing said again
            last = sched.last_round_at
            a.skew += 301
            a.pump(lambda: sched.last_round_at != last and a.idle(), "an interval round")  # noqa: B023
            assert sched.push_held and sched.state() == "held"
    said = [r for r in caplog.records if r.getMessage().startswith("sync: push refused")]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    assert token not in caplog.text  # the gate names the entry, never the secret
    assert ": ci)" in said[0].getMessage() or ": ci;" in said[0].getMessage()
    remote = tmp_path / "remote.git"
    assert "ghp_" not in git("--git-dir", str(remote), "log", "--all", "-p")
    # The user removes the token: that change is pushed.
    entry.write_text("---\nname: ci\ndescription: ci\ntype: project\n---\n\nCI uses a secret.\n")
    a.pump(lambda: sched.change_due() is not None, "the fix's event")
    a.skew += 11
    a.pump(lambda: not sched.push_held and sched.rounds >= 2 and a.idle(), "the push")
    assert "CI uses a secret." in git("--git-dir", str(remote), "grep", "-h", "-e", "CI", "main")
