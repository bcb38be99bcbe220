"""The team tier in recall (docs/adr/0036): `coffer recall` and the MCP recall tool search
the repository's .coffer/memory/ beside the personal tiers, with the cache in the store and
entries the secret gate flags never shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from tests.helpers import coffer, make_repo
from tests.mcp.test_server import data, drive
from tests.projection.test_team import ok

FACT = "Feature flags are removed two releases after launch, see flags.md"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = make_repo(tmp_path / "repo")
    ok(coffer("team", "init", cwd=r))
    (r / ".coffer" / "memory" / "flags.md").write_text(f"{FACT}\n")
    (r / ".coffer" / "memory" / "leak.md").write_text("flags token: ghp_" + "a1" * 18 + "\n")
    return r


def test_cli_recall_finds_team_entries_and_not_flagged_ones(repo: Path) -> None:
    ok(coffer("remember", "Flags live in config/flags.yml.", "--name", "flag-file", cwd=repo))
    out = json.loads(ok(coffer("recall", "flags", "--json", cwd=repo)).stdout)
    assert [h["name"] for h in out["results"]] == ["flag-file"]
    assert [(h["name"], h["tier"]) for h in out["team"]] == [("flags", "team")]
    assert FACT in out["team"][0]["body"]
    assert not list(repo.rglob("*.sqlite"))  # the search cache lives in the store
    text = ok(coffer("recall", "flags", cwd=repo)).stdout
    assert "[team]" in text and "ghp_" not in text
    scoped = json.loads(
        ok(coffer("recall", "flags", "--json", "--scope", "global", cwd=repo)).stdout
    )
    assert scoped["team"] == []


def test_mcp_recall_includes_the_team_tier(repo: Path) -> None:
    async def body(session: ClientSession) -> None:
        found = data(await session.call_tool("recall", {"query": "feature flags"}))
        assert [h["name"] for h in found["team"]] == ["flags"]
        assert FACT in found["team"][0]["body"]
        only_global = data(await session.call_tool("recall", {"query": "flags", "scope": "global"}))
        assert "team" not in only_global

    drive(repo, body)
