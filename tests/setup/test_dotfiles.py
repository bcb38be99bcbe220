"""Config files that are symlinks into a dotfiles repository (stow, chezmoi's symlink mode,
home-manager): coffer edits the file the link points to and leaves the link as it is, or
refuses the whole agent clearly (issue 10, point 10; docs/adr/0019)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo, store
from tests.projection.test_engine import CODEX_CONFIG
from tests.setup.test_setup_undo import CODEX_HOOKS, GEMINI_SETTINGS, realistic, snapshot


def link_into(dotfiles: Path, path: Path) -> Path:
    """Move ``path`` into ``dotfiles`` and leave a relative link in its place, as stow does."""
    target = dotfiles / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    path.rename(target)
    path.symlink_to(os.path.relpath(target, path.parent))
    return target


def state(paths: list[Path]) -> dict[str, tuple[str, bytes]]:
    out = {}
    for p in paths:
        if p.is_symlink():
            out[str(p)] = ("link", os.readlink(p).encode())
        else:
            out[str(p)] = ("file", p.read_bytes())
    return out


# ---- project: Codex's native-memory switch ------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "repo")
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    return r


@pytest.mark.needs_symlinks
def test_project_turns_codex_memory_off_through_a_dotfiles_link(repo, fake_home, tmp_path):
    config = fake_home / ".codex" / "config.toml"
    config.write_bytes(CODEX_CONFIG)
    target = link_into(tmp_path / "dotfiles" / "codex", config)
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    shown = os.readlink(config)
    r = coffer("project", cwd=repo)
    assert r.returncode == 0, r.stdout + r.stderr
    assert config.is_symlink() and os.readlink(config) == shown
    assert b"memories = false" in target.read_bytes()
    assert "codex" in coffer("adapter", "list", cwd=repo).stdout
    undone = coffer("unproject", "--agent", "codex", cwd=repo)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert config.is_symlink() and os.readlink(config) == shown
    assert target.read_bytes() == CODEX_CONFIG
    assert target.stat().st_mtime_ns == 1_000_000_000


@pytest.mark.needs_symlinks
def test_project_refuses_a_dangling_codex_config_link_and_says_why(repo, fake_home, tmp_path):
    config = fake_home / ".codex" / "config.toml"
    config.symlink_to(tmp_path / "dotfiles" / "codex" / "config.toml")
    r = coffer("project", cwd=repo)
    assert r.returncode == 1
    out = r.stdout + r.stderr
    assert "codex's own memory stays on" in out and "dangling link" in out
    assert os.readlink(config) == str(tmp_path / "dotfiles" / "codex" / "config.toml")
    assert not (tmp_path / "dotfiles").exists()  # nothing created through the link
    # The rest of the projection still happened.
    assert "We deploy with make release" in (repo / "AGENTS.md").read_text()


@pytest.mark.needs_symlinks
def test_undo_refuses_when_the_link_was_repointed(repo, fake_home, tmp_path):
    config = fake_home / ".codex" / "config.toml"
    config.write_bytes(CODEX_CONFIG)
    target = link_into(tmp_path / "dotfiles", config)
    assert coffer("project", cwd=repo).returncode == 0
    other = tmp_path / "elsewhere.toml"
    other.write_bytes(b"model = 'x'\n")
    config.unlink()
    config.symlink_to(other)
    r = coffer("unproject", "--agent", "codex", cwd=repo)
    assert r.returncode == 1 and "now leads to" in r.stdout + r.stderr
    assert other.read_bytes() == b"model = 'x'\n"
    assert b"memories = false" in target.read_bytes()


# ---- setup: every config file it edits ----------------------------------------------------


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    realistic(fake_home, codex_hooks=True)
    (fake_home / ".gemini").mkdir()
    (fake_home / ".gemini" / "settings.json").write_text(GEMINI_SETTINGS)
    return fake_home


FILES = [
    ".claude.json",
    ".claude/settings.json",
    ".codex/config.toml",
    ".codex/hooks.json",
    ".gemini/settings.json",
]


@pytest.mark.needs_symlinks
def test_setup_edits_through_dotfiles_links_and_undo_restores_exactly(home, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    links = [home / f for f in FILES]
    targets = [link_into(dotfiles / f.replace("/", "_"), home / f) for f in FILES]
    home_before = state(links)
    dot_before = snapshot(dotfiles)
    done = coffer("setup", "--yes", "--agent", "claude", "--agent", "codex", "--agent", "gemini")
    assert done.returncode == 0, done.stdout + done.stderr
    assert state(links)  # every link is still a link, pointing where it did
    assert {k: v for k, v in state(links).items() if v[0] == "link"} == home_before
    for t in targets:
        assert b"coffer" in t.read_bytes(), t
    assert "coffer" in json.loads(targets[0].read_text())["mcpServers"]
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert state(links) == home_before
    assert snapshot(dotfiles) == dot_before


@pytest.mark.needs_symlinks
@pytest.mark.parametrize("broken", [".claude/settings.json", ".claude.json"])
def test_setup_refuses_an_agent_whole_when_one_of_its_files_is_a_dangling_link(
    home, tmp_path, broken
):
    path = home / broken
    path.unlink()
    path.symlink_to(tmp_path / "dotfiles" / "gone.json")
    claude_files = [home / ".claude.json", home / ".claude" / "settings.json"]
    before = state(claude_files)
    done = coffer("setup", "--yes", "--agent", "claude", "--agent", "codex")
    assert done.returncode == 1
    out = done.stdout + done.stderr
    assert "dangling link" in out and "claude was not wired at all" in out
    assert state(claude_files) == before  # not half: neither the MCP server nor the hook
    assert "coffer" in (home / ".codex" / "config.toml").read_text()  # codex is wired
    assert coffer("setup", "--undo").returncode == 0
    assert (home / ".codex" / "hooks.json").read_text() == CODEX_HOOKS


@pytest.mark.needs_symlinks
@pytest.mark.skipif(
    getattr(os, "geteuid", lambda: -1)() == 0, reason="root may write read-only files"
)
def test_a_read_only_link_target_is_refused(home, tmp_path):
    target = link_into(tmp_path / "nix-store", home / ".claude" / "settings.json")
    target.chmod(0o444)
    target.parent.chmod(0o555)
    try:
        done = coffer("setup", "--yes", "--agent", "claude")
        assert done.returncode == 1
        assert "read-only" in done.stdout + done.stderr
        assert "coffer" not in (home / ".claude.json").read_text()
    finally:
        target.parent.chmod(0o755)
