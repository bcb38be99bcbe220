"""``coffer watch``: the real daemon as a subprocess on a temporary store, plus unit tests of
its coalescer, event filter and error handling. Results are awaited with a deadline; no
assertion depends on timing (latency is measured in benchmarks/bench_watch.py)."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from watchdog.events import FileCreatedEvent, FileModifiedEvent, FileMovedEvent

from coffer.projection.engine import Engine
from coffer.store import Store, Tier, watch_state
from coffer.watch import daemon
from tests.helpers import coffer, make_repo, write_entry

DEADLINE = 15.0


def wait_for(check: Callable[[], object], what: str, log: Path | None = None) -> None:
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        try:
            if check():
                return
        except FileNotFoundError:
            pass  # an empty tier's block is written with its first entry (docs/adr/0045)
        time.sleep(0.05)
    detail = log.read_text() if log is not None and log.exists() else ""
    raise AssertionError(f"timed out waiting for {what}\n--- daemon log ---\n{detail}")


def store() -> Store:
    return Store.from_environ(os.environ)


def tier_of(repo: Path) -> Tier:
    tier = store().project_tier(repo)
    assert tier is not None
    return tier


def status() -> dict[str, Any]:
    return watch_state.read_status(store().root)


def target_state(repo: Path, agent: str, tier: str) -> str:
    statuses, _ = Engine(store(), os.environ).status(repo)
    for s in statuses:
        for t in s.targets:
            if s.name == agent and t.tier == tier:
                return t.state
    raise AssertionError(f"no {agent} {tier} target")


@pytest.fixture
def project(tmp_path: Path, fake_home: Path) -> Callable[[str], Path]:
    """Make a repository and project it (Codex detected through its home directory)."""
    Path(os.environ["CODEX_HOME"]).mkdir(exist_ok=True)

    def make(name: str) -> Path:
        repo = make_repo(tmp_path / name)
        r = coffer("project", "--project", str(repo))
        assert r.returncode == 0, r.stderr
        return repo

    return make


class Daemon:
    def __init__(self, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.proc = proc
        self.log = log

    def text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=DEADLINE)


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Daemon]]:
    started: list[Daemon] = []

    def run(*args: str, ready: bool = True) -> Daemon:
        log = tmp_path / f"watch-{len(started)}.log"
        err = open(tmp_path / f"watch-{len(started)}.err", "wb")  # noqa: SIM115
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "coffer",
                "watch",
                "--log-file",
                str(log),
                "--debounce",
                "50",
                *args,
            ],
            env=os.environ,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        err.close()
        d = Daemon(proc, log)
        started.append(d)
        if ready:

            def is_ready() -> bool:
                assert proc.poll() is None, (tmp_path / f"watch-{len(started) - 1}.err").read_text()
                s = status()
                return s.get("pid") == proc.pid and s.get("state") == "watching"

            wait_for(is_ready, "the daemon to start", log)
            # Its catch-up pass over every tier is done when nothing is pending.
            wait_for(lambda: status().get("pending") == 0, "the catch-up pass", log)
        return d

    yield run
    for d in started:
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait(timeout=DEADLINE)


# ---- the daemon, end to end ---------------------------------------------------------------


@pytest.mark.posix_only("POSIX signals (SIGTERM to a child)")
def test_written_entry_appears_and_deleted_entry_disappears(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    repo = project("repo")
    d = start()
    tier = tier_of(repo)
    agents = repo / "AGENTS.md"
    entry = write_entry(tier.dir, "deploy-freeze", "deploys freeze on fridays zqxv")
    wait_for(lambda: "zqxv" in agents.read_text(), "the entry in AGENTS.md", d.log)
    wait_for(lambda: "deploy-freeze.md" in (tier.dir / "MEMORY.md").read_text(), "the index", d.log)
    entry.unlink()
    wait_for(lambda: "zqxv" not in agents.read_text(), "the entry to leave AGENTS.md", d.log)
    wait_for(
        lambda: "deploy-freeze" not in (tier.dir / "MEMORY.md").read_text(), "the index", d.log
    )
    assert target_state(repo, "codex", "project") == "ok"
    assert "updated " + str(agents) in d.text()
    assert d.stop() == 0


def test_new_handoff_reaches_the_block_without_a_new_session(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    repo = project("repo")
    assert coffer("vault", "init", cwd=repo).returncode == 0
    d = start()
    agents = repo / "AGENTS.md"
    saved = coffer(
        "vault",
        "handoff",
        "--from",
        "claude",
        "--target",
        "codex",
        "--title",
        "Rotate the staging keys qpzm",
        "--stdin",
        cwd=repo,
        input="Soon.\n",
    )
    assert saved.returncode == 0, saved.stderr
    wait_for(lambda: "qpzm" in agents.read_text(), "the handoff in AGENTS.md", d.log)
    assert "watching handoffs for repo" in d.text()


def test_global_entry_reaches_the_global_file(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    project("repo")
    d = start()
    write_entry(store().global_tier().dir, "tabs-not-spaces", "the user likes tabs qqwz")
    codex_global = Path(os.environ["CODEX_HOME"]) / "AGENTS.md"
    wait_for(lambda: "qqwz" in codex_global.read_text(), "the global block", d.log)


def test_burst_of_200_files_settles_in_one_consistent_state(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    repo = project("repo")
    d = start()
    before = status()["renders"]
    tier = tier_of(repo)
    for i in range(200):
        write_entry(tier.dir, f"burst-{i:03d}", f"burst entry number {i}")

    def settled() -> bool:
        s = store()
        rendered, current = s.render_index(tier)
        index_ok = current == rendered.text.encode()
        return index_ok and target_state(repo, "codex", "project") == "ok"

    wait_for(settled, "MEMORY.md and AGENTS.md to match the 200 entries", d.log)
    assert (
        "burst-199" in (tier.dir / "MEMORY.md").read_text()
        or "more entries" in (tier.dir / "MEMORY.md").read_text()
    )
    wait_for(lambda: status().get("pending") == 0, "the queue to drain", d.log)
    renders = status()["renders"]
    # Coalesced: a handful of passes, not one per file (a loose bound, not a timing test).
    assert renders - before < 40, d.text()


def test_hand_edited_block_is_reported_not_overwritten(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    repo = project("repo")
    write_entry(tier_of(repo).dir, "first-fact", "the first fact")  # a block to edit
    assert coffer("project", "--project", str(repo)).returncode == 0
    agents = repo / "AGENTS.md"
    text = agents.read_text()
    end = "<!-- coffer:memory:end -->"
    edited = text.replace(end, f"my own note, keep me\n{end}")
    assert edited != text
    agents.write_text(edited)
    d = start()
    write_entry(tier_of(repo).dir, "new-fact", "a new fact xkcd")
    wait_for(lambda: f"drifted: {agents}" in d.text(), "the drift report", d.log)
    assert agents.read_text() == edited
    assert target_state(repo, "codex", "project") == "drifted"
    wait_for(
        lambda: any(str(agents) in p for p in status().get("problems", [])),
        "the drift in --status",
        d.log,
    )
    # Reported once while it lasts, not on every pass.
    write_entry(tier_of(repo).dir, "newer-fact", "another fact")
    wait_for(lambda: status().get("pending") == 0 and status()["renders"], "a pass", d.log)
    assert d.text().count(f"drifted: {agents}") == 1


def test_replaced_claude_symlink_is_reported_not_relinked(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    Path(os.environ["CLAUDE_CONFIG_DIR"]).mkdir()  # Claude Code "installed"
    repo = project("repo")
    (link,) = Path(os.environ["CLAUDE_CONFIG_DIR"]).glob("projects/*/memory")
    assert link.is_symlink()
    d = start()
    link.unlink()
    link.mkdir()  # Claude (or a person) put a real directory back
    write_entry(tier_of(repo).dir, "fact", "a fact")
    wait_for(lambda: str(link) in d.text(), "the replaced link report", d.log)
    assert not link.is_symlink()
    assert target_state(repo, "claude", "project") != "ok"


@pytest.mark.posix_only("POSIX signals (SIGTERM to a child)")
def test_second_daemon_is_refused_and_sigterm_exits_zero(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    project("repo")
    first = start()
    second = start(ready=False)
    assert second.proc.wait(timeout=DEADLINE) != 0
    err = (first.log.parent / "watch-1.err").read_text()
    assert "already running" in err and str(first.proc.pid) in err

    r = coffer("watch", "--status", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["running"] is True and data["pid"] == first.proc.pid
    assert data["projects"] == 1 and data["mode"] == "native"
    r = coffer("watch", "--status")
    assert r.returncode == 0 and "running (pid" in r.stdout

    assert first.stop() == 0
    assert "stopped" in first.text()
    r = coffer("watch", "--status", "--json")
    assert r.returncode == daemon.EXIT_NOT_RUNNING
    data = json.loads(r.stdout)
    assert data["running"] is False and data["state"] == "stopped"


def test_project_projected_after_start_is_picked_up(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    project("repo")
    d = start()
    later = project("later")
    wait_for(lambda: status().get("projects") == 2, "the new project to be watched", d.log)
    write_entry(tier_of(later).dir, "late-fact", "projected later wqpt")
    wait_for(lambda: "wqpt" in (later / "AGENTS.md").read_text(), "the new project's block", d.log)


@pytest.mark.posix_only("POSIX signals (SIGTERM to a child)")
def test_bad_entry_and_vanished_root_are_logged_and_skipped(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    repo = project("repo")
    gone = project("gone")
    gone_tier = tier_of(gone)
    d = start()
    tier = tier_of(repo)
    (tier.dir / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    import shutil

    shutil.rmtree(gone)
    write_entry(gone_tier.dir, "orphan", "root is gone")
    wait_for(lambda: f"missing: {gone}" in d.text(), "the vanished root report", d.log)
    write_entry(tier.dir, "still-alive", "the daemon survived jjkw")
    wait_for(lambda: "jjkw" in (repo / "AGENTS.md").read_text(), "a later change", d.log)
    assert "broken" in (tier.dir / "MEMORY.md").read_text()  # listed as unreadable, not lost
    assert d.proc.poll() is None
    assert d.stop() == 0


def test_polling_mode(project: Callable[[str], Path], start: Callable[..., Daemon]) -> None:
    repo = project("repo")
    d = start("--poll", "--poll-interval", "0.1")
    assert status()["mode"] == "polling"
    write_entry(tier_of(repo).dir, "polled", "seen by polling mmzq")
    wait_for(lambda: "mmzq" in (repo / "AGENTS.md").read_text(), "the polled change", d.log)
    # A daemon killed outright leaves its status file behind, but not its lock.
    d.proc.kill()
    d.proc.wait(timeout=DEADLINE)
    r = coffer("watch", "--status", "--json")
    assert r.returncode == daemon.EXIT_NOT_RUNNING
    assert json.loads(r.stdout)["running"] is False


def test_status_when_never_run() -> None:
    r = coffer("watch", "--status")
    assert r.returncode == daemon.EXIT_NOT_RUNNING
    assert "not running" in r.stdout
    r = coffer("watch", "--json")
    assert r.returncode == 2 and "--status" in r.stderr  # a usage error
    for bad in (["--debounce", "-1"], ["--poll-interval", "0"]):
        r = coffer("watch", *bad)
        assert r.returncode == 2 and bad[0] in r.stderr, r.stderr


@pytest.mark.posix_only("POSIX signals (SIGINT to a child)")
def test_ctrl_c_exits_130_and_sigterm_exits_0(
    project: Callable[[str], Path], start: Callable[..., Daemon]
) -> None:
    project("repo")
    d = start()
    d.proc.send_signal(signal.SIGINT)
    assert d.proc.wait(timeout=DEADLINE) == 130  # what a shell expects after Ctrl-C
    assert "stopped" in d.text()
    assert start().stop() == 0  # SIGTERM: a service manager's clean stop


# ---- units ---------------------------------------------------------------------------------


def test_coalescer_one_pass_per_burst_with_a_max_wait() -> None:
    c = daemon.Coalescer(quiet=0.15, max_wait=1.0)
    assert c.add("a", now=0.0) is True
    assert c.add("a", now=0.1) is False  # already pending: no new wake-up
    assert c.pop_due(now=0.2) == []
    assert c.next_due() == pytest.approx(0.25)
    due = c.pop_due(now=0.3)
    assert [b.key for b in due] == ["a"] and due[0].events == 2
    # A burst that never pauses is still processed at the max wait.
    for i in range(20):
        c.add("b", now=i * 0.1)
    assert [b.key for b in c.pop_due(now=1.0)] == ["b"]
    # index_only survives only if every event was about MEMORY.md.
    c.add("c", index_only=True, now=5.0)
    c.add("c", index_only=False, now=5.0)
    assert c.pop_due(now=6.0)[0].index_only is False


def test_polling_reason_for_network_file_systems(tmp_path: Path) -> None:
    mounts = "server:/export /mnt/share nfs4 rw 0 0\n/dev/sda1 / ext4 rw 0 0\n"
    assert daemon.polling_reason(Path("/mnt/share/coffer"), mounts) is not None
    assert daemon.polling_reason(Path("/home/me/coffer"), mounts) is None
    assert daemon.filesystem_type(Path("/mnt/sharer"), mounts) == "ext4"


def test_event_filter_ignores_temp_hidden_and_foreign_files(tmp_path: Path) -> None:
    from coffer.watch.watcher import Watcher

    w = Watcher(store(), os.environ, log=logging.getLogger("test"))
    try:
        d = str(tmp_path)
        for event in (
            FileCreatedEvent(f"{d}/.coffer-tmp-abc"),
            FileModifiedEvent(f"{d}/.entry.md.swp"),
            FileModifiedEvent(f"{d}/notes.txt"),
        ):
            w._on_event("tier:X", event)
        assert len(w.coalescer) == 0
        w._on_event("tier:X", FileMovedEvent(f"{d}/.coffer-tmp-abc", f"{d}/MEMORY.md"))
        assert w.coalescer.pop_due(now=1e9)[0].index_only is True
        w._on_event("tier:X", FileMovedEvent(f"{d}/.coffer-tmp-abc", f"{d}/fact.md"))
        assert w.coalescer.pop_due(now=1e9)[0].index_only is False
        w._on_event("root", FileModifiedEvent(f"{d}/README.md"))
        assert len(w.coalescer) == 0
        w._on_event("root", FileMovedEvent(f"{d}/.coffer-tmp-1", f"{d}/config.json"))
        assert [b.key for b in w.coalescer.pop_due(now=1e9)] == ["config"]
    finally:
        w.waker.close()


def test_a_failing_refresh_is_logged_and_survived(
    project: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from coffer.watch.watcher import Watcher

    repo = project("repo")
    w = Watcher(store(), os.environ, log=logging.getLogger("test-watch"))
    try:

        def boom(scope: str, root: Path | None) -> None:
            raise PermissionError(13, "Permission denied", str(repo / "AGENTS.md"))

        monkeypatch.setattr(w.engine, "refresh", boom)
        with caplog.at_level(logging.WARNING, logger="test-watch"):
            w._refresh(tier_of(repo))
        assert "PermissionError" in caplog.text
        assert w.status.last_error is not None and "Permission denied" in w.status.last_error
        assert w.status.renders == 1
    finally:
        w.waker.close()


def test_engine_refresh_reports_an_unwritable_target(
    project: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from coffer.base import fsutil

    repo = project("repo")
    write_entry(tier_of(repo).dir, "fact", "a fact")

    real = fsutil.atomic_write_bytes

    def denied(path: Path, data: bytes, mode: int | None = 0o600) -> None:
        if path.name == "AGENTS.md":
            raise PermissionError(13, "Permission denied", str(path))
        real(path, data, mode)

    monkeypatch.setattr(fsutil, "atomic_write_bytes", denied)
    report = Engine(store(), os.environ).refresh("project", repo)
    assert [p.state for p in report.problems] == ["error"]
    assert "Permission denied" in report.problems[0].message


def test_falls_back_to_polling_when_the_kernel_refuses_a_watch(
    project: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import watchdog.observers

    from coffer.watch.watcher import Watcher, WatchOptions

    class Refusing(watchdog.observers.Observer):  # type: ignore[misc,valid-type]
        def schedule(self, *args: object, **kwargs: object) -> object:
            raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchdog.observers, "Observer", Refusing)
    repo = project("repo")
    fast = WatchOptions(poll_interval=0.1)
    w = Watcher(store(), os.environ, log=logging.getLogger("test-fallback"), options=fast)
    t = threading.Thread(target=w.run)
    t.start()
    try:
        wait_for(lambda: status().get("state") == "watching", "the in-process daemon")
        assert status()["mode"] == "polling"
        write_entry(tier_of(repo).dir, "fallback", "seen after the fallback ppqz")
        wait_for(lambda: "ppqz" in (repo / "AGENTS.md").read_text(), "the polled change")
    finally:
        w.request_stop()
        t.join(timeout=DEADLINE)
    assert not t.is_alive()
    assert status()["state"] == "stopped"


@pytest.mark.posix_only("POSIX signals (SIGTERM to a child)")
def test_the_inotify_instance_limit_falls_back_to_polling_and_says_so_once(
    project: Callable[[str], Path],
    start: Callable[..., Daemon],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The kernel refuses a new inotify instance (fs.inotify.max_user_instances reached):
    # watchdog's inotify observer fails as it is made, before any watch.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import errno\n"
        "from watchdog.observers import inotify_c\n"
        "def _refuse(cls):\n"
        "    raise OSError(errno.EMFILE, 'inotify instance limit reached')\n"
        "inotify_c.InotifyFD._create_inotify_fd = classmethod(_refuse)\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(site))
    repo = project("repo")
    d = start("--poll-interval", "0.1")
    assert status()["mode"] == "polling"
    assert "inotify instance limit reached" in status()["polling_reason"]
    write_entry(tier_of(repo).dir, "limited", "seen by polling kkzw")
    wait_for(lambda: "kkzw" in (repo / "AGENTS.md").read_text(), "the polled change", d.log)
    said = coffer("watch", "--status").stdout
    assert "because native file events are unavailable (inotify instance limit" in said
    assert d.stop() == 0
    assert d.text().count("inotify instance limit reached") == 1  # said once
    assert "Traceback" not in d.text()
