"""`coffer setup` for Amazon Q Developer, Junie, OpenHands and Augment (issue 12 §6,
docs/adr/0033, amended): each agent's MCP server written into its own JSON config through the
real CLI in a fake home, a user's other servers and every byte outside coffer's entry kept,
shown by `coffer adapter list`, undone byte for byte; a file that does not parse is refused
with nothing written; and the agents whose MCP servers live in a UI or in the cloud get no
setup, with the reason in their facts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import coffer, make_repo
from tests.setup.test_spec_agents import snapshot

# A user's config with a server of their own and a member coffer has no business with.
USER_JSON = """\
{
  "theme": "dark",
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_TOKEN": "from-my-keychain"}
    }
  },
  "zz_last": [1, 2, 3]
}
"""

# agent, its MCP config relative to the fake home
AGENTS: list[tuple[str, str]] = [
    ("amazonq", ".aws/amazonq/mcp.json"),
    ("junie", ".junie/mcp/mcp.json"),
    ("openhands", ".openhands/mcp.json"),
    ("augment", ".augment/settings.json"),
]

# adapter modules whose agents keep MCP servers in a UI, in the cloud, or in a file not checked
NOT_WIRED = ["antigravity", "trae", "warp", "jetbrains_ai", "jules", "firebase_studio"]


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return fake_home


def _servers(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]


@pytest.mark.parametrize(("agent", "rel"), AGENTS, ids=[a[0] for a in AGENTS])
def test_setup_writes_the_entry_keeps_the_rest_and_undo_restores_every_byte(
    home: Path, tmp_path: Path, agent: str, rel: str
) -> None:
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(USER_JSON, encoding="utf-8")
    before = snapshot(home)

    done = coffer("setup", "--yes", "--agent", agent)
    assert done.returncode == 0, done.stdout + done.stderr
    servers = _servers(path)
    ours = servers["coffer"]
    assert Path(ours["command"]).is_absolute() and ours["args"][-1] == "mcp"
    assert ours["env"]["ECC_MEMORY_HARNESS"] == agent
    # the user's server and members are untouched, and every original byte is still there
    assert servers["github"]["env"] == {"GITHUB_TOKEN": "from-my-keychain"}
    after = path.read_text(encoding="utf-8")
    it = iter(after)
    assert all(ch in it for ch in USER_JSON)
    assert after.startswith('{\n  "theme": "dark",\n  "mcpServers": {\n    "github": {')
    assert after.endswith('  "zz_last": [1, 2, 3]\n}\n')

    again = coffer("setup", "--yes", "--agent", agent)
    assert again.returncode == 0 and f"already wired: {agent}" in again.stdout, again.stdout

    repo = make_repo(tmp_path / "repo")
    listed = json.loads(coffer("adapter", "list", "--json", "--all", cwd=repo).stdout)
    wired = next(a for a in listed["adapters"] if a["name"] == agent)["setup"]
    assert wired["mcp"] == "wired"

    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert snapshot(home) == before


@pytest.mark.parametrize(("agent", "rel"), AGENTS, ids=[a[0] for a in AGENTS])
def test_a_config_that_does_not_parse_is_refused_and_nothing_is_written(
    home: Path, agent: str, rel: str
) -> None:
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = '{\n  "mcpServers": {\n    "github": {"command": "npx",}\n'
    path.write_text(broken, encoding="utf-8")
    before = snapshot(home)
    done = coffer("setup", "--yes", "--agent", agent)
    assert done.returncode == 1, done.stdout + done.stderr
    assert str(path) in done.stdout + done.stderr
    assert snapshot(home) == before


@pytest.mark.parametrize(("agent", "rel"), AGENTS, ids=[a[0] for a in AGENTS])
def test_a_missing_config_is_created_and_removed_again(home: Path, agent: str, rel: str) -> None:
    before = snapshot(home)
    done = coffer("setup", "--yes", "--agent", agent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _servers(home / rel)["coffer"]["args"][-1] == "mcp"
    assert coffer("setup", "--undo").returncode == 0
    assert snapshot(home) == before


def test_amazon_q_gets_no_hook_and_is_told_why(home: Path) -> None:
    done = coffer("setup", "--yes", "--agent", "amazonq")
    assert done.returncode == 0, done.stderr
    assert "no session-start hook: Amazon Q runs agentSpawn hooks only" in done.stdout
    assert not (home / ".aws" / "amazonq" / "cli-agents").exists()
    assert "hooks" not in json.loads((home / ".aws/amazonq/mcp.json").read_text())


@pytest.mark.parametrize("module", NOT_WIRED)
def test_agents_without_a_file_to_wire_have_no_setup_and_say_why(module: str) -> None:
    import importlib

    from coffer.adapter import registry

    adapter = importlib.import_module(f"coffer_adapters.{module}")
    assert registry.features(adapter).wiring is None
    facts = adapter.FACTS
    said = " ".join((facts.mcp.note if facts.mcp else "", *facts.notes, adapter.__doc__ or ""))
    assert "coffer setup" in said or "not wired" in said or "coffer writes none" in said
