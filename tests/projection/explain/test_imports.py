"""`coffer explain` follows ``@`` imports as Claude Code does, counts the bytes of coffer's
memory each agent loads, and the team block is not written twice into what Claude reads
(issue 23 §5, docs/adr/0046). Through the real CLI and real git."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coffer.projection import managed_block as block
from coffer.projection.blocks.imports import tokens
from tests.helpers import coffer, store
from tests.projection.test_git import init_repo, ok

TEAM_TEXT = "Releases are cut from the release branch with make ship."


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return fake_home


def _agent(cwd: Path, name: str) -> dict[str, Any]:
    done = coffer("explain", "--agent", name, "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)["agents"][0]
    return data


def _file(view: dict[str, Any], path: Path) -> dict[str, Any]:
    return next(f for f in view["files"] if f["path"] == str(path))


def _layout(tmp_path: Path, claude_md: bytes) -> Path:
    """Ten project entries, three promoted to the team tier, five global; a CLAUDE.md."""
    r = init_repo(tmp_path / "repo", {"CLAUDE.md": claude_md})
    # The entries go in through the store's API in this process (16 `coffer remember` runs
    # cost seconds); the team and the projection run through the CLI as a user runs them.
    s = store()
    project = s.project_tier(r, create=True)
    assert project is not None
    for i in range(10):
        text = f"Project fact {i}: the service on port 70{i} deploys with the blue pipeline."
        s.remember(project, text, name=f"p{i}")
    for i in range(5):
        s.remember(
            s.global_tier(create=True),
            f"Global habit {i}: prefer small commits and say why.",
            name=f"g{i}",
        )
    s.remember(project, TEAM_TEXT, name="release")
    ok(coffer("team", "init", cwd=r))
    for name in ("release", "p1", "p2"):
        ok(coffer("team", "add", name, cwd=r))
    ok(coffer("project", cwd=r))
    return r


def test_an_agents_md_imported_by_claude_md_is_loaded_not_hidden(
    tmp_path: Path, home: Path
) -> None:
    r = _layout(tmp_path, b"# Claude\n\n@AGENTS.md\n")
    view = _agent(r, "claude")
    agents = _file(view, r / "AGENTS.md")
    claude = _file(view, r / "CLAUDE.md")
    assert agents["state"] == "loaded" and agents["imported_by"] == str(r / "CLAUDE.md")
    assert agents["order"] == claude["order"] + 1  # right after the file importing it
    assert not any("hides" in h for h in view["hints"]), view["hints"]
    # a session in a subdirectory: the import is outside the start directory, unapproved
    (r / "sub").mkdir()
    sub = _agent(r / "sub", "claude")
    assert _file(sub, r / "AGENTS.md")["state"] == "off"
    assert any("imports" in h and "approve" in h for h in sub["hints"]), sub["hints"]
    approved = {"projects": {str(r): {"hasClaudeMdExternalIncludesApproved": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(approved))
    assert _file(_agent(r / "sub", "claude"), r / "AGENTS.md")["state"] == "loaded"


def test_the_team_block_reaches_claude_once_and_the_bytes_are_counted(
    tmp_path: Path, home: Path
) -> None:
    r = _layout(tmp_path, b"# Claude\n\n@AGENTS.md\n")
    # CLAUDE.md imports AGENTS.md, which carries the team block for Codex: no second copy
    assert block.find((r / "CLAUDE.md").read_bytes(), block.TEAM) is None
    assert (r / "CLAUDE.md").read_bytes() == b"# Claude\n\n@AGENTS.md\n"
    claude = _agent(r, "claude")["coffer_memory"]
    assert [Path(c["path"]).name for c in claude["copies"]["team"]] == ["AGENTS.md"]
    assert claude["repeated_bytes"].keys() == {"project"}  # the AGENTS.md block and MEMORY.md
    assert claude["tokens"] == (claude["bytes"] + 3) // 4
    codex = _agent(r, "codex")["coffer_memory"]
    assert codex["repeated_bytes"] == {}
    assert codex["bytes"] == sum(f["coffer_bytes"] for f in _agent(r, "codex")["files"])
    # the same global block in both agents' files; Claude drops its comment lines (markers)
    own = (home / ".codex" / "AGENTS.md").read_text()
    markers = sum(len(line) for line in own.splitlines(keepends=True) if line.startswith("<!--"))
    [claude_global], [codex_global] = claude["copies"]["global"], codex["copies"]["global"]
    assert codex_global["bytes"] - claude_global["bytes"] == markers > 0
    text = coffer("explain", "--agent", "claude", cwd=r).stdout
    assert f"coffer's memory in its context: {claude['bytes']:,} bytes" in text
    assert TEAM_TEXT in (r / "AGENTS.md").read_text()


def test_the_team_block_leaves_claude_md_when_it_starts_importing_agents_md(
    tmp_path: Path, home: Path
) -> None:
    r = _layout(tmp_path, b"# Claude\n")
    assert TEAM_TEXT in (r / "CLAUDE.md").read_text()  # Claude reads no AGENTS.md here
    assert _agent(r, "claude")["coffer_memory"]["repeated_bytes"].keys() == set()
    (r / "CLAUDE.md").write_bytes((r / "CLAUDE.md").read_bytes() + b"\n@AGENTS.md\n")
    done = coffer("project", cwd=r)
    ok(done)
    assert "without the team block" in done.stdout
    assert block.find((r / "CLAUDE.md").read_bytes(), block.TEAM) is None
    ok(coffer("unproject", cwd=r))
    assert (r / "CLAUDE.md").read_bytes() == b"# Claude\n\n@AGENTS.md\n"


def test_imports_in_code_and_comments_are_not_followed(tmp_path: Path, home: Path) -> None:
    text = (
        "See @./a.md and @~/b.md but not me@example.com.\n"
        "`@c.md` in a span, <!-- @d.md --> in a comment\n"
        "```\n@e.md\n```\n"
        "@f.md#part and @my\\ notes.md and @/abs/g.md\n"
    )
    assert tokens(text) == ["./a.md", "~/b.md", "f.md", "my notes.md", "/abs/g.md"]


def test_imports_nest_four_hops_deep_as_claude_follows_them(tmp_path: Path, home: Path) -> None:
    r = init_repo(tmp_path / "repo", {"CLAUDE.md": b"@one.md\n"})
    chain = ["one", "two", "three", "four", "five"]
    for here, there in zip(chain, [*chain[1:], None], strict=True):
        (r / f"{here}.md").write_text(f"# {here}\n" + (f"@{there}.md\n" if there else ""))
    states = {Path(f["path"]).stem: f["state"] for f in _agent(r, "claude")["files"]}
    assert [name for name in chain if name in states] == ["one", "two", "three", "four"]
