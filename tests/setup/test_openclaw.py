"""`coffer setup` for OpenClaw (issue 12 §6, docs/adr/0033, amended): coffer's MCP server
written as ``mcp.servers.coffer`` into ``~/.openclaw/openclaw.json`` through the real CLI in a
fake home, the user's comments, trailing commas, other server and every byte outside coffer's
entry kept, shown by `coffer adapter list`, undone byte for byte; a file in JSON5-only syntax
(which coffer's JSONC editor does not parse) is refused with nothing written; a missing file is
created and removed again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coffer.setup.jsonc_text import strip_jsonc
from tests.helpers import coffer, make_repo
from tests.setup.test_spec_agents import snapshot

# A user's openclaw.json in the JSON subset of JSON5: comments, trailing commas, a provider
# and a server of their own.
USER_JSONC = """\
{
  // my OpenClaw config
  "models": {
    "providers": {
      "lab": {"baseUrl": "http://127.0.0.1:8080/v1", "api": "openai-completions"},
    },
  },
  "mcp": {
    "servers": {
      /* fetch pages for the docs agent */
      "docs": {"command": "uvx", "args": ["mcp-server-fetch"]},
    },
  },
}
"""

# The same file as OpenClaw's own docs write it: unquoted keys and single quotes are JSON5.
USER_JSON5 = """\
{
  // my OpenClaw config
  mcp: {
    servers: {
      docs: { command: 'uvx', args: ['mcp-server-fetch'] },
    },
  },
}
"""


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    return fake_home


def _servers(path: Path) -> Any:
    return json.loads(strip_jsonc(path.read_text(encoding="utf-8")))["mcp"]["servers"]


def _config(home: Path) -> Path:
    path = home / ".openclaw" / "openclaw.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_setup_writes_the_entry_keeps_every_byte_and_undo_restores_them(
    home: Path, tmp_path: Path
) -> None:
    path = _config(home)
    path.write_text(USER_JSONC, encoding="utf-8")
    before = snapshot(home)

    done = coffer("setup", "--yes", "--agent", "openclaw")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "JSON5" in done.stdout
    servers = _servers(path)
    ours = servers["coffer"]
    # the stdio shape of OpenClaw's McpServerSchema: command, args, env
    assert set(ours) == {"command", "args", "env"}
    assert Path(ours["command"]).is_absolute() and ours["args"][-1] == "mcp"
    assert ours["env"]["ECC_MEMORY_HARNESS"] == "openclaw"
    assert servers["docs"] == {"command": "uvx", "args": ["mcp-server-fetch"]}
    after = path.read_text(encoding="utf-8")
    it = iter(after)
    assert all(ch in it for ch in USER_JSONC)  # every original byte, comments too, in order
    assert "// my OpenClaw config" in after and "/* fetch pages for the docs agent */" in after

    again = coffer("setup", "--yes", "--agent", "openclaw")
    assert again.returncode == 0 and "already wired: openclaw" in again.stdout, again.stdout
    assert path.read_text(encoding="utf-8") == after

    repo = make_repo(tmp_path / "repo")
    listed = json.loads(coffer("adapter", "list", "--json", "--all", cwd=repo).stdout)
    wired = next(a for a in listed["adapters"] if a["name"] == "openclaw")["setup"]
    assert wired["mcp"] == "wired"

    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert snapshot(home) == before


def test_a_json5_only_config_is_refused_and_nothing_is_written(home: Path) -> None:
    path = _config(home)
    path.write_text(USER_JSON5, encoding="utf-8")
    before = snapshot(home)
    done = coffer("setup", "--yes", "--agent", "openclaw")
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert str(path) in said and "refused" in said
    assert "double quotes" in said and "JSON5" in said  # why, and what coffer cannot edit
    assert snapshot(home) == before


def test_a_missing_config_is_created_and_removed_again(home: Path) -> None:
    before = snapshot(home)
    done = coffer("setup", "--yes", "--agent", "openclaw")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _servers(home / ".openclaw" / "openclaw.json")["coffer"]["args"][-1] == "mcp"
    assert coffer("setup", "--undo").returncode == 0
    assert snapshot(home) == before


def test_the_file_openclaw_reads_instead_is_the_one_wired(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # only the legacy name exists: OpenClaw reads it, so a new openclaw.json would hide it
    legacy = _config(home).with_name("clawdbot.json")
    legacy.write_text(USER_JSONC, encoding="utf-8")
    assert coffer("setup", "--yes", "--agent", "openclaw").returncode == 0
    assert "coffer" in _servers(legacy)
    assert not (home / ".openclaw" / "openclaw.json").exists()
    assert coffer("setup", "--undo").returncode == 0
    assert legacy.read_text(encoding="utf-8") == USER_JSONC
    # OPENCLAW_CONFIG_PATH names the file instead
    moved = tmp_path / "elsewhere" / "a.json"
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(moved))
    assert coffer("setup", "--yes", "--agent", "openclaw").returncode == 0
    assert "coffer" in _servers(moved) and "coffer" not in _servers(legacy)
