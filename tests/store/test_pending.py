"""Issue 25.4: per tier, what agents write can wait for a person (docs/adr/0054), end to
end through the CLI, Claude's real linked folder and the MCP server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.store.entry import parse
from tests.helpers import coffer, make_repo, mcp_tools

AGENT_FILE = """---
name: db-port
description: the database listens on 5433
metadata:
  type: project
---

The database listens on port 5433.
"""


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    _ok("project", cwd=repo)
    return repo


def _ok(*args: str, cwd: Path, stdin: str | None = None) -> str:
    done = coffer(*args, cwd=cwd, input=stdin)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _agents_md(repo: Path) -> str:
    """What Codex loads here ("" before the block's first entry)."""
    path = repo / "AGENTS.md"
    return path.read_text() if path.exists() else ""


def _linked(home: Path) -> Path:
    (link,) = [p for p in (home / ".claude" / "projects").glob("*/memory") if p.is_symlink()]
    return link


def _claude_writes(home: Path, repo: Path) -> Path:
    path = _linked(home) / "db-port.md"
    path.write_text(AGENT_FILE)
    _ok("project", "--hook", cwd=repo, stdin="{}")  # the next session start finds it
    return path


def test_off_by_default_an_agents_entry_reaches_every_agent(repo: Path, fake_home: Path) -> None:
    path = _claude_writes(fake_home, repo)
    assert "pending" not in parse(path.read_text(), path.name).metadata
    assert "port 5433" in _agents_md(repo)
    assert json.loads(_ok("review", "--json", cwd=repo))["items"] == []


def test_a_held_entry_waits_in_claudes_index_and_out_of_agents_md(
    repo: Path, fake_home: Path
) -> None:
    said = _ok("review", "--hold-agent-writes", "--scope", "project", cwd=repo)
    assert "held as pending" in said
    path = _claude_writes(fake_home, repo)
    meta = parse(path.read_text(), path.name).metadata
    assert meta["pending"] is True and meta["origin"] == "agent:claude"
    index = (_linked(fake_home) / "MEMORY.md").read_text()
    assert "[db-port]" in index and "[pending]" in index  # the writer still sees it
    assert "5433" not in _agents_md(repo)  # Codex does not, yet
    (item,) = json.loads(_ok("review", "--json", cwd=repo))["items"]
    assert item["kind"] == "pending" and "agent:claude" in item["why"]

    _ok("team", "init", cwd=repo)
    refused = coffer("team", "add", "db-port", cwd=repo)
    assert refused.returncode != 0 and "accept it first" in refused.stderr

    _ok("review", cwd=repo, stdin="a\n")  # accept
    assert "pending" not in parse(path.read_text(), path.name).metadata
    assert "port 5433" in _agents_md(repo)
    assert "[pending]" not in (_linked(fake_home) / "MEMORY.md").read_text()
    assert json.loads(_ok("review", "--json", cwd=repo))["items"] == []


def test_a_person_s_own_entry_is_never_held(repo: Path) -> None:
    _ok("review", "--hold-agent-writes", "--scope", "project", cwd=repo)
    _ok("remember", "Releases are cut on Thursdays.", "--name", "releases", cwd=repo)
    assert "Thursdays" in _agents_md(repo)
    _ok("review", "--no-hold-agent-writes", "--scope", "project", cwd=repo)


def test_holding_needs_one_tier(repo: Path) -> None:
    done = coffer("review", "--hold-agent-writes", cwd=repo)
    assert done.returncode == 2 and "--scope" in done.stderr


def test_an_mcp_clients_held_entry_is_recalled_by_that_client_only(repo: Path) -> None:
    _ok("review", "--hold-agent-writes", "--scope", "project", cwd=repo)
    remember = {"name": "remember", "arguments": {"text": "Lint with ruff.", "name": "lint"}}
    recall = {"name": "recall", "arguments": {"query": "ruff"}}
    listing = {"name": "list_memory", "arguments": {}}
    _, mine = mcp_tools(repo, "codex", remember, recall)
    assert [r["name"] for r in mine["results"]] == ["lint"]
    theirs, listed = mcp_tools(repo, "gemini-cli", recall, listing)
    assert theirs["results"] == []
    assert all(e["name"] != "lint" for t in listed["tiers"] for e in t["entries"])
    assert "ruff" not in _agents_md(repo)


def test_forgetting_a_held_entry_removes_it_and_the_queue_lists_it_over_mcp(
    repo: Path, fake_home: Path
) -> None:
    _ok("review", "--hold-agent-writes", "--scope", "project", cwd=repo)
    path = _claude_writes(fake_home, repo)
    (queued,) = mcp_tools(repo, "codex", {"name": "review_queue", "arguments": {}})
    (item,) = queued["items"]
    assert item["kind"] == "pending" and [e["name"] for e in item["entries"]] == ["db-port"]

    _ok("review", cwd=repo, stdin="f\n")  # forget
    assert not path.exists()
    assert "[db-port]" not in (_linked(fake_home) / "MEMORY.md").read_text()
    assert "5433" not in _agents_md(repo)
    assert json.loads(_ok("review", "--json", cwd=repo))["items"] == []


def test_an_mcp_clients_held_entry_waits_in_the_queue_until_accepted(repo: Path) -> None:
    _ok("review", "--hold-agent-writes", "--scope", "project", cwd=repo)
    remember = {"name": "remember", "arguments": {"text": "Lint with ruff.", "name": "lint"}}
    mcp_tools(repo, "codex", remember)
    (item,) = json.loads(_ok("review", "--json", cwd=repo))["items"]
    assert item["kind"] == "pending" and "mcp:codex" in item["why"]
    _ok("review", cwd=repo, stdin="a\n")
    assert "ruff" in _agents_md(repo)
    recall = {"name": "recall", "arguments": {"query": "ruff"}}
    (theirs,) = mcp_tools(repo, "gemini-cli", recall)
    assert [r["name"] for r in theirs["results"]] == ["lint"]  # accepted: every client sees it
