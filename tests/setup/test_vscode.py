"""`coffer setup` for the VS Code family (issue 12 §6, docs/adr/0033, amended): Copilot in VS
Code's user-profile ``mcp.json`` (JSONC, ``servers``) beside the Copilot CLI's file, Roo
Code's ``mcp_settings.json`` in VS Code's globalStorage, and Continue's own
``~/.continue/mcpServers/coffer.json``; through the real CLI in a fake home, a user's comments
and other servers kept byte for byte, undone exactly, a file that does not parse refused with
nothing written, and no VS Code directory ever created where VS Code is not."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from coffer.setup.jsonc_text import strip_jsonc
from tests.helpers import coffer, make_repo
from tests.setup import test_spec_agents
from tests.setup.test_spec_agents import SERVERS_JSON, _spliced, snapshot

# VS Code's user mcp.json as a user keeps it: comments, an input, a server of their own,
# a trailing comma (VS Code's JSONC allows it).
VSCODE_MCP = """\
// my VS Code MCP servers
{
  "inputs": [
    {"type": "promptString", "id": "gh-token", "password": true}
  ],
  "servers": {
    /* GitHub, with the token asked for */
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"], // pinned later
      "env": {"GITHUB_TOKEN": "${input:gh-token}"}
    },
  }
}
"""

ROO_STORAGE = "Code/User/globalStorage/rooveterinaryinc.roo-cline/settings"

home = test_spec_agents.home  # the fixture: the fake home, with an empty PATH


def _xdg() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"])


def _json(path: Path) -> Any:
    return json.loads(strip_jsonc(path.read_text(encoding="utf-8")))


def _both(home: Path) -> tuple[dict[str, bytes | None], dict[str, bytes | None]]:
    return snapshot(home), snapshot(_xdg())


def _is_ours(entry: dict[str, Any], agent: str) -> None:
    assert Path(entry["command"]).is_absolute() and entry["args"][-1] == "mcp"
    assert entry["env"]["ECC_MEMORY_HARNESS"] == agent


def _wire(home: Path, path: Path, text: str, agent: str) -> tuple[Any, str]:
    """Write the user's ``text`` to ``path``, run setup for ``agent``: the tree before, and
    what setup said. Every byte of the user's text is still in the file after."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    before = _both(home)
    done = coffer("setup", "--yes", "--agent", agent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _spliced(text, path.read_text())  # every comment and byte of the user's is kept
    return before, done.stdout


def _listed_mcp(tmp_path: Path, agent: str) -> str:
    repo = make_repo(tmp_path / "repo")
    listed = json.loads(coffer("adapter", "list", "--json", "--all", cwd=repo).stdout)
    return str(next(a for a in listed["adapters"] if a["name"] == agent)["setup"]["mcp"])


def test_copilot_wires_vs_code_s_mcp_json_beside_the_cli_s_and_undo_restores_both(
    home: Path, tmp_path: Path
) -> None:
    cli = home / ".copilot" / "mcp-config.json"
    cli.parent.mkdir()
    cli.write_text(SERVERS_JSON)
    vscode = _xdg() / "Code" / "User" / "mcp.json"
    before, said = _wire(home, vscode, VSCODE_MCP, "copilot")
    assert "read by Copilot in VS Code" in said
    value = _json(vscode)
    ours = value["servers"]["coffer"]
    assert ours["type"] == "stdio"
    _is_ours(ours, "copilot")
    assert value["servers"]["github"]["env"] == {"GITHUB_TOKEN": "${input:gh-token}"}
    assert value["inputs"][0]["id"] == "gh-token"
    assert _json(cli)["mcpServers"]["coffer"]["type"] == "local"  # the CLI's shape, unchanged

    again = coffer("setup", "--yes", "--agent", "copilot")
    assert again.returncode == 0 and "already wired: copilot" in again.stdout, again.stdout
    assert _listed_mcp(tmp_path, "copilot") == "wired"

    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert _both(home) == before


def test_another_systems_vs_code_folder_is_not_used_and_none_is_made_where_it_is_missing(
    home: Path,
) -> None:
    # VS Code on Linux keeps its user data under $XDG_CONFIG_HOME/Code only; a macOS-shaped
    # ~/Library/Application Support/Code is no VS Code's here (each system's own place:
    # tests/adapters/test_system_paths.py)
    (home / ".copilot").mkdir()
    mac = home / "Library" / "Application Support" / "Code" / "User"
    mac.mkdir(parents=True)
    assert coffer("setup", "--yes", "--agent", "copilot").returncode == 0
    assert (home / ".copilot" / "mcp-config.json").is_file()
    assert not (mac / "mcp.json").exists()
    assert not (_xdg() / "Code").exists()
    assert coffer("setup", "--undo").returncode == 0
    assert not (home / ".copilot" / "mcp-config.json").exists()


def test_a_vs_code_mcp_json_that_does_not_parse_is_refused_and_nothing_is_written(
    home: Path,
) -> None:
    (home / ".copilot").mkdir()
    vscode = _xdg() / "Code" / "User" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    broken = '{\n  "servers": {\n    /* never closed\n  }\n}\n'
    vscode.write_text(broken)
    before = _both(home)
    done = coffer("setup", "--yes", "--agent", "copilot")
    assert done.returncode == 1
    assert str(vscode) in done.stdout + done.stderr
    assert "fix it, then run coffer setup again" in done.stdout + done.stderr
    assert _both(home) == before  # the CLI's file is not written either: all or nothing


def test_roo_gets_coffer_in_its_global_mcp_settings_and_undo_restores_every_byte(
    home: Path, tmp_path: Path
) -> None:
    settings = _xdg() / ROO_STORAGE / "mcp_settings.json"
    before, said = _wire(home, settings, SERVERS_JSON, "roo")
    assert "no session-start hook: Roo Code has no hooks" in said
    servers = _json(settings)["mcpServers"]
    _is_ours(servers["coffer"], "roo")
    assert servers["github"] == json.loads(SERVERS_JSON)["mcpServers"]["github"]
    assert _listed_mcp(tmp_path, "roo") == "wired"
    assert coffer("setup", "--undo").returncode == 0
    assert _both(home) == before


def test_roo_before_its_first_run_is_not_wired_and_a_broken_file_is_refused(home: Path) -> None:
    before = _both(home)
    done = coffer("setup", "--yes", "--agent", "roo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "roo: nothing to wire" in done.stdout + done.stderr
    assert _both(home) == before

    settings = _xdg() / ROO_STORAGE / "mcp_settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"mcpServers": {"a": {"command": "x"},}}\n')  # Roo reads plain JSON
    refused = coffer("setup", "--yes", "--agent", "roo")
    assert refused.returncode == 1
    assert str(settings) in refused.stdout + refused.stderr
    assert settings.read_text() == '{"mcpServers": {"a": {"command": "x"},}}\n'


def test_continue_gets_a_server_file_of_coffer_s_own_and_undo_removes_it(
    home: Path, tmp_path: Path
) -> None:
    config = home / ".continue"
    (config / "mcpServers").mkdir(parents=True)
    theirs = config / "mcpServers" / "playwright.yaml"
    theirs.write_text("name: Playwright\nversion: 0.0.1\nschema: v1\nmcpServers: []\n")
    (config / "config.yaml").write_text("name: mine  # by hand\nversion: 1.0.0\n")
    before = _both(home)
    done = coffer("setup", "--yes", "--agent", "continue")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the cn CLI reads MCP servers only from config.yaml" in done.stdout
    ours = _json(config / "mcpServers" / "coffer.json")["mcpServers"]["coffer"]
    assert ours["type"] == "stdio"
    _is_ours(ours, "continue")
    assert _listed_mcp(tmp_path, "continue") == "wired"
    assert coffer("setup", "--undo").returncode == 0
    assert _both(home) == before  # the user's files untouched, coffer's file gone


def test_continue_without_a_server_directory_has_it_made_and_removed_again(home: Path) -> None:
    (home / ".continue").mkdir()
    before = _both(home)
    assert coffer("setup", "--yes", "--agent", "continue").returncode == 0
    assert (home / ".continue" / "mcpServers" / "coffer.json").is_file()
    assert coffer("setup", "--undo").returncode == 0
    assert _both(home) == before
