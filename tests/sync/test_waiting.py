"""A machine's first `coffer sync` reaches its agents without a second sync (docs/adr/0034,
amended): B has a fresh store and a clone it never opened with coffer; `sync` then one
`project` shows A's entries, and the next round has nothing to pull or push."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from coffer.app import App
from coffer.store import waiting
from tests.sync_machines import Machine, World, git, make_world

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
KEY = "github.com/me/app"


def fresh_world(tmp_path: Path, mp: pytest.MonkeyPatch) -> World:
    """make_world's two machines, except B: sync set up, the project never registered."""
    return make_world(tmp_path, mp, register_b=False)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return fresh_world(tmp_path, monkeypatch)


def waiting_dir(m: Machine, key: str = KEY) -> Path:
    return waiting.area(m.store_root) / waiting.dirname(key)


def test_the_first_sync_reaches_the_first_session_and_the_next_round_has_nothing(
    world: World,
) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("remember", "Tabs, not spaces.", "--name", "tabs", "--scope", "global")
    assert "pushed 2 files" in a.ok("sync").out
    said = b.ok("sync")
    assert "pulled 1 file" in said.out  # the global entry; the project's waits
    assert not (b.store_root / "projects.json").exists()  # sync registered nothing
    assert sorted(p.name for p in waiting_dir(b).iterdir()) == ["deploy.md"]
    said = b.ok("project")  # what the session-start hook runs
    assert "1 entry synced from other machines for github.com/me/app" in said.out
    assert "We deploy with make release." in (b.project / "AGENTS.md").read_text()
    claude = b.claude_memory()
    assert "[deploy](deploy.md)" in (claude / "MEMORY.md").read_text()
    # Byte for byte what A wrote: the next round treats it as already imported.
    assert (b.memory_dir() / "deploy.md").read_bytes() == (
        a.memory_dir() / "deploy.md"
    ).read_bytes()
    assert not waiting_dir(b).exists()
    head = git("rev-parse", "main", cwd=world.remote)
    said = b.ok("sync")
    assert "pulled 0 files, pushed 0 files" in said.out and "conflict" not in said.out
    assert git("rev-parse", "main", cwd=world.remote) == head
    assert sorted(p.name for p in b.memory_dir().iterdir()) == ["MEMORY.md", "deploy.md"]
    assert "pulled 0 files, pushed 0 files" in a.ok("sync").out
    # And the project now syncs like any other: B's edit reaches A.
    b.ok("update", "deploy", "We deploy with make ship.")
    assert "pushed 1 file" in b.ok("sync").out
    assert "pulled 1 file" in a.ok("sync").out
    assert "make ship" in (a.memory_dir() / "deploy.md").read_text()


def test_the_waiting_copy_follows_the_remote_and_goes_once_a_project_has_the_key(
    world: World,
) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("remember", "Lint with ruff.", "--name", "lint")
    a.ok("sync")
    b.ok("sync")
    a.ok("forget", "lint")
    a.ok("update", "deploy", "We deploy with make ship.")
    a.ok("sync")
    b.ok("sync")
    assert sorted(p.name for p in waiting_dir(b).iterdir()) == ["deploy.md"]
    assert "make ship" in (waiting_dir(b) / "deploy.md").read_text()
    # Registered by a command that is no sync: the entries move in all the same.
    b.ok("remember", "Run the tests first.", "--name", "tests")
    assert sorted(p.name for p in b.memory_dir().glob("*.md")) == [
        "MEMORY.md",
        "deploy.md",
        "tests.md",
    ]
    assert "pushed 1 file" in b.ok("sync").out
    assert not waiting.area(b.store_root).exists() or not any(waiting.area(b.store_root).iterdir())


@pytest.mark.needs_symlinks
def test_a_waiting_entry_that_fails_the_checks_is_refused_with_a_report(
    world: World, tmp_path: Path
) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    # Someone with write access to the remote pushes a hostile file under the key.
    hostile = tmp_path / "hostile"
    git("clone", "-q", "-b", "main", str(world.remote), str(hostile))
    d = hostile / "projects" / "github.com" / "me" / "app"
    (d / "leak.md").write_text(f"---\nname: leak\n---\n\n{TOKEN}\n")
    (d / "link.md").symlink_to("/etc/passwd")
    git("add", "-A", cwd=hostile)
    git("commit", "-q", "-m", "hostile", cwd=hostile)
    git("push", "-q", "origin", "HEAD:main", cwd=hostile)
    said = b.ok("sync")
    assert "app/leak.md: looks like it holds a secret" in said.err
    assert "app/link.md: not a plain file" in said.err
    assert sorted(p.name for p in waiting_dir(b).iterdir()) == ["deploy.md"]  # never copied
    # And the copy itself is checked again: whatever reached the waiting area by hand.
    w = waiting_dir(b)
    (w / "alias.md").write_text("---\na: &x [1]\nb: *x\n---\nbody\n")
    (w / "secret.md").write_text(f"---\nname: secret\n---\n\nUse {TOKEN} in CI.\n")
    (w / f"{TOKEN}.md").write_text("---\nname: odd\n---\n\nOdd.\n")
    (w / "passwd.md").symlink_to("/etc/passwd")
    (w / "MEMORY.md").write_text("# Memory\n\n- [evil](../../evil.md)\n")
    said = b.ok("project")
    for bad in ("alias.md: not an entry", "secret.md: looks like it holds a secret"):
        assert f"coffer: refused an entry synced from another machine for {KEY}: {bad}" in said.err
    assert "passwd.md: a link" in said.err and "MEMORY.md: not a name" in said.err
    assert "[redacted GitHub token].md: looks like" in said.err
    assert TOKEN not in said.out + said.err
    assert sorted(p.name for p in b.memory_dir().iterdir()) == ["MEMORY.md", "deploy.md"]
    assert TOKEN not in (b.project / "AGENTS.md").read_text()
    assert "evil" not in (b.memory_dir() / "MEMORY.md").read_text()
    assert not w.exists()
    said = b.ok("sync")  # the repository's own hostile files are named again, every round
    assert "app/leak.md: looks like it holds a secret" in said.err
    assert "pushed 0 files" in said.out and "conflict" not in said.out


def test_a_registration_runs_no_git_for_what_waits(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    b.ok("sync")
    with b.environ():
        app = App(dict(os.environ))
        root_commit = git("rev-list", "--max-parents=0", "HEAD", cwd=b.project).strip()
        monkeypatch.setattr("coffer.store.projects.root_commit", lambda root: root_commit)

        def no_process(*args: object, **kwargs: object) -> None:
            raise AssertionError(f"a process started: {args}")

        monkeypatch.setattr(subprocess, "Popen", no_process)
        tier = app.store.tier_at(b.project, create=True)
        assert tier is not None and (tier.dir / "deploy.md").is_file()
        assert [r.notices for r in app.store.arrived] == [
            ["1 entry synced from other machines for github.com/me/app added to this project"]
        ]


def test_the_waiting_directory_of_any_key_is_one_safe_component() -> None:
    from coffer.store.sync_keys import MAX_SEGMENTS, valid_key

    assert waiting.dirname("github.com/me/app") == "github.com+me+app"
    assert waiting.dirname("root-" + "a" * 40) == "root-" + "a" * 40
    long_a = "/".join(["a" * 100] * MAX_SEGMENTS)
    long_b = "/".join(["a" * 100] * (MAX_SEGMENTS - 1) + ["b" * 100])
    assert valid_key(long_a) and valid_key(long_b)
    names = {waiting.dirname(k) for k in (long_a, long_b, "a/b", "a.b", "a_b")}
    assert len(names) == 5
    assert all(len(n) <= 255 and "/" not in n and not n.startswith(".") for n in names)


def test_the_session_start_hook_takes_them_and_says_what_it_refused(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    b.ok("sync")
    (waiting_dir(b) / "secret.md").write_text(f"---\nname: secret\n---\n\nUse {TOKEN}.\n")
    said = b.ok("project", "--hook", "--for", "claude")  # what an agent's session start runs
    assert "We deploy with make release." in (b.project / "AGENTS.md").read_text()
    assert "refused an entry synced from another machine" in said.out  # the agent shows it
    assert "secret.md: looks like it holds a secret" in said.out
    assert TOKEN not in said.out + said.err
    assert not (b.memory_dir() / "secret.md").exists()
    assert "pulled 0 files, pushed 0 files" in b.ok("sync").out
