"""`coffer project --hook`, run the way the agents' session-start hooks run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coffer.base import platform
from coffer.projection import managed_block
from tests.helpers import coffer, make_repo, store
from tests.vault.test_handoffs import handoff


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "repo")
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    return r


def hook(repo: Path, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
    return coffer("project", "--hook", *extra, cwd=repo, env=env)


def message(out: subprocess.CompletedProcess[str]) -> str:
    """The message an agent shows the user: `systemMessage` of the JSON on stdout."""
    data = json.loads(out.stdout)
    assert isinstance(data, dict)
    return str(data["systemMessage"])


def test_a_drifted_block_is_told_once_per_change_and_never_fails_the_hook(repo):
    assert hook(repo).returncode == 0
    agents = repo / "AGENTS.md"
    agents.write_text(agents.read_text().replace("make release", "make ship"))
    first = hook(repo)
    assert first.returncode == 0, first.stderr
    assert "drifted" in message(first) and str(agents) in message(first)
    assert "said once" in message(first)
    # Every later session start: the same condition, nothing to say, still exit 0.
    for _ in range(2):
        again = hook(repo)
        assert (again.returncode, again.stdout) == (0, "")
    # Outside hook mode the condition still fails the run, as a script expects.
    assert coffer("project", "--quiet", cwd=repo).returncode == 1
    # The condition changes (the markers break): told again, once.
    agents.write_text(agents.read_text().replace(managed_block.END_MARKER, ""))
    changed = hook(repo)
    assert changed.returncode == 0 and "malformed" in message(changed)
    assert hook(repo).stdout == ""
    # Fixed, then broken again: that is a change too.
    agents.unlink()
    assert (hook(repo).returncode, hook(repo).stdout) == (0, "")
    agents.write_text(managed_block.START_MARKER + "\n")
    assert "malformed" in message(hook(repo))


@pytest.mark.needs_symlinks
def test_a_refused_symlink_is_told_once(repo, fake_home, tmp_path):
    from coffer_adapters.claude_code import slug

    link = fake_home / ".claude" / "projects" / slug(str(repo)) / "memory"
    link.parent.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    link.symlink_to(tmp_path / "elsewhere")
    first = hook(repo, "--for", "claude")
    assert first.returncode == 0 and "foreign" in message(first)
    assert hook(repo, "--for", "claude").stdout == ""
    assert os.readlink(link) == str(tmp_path / "elsewhere")


def test_the_message_and_the_context_share_one_json_object(repo):
    handoff(repo, "Review the flaky test", ["claude"], source="codex")
    agents = repo / "AGENTS.md"
    agents.write_text(managed_block.START_MARKER + "\n")
    out = hook(repo, "--for", "claude")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert "malformed" in data["systemMessage"]
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Review the flaky test" in data["hookSpecificOutput"]["additionalContext"]
    # Said once: the next start gets the context alone, as plain text.
    plain = hook(repo, "--for", "claude")
    assert plain.returncode == 0
    assert "Review the flaky test" in plain.stdout and "systemMessage" not in plain.stdout


def test_damaged_settings_are_said_at_every_start_and_never_fail_the_hook(repo):
    (store().root / "config.json").write_text("{not json")
    for _ in range(2):  # nothing was projected: said every time, not once
        out = hook(repo)
        assert out.returncode == 0  # a hook never fails the agent's start (ADR 0044)
        assert "not valid coffer settings" in message(out)
        assert out.stderr.startswith("coffer: error: ")


def test_a_damaged_store_is_one_line_at_exit_0_not_a_traceback(repo):
    journal = store().root / "journal"  # a damaged store: a file where a directory goes
    if journal.is_dir():
        journal.rmdir()
    journal.write_text("not a directory")
    out = hook(repo)
    assert out.returncode == 0
    assert message(out).startswith("coffer: error: ")
    assert out.stderr.startswith("coffer: error: ")
    assert "Traceback" not in out.stderr
    # Outside hook mode the same failure fails the run, as a script expects.
    plain = coffer("project", cwd=repo)
    assert plain.returncode == 1 and plain.stderr.startswith("coffer: error: ")


def test_a_held_lock_does_not_stall_the_hook(repo):
    lock_path = store().root / "state" / "projection.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    # Held by another process, as a stuck `coffer project` would hold it.
    code = f"from filelock import FileLock; l = FileLock({str(lock_path)!r}); l.acquire(); "
    code += "print('held', flush=True); import time; time.sleep(60)"
    other = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        started = time.monotonic()
        out = hook(repo, COFFER_HOOK_TIMEOUT="1")
        took = time.monotonic() - started
        assert out.returncode == 0, out.stderr
        assert "gave up after 1s" in message(out) and "holds the store" in message(out)
        assert took < 10  # not the 15 s lock wait, let alone forever
    finally:
        other.kill()
        other.wait()
    assert hook(repo).returncode == 0  # the next start finishes the work


@pytest.mark.posix_only("os.mkfifo: Windows has no FIFOs")
def test_a_step_stuck_on_a_damaged_store_is_cut_short(repo):
    tier = store().project_tier(repo)
    assert tier is not None
    index = tier.dir / "MEMORY.md"
    index.unlink(missing_ok=True)
    os.mkfifo(index)  # reading it blocks forever: a damaged store
    started = time.monotonic()
    out = hook(repo, COFFER_HOOK_TIMEOUT="0.5")
    took = time.monotonic() - started
    assert out.returncode == 0
    if platform.NONBLOCK:
        assert "gave up after 0.5s (still reading or writing" in message(out)
    else:
        # The seam as on Windows (COFFER_SIMULATE=windows), which has no FIFOs: without
        # O_NONBLOCK the FIFO is refused before any open, so nothing is left to cut short.
        assert message(out) == f"coffer: error: not a regular file (a FIFO): {index}"
    assert took < 20


def test_giving_up_stops_at_a_safe_point_and_the_next_start_finishes(repo):
    s = store()
    tier = s.project_tier(repo)
    assert tier is not None
    for n in range(3000):
        (tier.dir / f"fact-{n}.md").write_text(f"---\nname: fact-{n}\ndescription: d\n---\nx\n")
    out = hook(repo, COFFER_HOOK_TIMEOUT="0.05")
    assert out.returncode == 0, out.stderr
    # Where it stops depends on the machine: at the next step (a quick one: "the store is
    # slow or large") or, while one read takes longer than the grace, by the watchdog; both
    # leave every file whole.
    assert "gave up after 0.05s (" in message(out)
    agents = repo / "AGENTS.md"
    assert (
        not agents.exists() or managed_block.find(agents.read_bytes()) is not None
    )  # whole or none
    # A later start with time to spare completes it.
    done = hook(repo, COFFER_HOOK_TIMEOUT="60")
    assert (done.returncode, done.stdout) == (0, "")
    assert "fact-0" in (tier.dir / "MEMORY.md").read_text()


def test_setup_writes_the_hook_command_and_an_old_one_keeps_working(repo, fake_home):
    settings = fake_home / ".claude" / "settings.json"
    old = {"hooks": [{"type": "command", "command": "coffer project --quiet --for claude"}]}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [old]}}))
    done = coffer("setup", "--yes", "--agent", "claude", "--agent", "codex", "--no-service")
    assert done.returncode == 0, done.stderr
    # A hook coffer wrote before hook mode is recognised, not duplicated.
    assert json.loads(settings.read_text())["hooks"]["SessionStart"] == [old]
    codex = json.loads((fake_home / ".codex" / "hooks.json").read_text())
    command = codex["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert command.endswith("project --hook --for codex")
    assert coffer("project", "--quiet", "--for", "claude", cwd=repo).returncode == 0


def test_turning_an_agents_memory_off_is_shown_as_a_hook_message(repo, fake_home):
    (fake_home / ".codex" / "config.toml").write_text("[features]\nmemories = true\n")
    out = hook(repo)
    assert out.returncode == 0, out.stderr
    assert "turned off codex's own memory" in message(out)
    assert "coffer unproject --agent codex" in message(out)
    assert hook(repo).stdout == ""


def test_a_scan_cut_short_keeps_what_it_parsed(tmp_path, monkeypatch):
    """What lets "the next session start continues" hold for a store too large to scan
    within one hook's deadline: the cache commits in batches."""
    from coffer.store import search_cache as catalog
    from coffer.store import tier_scan

    for n in range(2500):
        (tmp_path / f"f-{n}.md").write_text(f"---\nname: f-{n}\ndescription: d\n---\nx\n")
    real = catalog._read_entry
    seen = {"n": 0}

    def cut(*args, **kwargs):
        seen["n"] += 1
        if seen["n"] > 2200:
            raise KeyboardInterrupt  # the watchdog ending the process, in effect
        return real(*args, **kwargs)

    monkeypatch.setattr(catalog, "_read_entry", cut)
    conn = catalog.open_cache(tmp_path / "cache.sqlite")
    with pytest.raises(KeyboardInterrupt):
        catalog.sync(conn, tmp_path)
    kept = conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    assert kept == 2 * catalog.SYNC_BATCH - 1  # committed before files 1000 and 2000
    monkeypatch.setattr(catalog, "_read_entry", real)
    assert len(tier_scan.scan(conn, tmp_path).entries) == 2500


def test_running_setup_again_switches_an_older_hook_to_hook_mode(fake_home):
    (fake_home / ".claude").mkdir()
    assert coffer("setup", "--yes", "--agent", "claude", "--no-service").returncode == 0
    settings = fake_home / ".claude" / "settings.json"
    # What an older coffer wrote and journaled: the same hook with `--quiet`.
    for path in [settings, *(store().root / "journal").glob("*.json")]:
        path.write_text(path.read_text().replace("project --hook", "project --quiet"))
    assert "project --quiet --for claude" in settings.read_text()
    again = coffer("setup", "--yes", "--agent", "claude", "--no-service")
    assert again.returncode == 0, again.stderr
    text = settings.read_text()
    assert "project --hook --for claude" in text and "--quiet" not in text
    assert text.count('"command":') == 1
    assert coffer("setup", "--undo", "--no-service").returncode == 0
    assert not settings.exists()
