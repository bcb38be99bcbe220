"""`coffer sync` end to end: two machines (two homes, two stores, one project cloned at
different paths), a bare repository as the remote, the real CLI (issue 13 §7)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from coffer.app import App
from coffer.sync import api
from coffer.sync.errors import RemoteUnreachable
from tests.sync_machines import World, git, make_world, remote_objects

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def subprocess_out(cmd: list[str], git_dir: Path, stdin: bytes) -> str:
    env = {**os.environ, "GIT_DIR": str(git_dir)}
    done = subprocess.run(cmd, input=stdin, capture_output=True, check=True, env=env, timeout=60)
    return done.stdout.decode().strip()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)


def test_remembered_on_a_reaches_bs_agents_block_and_claude_link(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    said = a.ok("sync")
    assert "pushed 1 file" in said.out
    said = b.ok("sync")
    assert "pulled 1 file" in said.out
    # One project, though cloned at other paths and its origin spelt ssh on A, https on B.
    assert "We deploy with make release." in (b.project / "AGENTS.md").read_text()
    claude = b.claude_memory()
    assert claude.is_symlink()
    assert "We deploy with make release." in (claude / "deploy.md").read_text()
    assert "[deploy](deploy.md)" in (claude / "MEMORY.md").read_text()
    # The store's files only: no MEMORY.md, project.json or journal in the repository.
    files = git("ls-tree", "-r", "--name-only", "main", cwd=world.remote).split()
    assert files == ["projects/github.com/me/app/deploy.md"]
    assert str(a.project).encode() not in remote_objects(world.remote)


def test_a_round_with_nothing_new_makes_no_commit(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "Tabs, not spaces.", "--name", "tabs", "--scope", "global")
    a.ok("sync")
    b.ok("sync")
    head = git("rev-parse", "main", cwd=world.remote)
    for m in (a, b, a):
        assert "pulled 0 files, pushed 0 files" in m.ok("sync").out
    assert git("rev-parse", "main", cwd=world.remote) == head
    report = json.loads(b.ok("sync", "--json").out)
    assert (report["pulled"], report["pushed"], report["conflicts"]) == (0, 0, [])
    status = json.loads(b.ok("sync", "status", "--json").out)
    assert status["host"] == "b" and status["unpushed"] == 0
    assert ["github.com/me/app", f"app-clone ({b.project})"] in status["synced"]
    # The global tier travels too, into B's global blocks.
    assert "Tabs, not spaces." in (b.home / ".codex" / "AGENTS.md").read_text()


def test_one_entry_changed_on_both_machines_keeps_both_and_doctor_says_so(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    b.ok("sync")
    a.ok("update", "deploy", "We deploy with make release from A.")
    b.ok("update", "deploy", "We deploy with make ship from B.")
    a.ok("sync")
    said = b.ok("sync")
    assert "1 conflict copy kept" in said.out
    a.ok("sync")
    for m in (a, b):
        files = sorted(p.name for p in m.memory_dir().iterdir())
        assert files == ["MEMORY.md", "deploy.conflict-a-" + files[1].split("-a-")[1], "deploy.md"]
        texts = {p.name: p.read_text() for p in m.memory_dir().iterdir()}
        assert not any("<<<<<<<" in t or ">>>>>>>" in t for t in texts.values())
        with m.environ():
            app = App(dict(os.environ))
            tier = app.store.all_tiers()[1]
            scan = app.store.scan(tier)
        assert not scan.problems  # both versions parse
        bodies = {e.filename: e.body for e in scan.entries}
        assert "ship from B" in bodies["deploy.md"]  # B merged: B's version stays in place
        assert "release from A" in next(v for k, v in bodies.items() if "conflict" in k)
        doctor = m.coffer("doctor")
        assert doctor.code == 1
        assert "conflict copy: a changed deploy.md too" in doctor.out


def test_a_deletion_against_an_edit_keeps_the_edit_and_a_plain_deletion_travels(
    world: World,
) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("remember", "Lint with ruff.", "--name", "lint")
    a.ok("sync")
    b.ok("sync")
    a.ok("forget", "deploy")
    b.ok("update", "deploy", "We deploy with make ship.")
    b.ok("forget", "lint")
    a.ok("sync")
    b.ok("sync")
    a.ok("sync")
    for m in (a, b):
        assert "make ship" in (m.memory_dir() / "deploy.md").read_text()
        assert not (m.memory_dir() / "lint.md").exists()
    assert "Lint with ruff." not in (a.project / "AGENTS.md").read_text()
    assert list((a.memory_dir().parent / "trash").iterdir())  # moved aside, not destroyed


def test_a_secret_on_a_refuses_the_push_and_nothing_leaves(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    # An agent wrote the file itself (Claude writes into the store through its link).
    (a.memory_dir() / "ci-token.md").write_text(
        f"---\nname: ci-token\ndescription: the CI token\n---\n\nUse {TOKEN} in CI.\n"
    )
    # And one whose file name is the token (Claude names files after their topic).
    (a.memory_dir() / f"{TOKEN}.md").write_text("---\nname: odd\n---\n\nOdd.\n")
    said = a.coffer("sync")
    assert said.code == 1
    assert "push refused: 2 entries hold" in said.err and "ci-token" in said.err
    assert "[redacted GitHub token]" in said.err
    assert TOKEN not in said.err + said.out
    assert git("for-each-ref", cwd=world.remote) == ""  # nothing was pushed at all
    assert TOKEN.encode() not in remote_objects(world.remote)
    assert TOKEN.encode() not in remote_objects(a.store_root / "sync" / "repo.git")
    # Once the secret is gone the other entry leaves, and B gets it.
    (a.memory_dir() / "ci-token.md").unlink()
    (a.memory_dir() / f"{TOKEN}.md").unlink()
    a.ok("sync")
    b.ok("sync")
    assert (b.memory_dir() / "deploy.md").exists()


def test_an_unreachable_remote_loses_nothing_and_a_later_sync_converges(world: World) -> None:
    a, b = world.a, world.b
    away = world.remote.with_name("away.git")
    shutil.move(world.remote, away)
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    said = a.coffer("sync")
    assert said.code == 1
    assert said.err.count("\n") == 1 and "cannot reach" in said.err
    assert "nothing is lost" in said.err
    assert (a.memory_dir() / "deploy.md").exists()
    with a.environ(), pytest.raises(RemoteUnreachable):
        api.sync_once(App(dict(os.environ)))
    status = a.ok("sync", "status")
    assert "not pushed yet: 1 commit" in status.out
    shutil.move(away, world.remote)
    a.ok("sync")
    b.ok("sync")
    assert "make release" in (b.memory_dir() / "deploy.md").read_text()


@pytest.mark.needs_symlinks
def test_pulled_files_are_untrusted(world: World, tmp_path: Path) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    # Someone with write access to the remote pushes hostile files.
    hostile = tmp_path / "hostile"
    git("clone", "-q", "-b", "main", str(world.remote), str(hostile))
    d = hostile / "projects" / "github.com" / "me" / "app"
    (d / "link.md").symlink_to("/etc/passwd")
    (d / "alias.md").write_text("---\na: &x [1]\nb: *x\n---\nbody\n")
    (d / "leak.md").write_text(f"---\nname: leak\n---\n\n{TOKEN}\n")
    (d / "big.md").write_text("---\nname: big\n---\n\n" + "x" * (1024 * 1024 + 10))
    (d / "MEMORY.md").write_text("# Memory\n\n- [evil](../../evil.md)\n")
    (d / ".hidden.md").write_text("---\nname: hidden\n---\n\nhidden\n")
    (hostile / "hooks.md").write_text("---\nname: stray\n---\n\nstray\n")
    (d / "esc\x1b[31m.md").write_text("---\nname: esc\n---\n\nred\n")
    (d / "fine.md").write_text("---\nname: fine\ndescription: fine\n---\n\nA fine fact.\n")
    git("add", "-A", cwd=hostile)
    git("commit", "-q", "-m", "hostile", cwd=hostile)
    git("push", "-q", "origin", "HEAD:main", cwd=hostile)
    said = b.ok("sync")
    names = sorted(p.name for p in b.memory_dir().iterdir())
    assert names == ["MEMORY.md", "deploy.md", "fine.md"]
    refused = said.err
    for bad in ("link.md", "alias.md", "leak.md", "big.md", ".hidden.md", "MEMORY.md"):
        assert f"app/{bad}: " in refused
    assert TOKEN not in refused
    assert "\x1b" not in said.out + said.err and "esc\\x1b[31m.md: not a name" in refused
    # Nothing hostile entered B's repository's work: it is bare, nothing is checked out.
    assert not (b.store_root / "sync" / "repo.git" / "projects").exists()


def test_a_project_without_remote_or_commit_stays_local_until_linked(
    world: World, tmp_path: Path
) -> None:
    a, b = world.a, world.b
    notes_a, notes_b = tmp_path / "a" / "notes", tmp_path / "b" / "my-notes"
    for m, notes in ((a, notes_a), (b, notes_b)):
        git("init", "-q", str(notes))
        m.ok("project", cwd=notes)
    a.ok("remember", "Notes fact.", "--name", "notes-fact", cwd=notes_a)
    a.ok("sync")
    status = a.ok("sync", "status")
    assert f"local only: notes ({notes_a})" in status.out
    assert b"Notes fact." not in remote_objects(world.remote)
    bad = a.coffer("sync", "link", "../escape", cwd=notes_a)
    assert bad.code == 1 and "invalid sync key" in bad.err
    a.ok("sync", "link", "notes", cwd=notes_a)
    a.ok("sync")
    b.ok("sync")
    assert "waiting: notes" in b.ok("sync", "status").out  # kept until B names its project
    b.ok("sync", "link", "notes", cwd=notes_b)
    b.ok("sync")
    files = sorted(p.name for p in (b.store_root / "projects").glob("*/memory/notes-fact.md"))
    assert files == ["notes-fact.md"]


def test_a_key_no_project_here_has_arrives_when_the_project_is_registered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = make_world(tmp_path, monkeypatch)
    a, b = world.a, world.b
    other_a = tmp_path / "a" / "other"
    git("clone", "-q", str(world.origin), str(other_a))
    git("remote", "set-url", "origin", "ssh://git@example.org:2222/team/other.git", cwd=other_a)
    a.ok("project", cwd=other_a)
    a.ok("remember", "Other fact.", "--name", "other-fact", cwd=other_a)
    a.ok("sync")
    b.ok("sync")
    assert "waiting: example.org/team/other" in b.ok("sync", "status").out
    other_b = tmp_path / "b" / "elsewhere" / "other"
    git("clone", "-q", str(world.origin), str(other_b))
    git("remote", "set-url", "origin", "https://example.org/team/other", cwd=other_b)
    b.ok("project", cwd=other_b)  # from the waiting copy: no second sync needed
    assert "Other fact." in (other_b / "AGENTS.md").read_text()
    assert "pulled 0 files, pushed 0 files" in b.ok("sync").out  # already imported


def test_the_api_for_the_watcher(world: World) -> None:
    a = world.a
    with a.environ():
        app = App(dict(os.environ))
        assert api.configured(app)
        a.ok("remember", "API fact.", "--name", "api-fact")
        report = api.sync_once(app, push=False)
        assert report.pushed == 0 and report.conflicts == () and report.blocked == ()
        assert git("for-each-ref", cwd=world.remote) == ""
        report = api.sync_once(app)
        assert (report.pulled, report.pushed) == (0, 1)
        assert report.summary.startswith("synced: ")
    with world.b.environ():
        env = dict(os.environ)
    shutil.rmtree(world.b.store_root / "sync")
    assert not api.configured(App(env))


def test_a_push_that_loses_a_race_merges_again_and_pushes(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coffer.sync import rounds

    a, b = world.a, world.b
    real_push = rounds.push
    calls = []

    def racing_push(*args: object) -> bool:
        calls.append(args)
        if len(calls) == 1:  # B pushes between A's fetch and A's push (B's own push is #2)
            b.ok("remember", "B's fact.", "--name", "b-fact")
            b.ok("sync")
        return real_push(*args)  # type: ignore[arg-type]

    a.ok("remember", "A's fact.", "--name", "a-fact")
    monkeypatch.setattr(rounds, "push", racing_push)
    said = a.ok("sync")
    assert len(calls) == 3 and "pulled 1 file" in said.out  # A's first push lost, A's second won
    files = git("ls-tree", "-r", "--name-only", "main", cwd=world.remote).split()
    assert files == ["projects/github.com/me/app/a-fact.md", "projects/github.com/me/app/b-fact.md"]


def test_paths_no_index_takes_do_not_stop_rounds(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    # A pusher with plumbing can make a tree git itself would never check out.
    r = world.remote
    blob = subprocess_out(["git", "hash-object", "-w", "--stdin"], r, b"gotcha\n")
    root = git("ls-tree", "main", cwd=r)
    hostile = root + f"100644 blob {blob}\t..\n100644 blob {blob}\t.git\n"
    tree_id = subprocess_out(["git", "mktree"], r, hostile.encode())
    parent = git("rev-parse", "main", cwd=r).strip()
    commit = git("commit-tree", tree_id, "-p", parent, "-m", "hostile", cwd=r).strip()
    git("update-ref", "refs/heads/main", commit, cwd=r)
    b.ok("sync")  # a fast-forward: nothing to rebuild
    a.ok("remember", "Lint with ruff.", "--name", "lint")
    said = a.ok("sync")  # a merge: the tree is rebuilt without what no index takes
    assert "pushed 3 files" in said.out  # the new entry, and the two paths dropped
    b.ok("sync")
    names = git("ls-tree", "--name-only", "main", cwd=r).split()
    assert names == ["projects"]
    assert (b.memory_dir() / "lint.md").exists()


def test_a_machine_with_memories_of_its_own_joins_without_losing_any(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    # B remembered things before it ever synced: its first round merges unrelated histories.
    b.ok("remember", "Run the linter first.", "--name", "lint")
    b.ok("remember", "We deploy from CI only.", "--name", "deploy")
    said = b.ok("sync")
    assert "1 conflict copy kept" in said.out  # both had a "deploy", with other texts
    a.ok("sync")
    for m in (a, b):
        names = sorted(p.name for p in m.memory_dir().glob("*.md"))
        assert names[1].startswith("deploy.conflict-a-")
        assert [names[0], *names[2:]] == ["MEMORY.md", "deploy.md", "lint.md"]
    assert "from CI only" in (a.memory_dir() / "deploy.md").read_text()  # B merged: B's stays


def test_a_round_killed_while_importing_loses_no_edit(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coffer.sync import local

    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    b.ok("sync")
    a.ok("update", "deploy", "We deploy with make ship.")
    a.ok("sync")

    def killed(*args: object) -> int:
        raise KeyboardInterrupt  # the round dies after merging, before the store has it

    with monkeypatch.context() as m:
        m.setattr(local, "write_entries", killed)
        assert b.coffer("sync").code == 130
    # B's old version must not come back as if B had edited it.
    said = b.ok("sync")
    assert "pushed 0 files" in said.out
    a.ok("sync")
    for m in (a, b):
        assert "make ship" in (m.memory_dir() / "deploy.md").read_text()


def test_a_missing_tier_directory_deletes_nothing_anywhere(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    b.ok("sync")
    shutil.rmtree(b.memory_dir())
    b.ok("sync")  # the pull puts the entry back instead of deleting it on every machine
    a.ok("sync")
    for m in (a, b):
        assert (m.memory_dir() / "deploy.md").exists()
