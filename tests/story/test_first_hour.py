"""A new user's first hour, end to end through the real CLI and real git (issue 9).

A fresh home; a repository with its own tracked AGENTS.md and CLAUDE.md and an existing
Claude memory directory for it; `coffer setup`; then agents' session-start hooks run as
the agents run them. Every step is what the user would see.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.testing import snapshot
from coffer_adapters.claude_code import slug
from coffer_adapters.claude_code.setup import WINDOWS_SHELL as CLAUDE_SHELL
from tests.helpers import coffer, run_hook
from tests.projection.test_git import git, git_files, init_repo, ok


@pytest.fixture
def world(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Agents at their default places, the machine's git configuration shut out.
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    (fake_home / ".codex").mkdir()
    (fake_home / ".codex" / "config.toml").write_text('model = "o4"\n')
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return fake_home


def hook_command(settings: Path, event: str = "SessionStart") -> str:
    return str(json.loads(settings.read_text())["hooks"][event][0]["hooks"][0]["command"])


def test_the_first_hour(world: Path, tmp_path: Path) -> None:
    home = world
    claude = home / ".claude"
    repo = init_repo(
        tmp_path / "app",
        {"AGENTS.md": b"# Agents\n\nRun make test.\n", "CLAUDE.md": b"# Claude\n\n@AGENTS.md\n"},
    )
    # Claude has been used here before coffer: a topic file and its own index line.
    native = claude / "projects" / slug(str(repo)) / "memory"
    native.mkdir(parents=True)
    (native / "feedback_tests.md").write_text(
        "---\nname: run-tests-verbosely\ndescription: Run pytest with -vv in this repo.\n"
        "metadata:\n  type: feedback\n---\n\nThe CI logs need it.\n"
    )
    (native / "MEMORY.md").write_text(
        "- [Tests](feedback_tests.md) — pytest -vv\n- remember to ask about the staging DB\n"
    )
    scratch = tmp_path / "Downloads"
    scratch.mkdir()
    (scratch / "notes.txt").write_text("x\n")
    git_before = git_files(repo)
    before = snapshot(tmp_path, tmp_path / "coffer-home")

    # 1. Setup wires the agents (no terminal here, so --yes).
    ok(coffer("setup", "--yes", cwd=repo))
    claude_hook = hook_command(claude / "settings.json")
    assert "--hook" in claude_hook and "--for claude" in claude_hook

    # 2. The first Claude session in the repository: Claude read its directory before the
    # hook finished, so the hook hands the memory to this session; the index lists the
    # merged entry and keeps the user's own line.
    first = run_hook(claude_hook, repo, CLAUDE_SHELL.syntax)
    assert first.returncode == 0, first.stderr
    assert "run-tests-verbosely" in first.stdout or "Run pytest with -vv" in first.stdout
    assert native.is_symlink()
    index = (native / "MEMORY.md").read_text()
    assert "feedback_tests.md" in index
    assert "remember to ask about the staging DB" in index
    # The second session starts with nothing new to hand over.
    assert run_hook(claude_hook, repo, CLAUDE_SHELL.syntax).stdout == ""

    # 3. A write through the CLI reaches every projection at once and says where.
    remembered = ok(coffer("remember", "We deploy with make release.", cwd=repo))
    assert str(repo / "AGENTS.md") in remembered.stdout
    assert "We deploy with make release." in (repo / "AGENTS.md").read_text()
    assert "make release" in (native / "MEMORY.md").read_text()
    again = ok(coffer("remember", "We deploy with make release.", cwd=repo))
    assert "already remembered" in again.stdout

    # 4. git sees none of it: not the block in the tracked files, not after the write.
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "diff") == ""
    git(repo, "commit", "-a", "-q", "-m", "nothing of coffer's", check=False)
    assert "make release" not in git(repo, "show", "HEAD:AGENTS.md")

    # 5. An agent started in a directory that is not a repository leaves nothing there.
    start = run_hook(claude_hook, scratch, CLAUDE_SHELL.syntax)
    assert start.returncode == 0, start.stderr
    assert sorted(p.name for p in scratch.iterdir()) == ["notes.txt"]
    assert not (claude / "projects" / slug(str(scratch))).exists()

    # 6. Undo: every file outside the store is back, byte for byte, git's files included.
    ok(coffer("unproject", "--all", cwd=repo))
    ok(coffer("setup", "--undo", cwd=repo))
    assert git_files(repo) == git_before
    assert git(repo, "status", "--porcelain") == ""
    after = snapshot(tmp_path, tmp_path / "coffer-home")
    kept = str(native.relative_to(tmp_path))
    changed = sorted(
        k
        for k in set(before) | set(after)
        if before.get(k) != after.get(k)
        # Claude's directory comes back holding what it knows now (its parents stay);
        # git's own bookkeeping (index, objects, logs) is git's.
        and not k.startswith((kept, str(Path("app") / ".git")))
        and after.get(k, ("",))[0] != "dir"
    )
    assert changed == []
    assert not native.is_symlink()
    assert (native / "feedback_tests.md").read_text().startswith("---\nname: run-tests-verbosely")
