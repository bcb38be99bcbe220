"""CLI writes reach every agent at once: remember / update / forget refresh the projected
blocks of the tier they change (the same path as the MCP tools), say which files they
updated, and never create or overwrite what `coffer project` did not establish."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo


@pytest.fixture
def home(fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()  # Claude Code and Codex "installed"
    (fake_home / ".codex").mkdir()
    return fake_home


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    (root / "AGENTS.md").write_text("# Team rules\n\nRun the tests.\n")
    return root


def ok(*args: str, cwd: Path) -> str:
    out = coffer(*args, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_remember_update_forget_reach_the_projected_blocks(repo: Path, home: Path) -> None:
    ok("project", cwd=repo)
    agents = repo / "AGENTS.md"
    global_md = home / ".claude" / "CLAUDE.md"
    assert not global_md.exists()  # an empty tier gets no block (docs/adr/0045)

    said = ok("remember", "Releases are cut on Thursdays.", cwd=repo)
    assert f"updated {agents}" in said.splitlines()
    assert "Releases are cut on Thursdays." in agents.read_text()
    assert agents.read_text().startswith("# Team rules\n\nRun the tests.\n")
    # Claude reads the project tier through its linked memory directory's index.
    (index,) = (home / ".claude" / "projects").glob("*/memory/MEMORY.md")
    assert "releases-are-cut-on-thursdays" in index.read_text()
    assert not global_md.exists()  # the global tier did not change

    changed = json.loads(
        ok(
            "update",
            "releases-are-cut-on-thursdays",
            "Releases are cut on Fridays.",
            "--json",
            cwd=repo,
        )
    )
    assert changed["action"] == "updated"
    assert changed["refresh"] == {"ok": True, "updated": [str(agents)], "problems": []}
    assert "Fridays" in agents.read_text() and "Thursdays" not in agents.read_text()

    gone = ok("forget", "releases-are-cut-on-thursdays", cwd=repo)
    assert f"updated {agents}" in gone.splitlines()
    assert "Fridays" not in agents.read_text()


def test_a_global_write_reaches_the_global_files(repo: Path, home: Path) -> None:
    ok("project", cwd=repo)
    saved = json.loads(
        ok("remember", "Prefer small commits.", "--scope", "global", "--json", cwd=repo)
    )
    updated = saved["refresh"]["updated"]
    assert str(home / ".claude" / "CLAUDE.md") in updated
    assert str(repo / "AGENTS.md") not in updated
    assert "Prefer small commits." in (home / ".claude" / "CLAUDE.md").read_text()


def test_a_project_never_projected_gets_no_projection(repo: Path, home: Path) -> None:
    before = (repo / "AGENTS.md").read_bytes()
    saved = json.loads(ok("remember", "Nothing is projected here yet.", "--json", cwd=repo))
    assert saved["refresh"] == {"ok": True, "updated": [], "problems": []}
    assert (repo / "AGENTS.md").read_bytes() == before
    assert not (repo / "CLAUDE.md").exists() and not (home / ".claude" / "projects").exists()


def test_a_block_copied_in_without_coffer_project_is_left_alone(repo: Path) -> None:
    # A teammate committed a block: this clone never ran `coffer project`.
    ok("project", cwd=repo)
    committed = (repo / "AGENTS.md").read_bytes()
    ok("unproject", cwd=repo)
    (repo / "AGENTS.md").write_bytes(committed)
    ok("remember", "Personal fact.", cwd=repo)
    assert (repo / "AGENTS.md").read_bytes() == committed


def test_a_hand_edited_block_is_reported_not_overwritten(repo: Path) -> None:
    ok("remember", "The first fact.", cwd=repo)
    ok("project", cwd=repo)
    agents = repo / "AGENTS.md"
    edited = agents.read_text().replace("The first fact.", "My own note.")
    assert edited != agents.read_text()
    agents.write_text(edited)
    out = coffer("remember", "A fact after the edit.", cwd=repo)
    assert out.returncode == 0, out.stderr  # the entry is saved either way
    assert f"coffer: not refreshed: drifted: {agents}" in out.stderr
    assert agents.read_text() == edited
    assert "updated" not in out.stdout.replace("created", "")
