"""`coffer setup` for the spec adapters (issue 12 §6, docs/adr/0033): each agent's MCP server
(and Qwen's session-start hook) written into its own config — JSON, JSONC with comments, TOML
arrays of tables — through the real CLI in a fake home, shown by `coffer adapter list`, and
undone byte for byte."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coffer.setup.jsonc_text import strip_jsonc
from tests.helpers import coffer, make_repo

JSONC_OPENCODE = """\
{
  // my OpenCode settings
  "$schema": "https://opencode.ai/config.json",
  "model": "lab/devstral", // the default model
  "mcp": {
    /* a remote server */
    "docs": {"type": "remote", "url": "https://docs.example/mcp"},
  },
}
"""

JSONC_ZED = """\
// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark",
  "ui_font_size": 16,
  "buffer_font_size": 15 // bigger
}
"""

VIBE_TOML = """\
# Mistral Vibe, by hand
active_model = "devstral-2"  # the one I like

[[mcp_servers]]
name = "fetch"
transport = "stdio"
command = "uvx"
args = ["mcp-server-fetch"]

[tools.bash]
permission = "ask"
"""

SERVERS_JSON = """\
{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"]
    }
  }
}
"""

QWEN_SETTINGS = """\
{
  "model": {"name": "qwen3-coder-plus"},
  "hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "~/bin/hello.sh"}]}]
  },
  "mcpServers": {}
}
"""


HERMES_YAML = """\
# Hermes Agent configuration
model:
  default: "anthropic/claude-sonnet"   # the model
  base_url: http://localhost:8080/v1

mcp_servers:
  # the time server
  time:
    command: "uvx"
    args: ["mcp-server-time"]

memory:
  memory_enabled: true
"""

GOOSE_YAML = """\
GOOSE_PROVIDER: openai
extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin
GOOSE_MODEL: gpt-4.1  # by hand
"""


def _xdg(home: Path) -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"])


def _json(path: Path) -> Any:
    return json.loads(strip_jsonc(path.read_text(encoding="utf-8")))


def _toml(path: Path) -> Any:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _servers(*keys: str) -> Callable[[Path], Any]:
    def get(path: Path) -> Any:
        node = _json(path)
        for k in keys:
            node = node[k]
        return node["coffer"]

    return get


def _yaml(key: str) -> Callable[[Path], Any]:
    def get(path: Path) -> Any:
        import yaml

        return yaml.safe_load(path.read_text(encoding="utf-8"))[key]["coffer"]

    return get


def _vibe(path: Path) -> Any:
    return next(s for s in _toml(path)["mcp_servers"] if s["name"] == "coffer")


# agent, where its MCP config is (from the fake home), what is there, coffer's entry in it
AGENTS: list[tuple[str, Callable[[Path], Path], str, Callable[[Path], Any]]] = [
    ("qwen", lambda h: h / ".qwen/settings.json", QWEN_SETTINGS, _servers("mcpServers")),
    ("kimi", lambda h: h / ".kimi/mcp.json", SERVERS_JSON, _servers("mcpServers")),
    (
        "cline",
        lambda h: h / ".cline/data/settings/cline_mcp_settings.json",
        SERVERS_JSON,
        _servers("mcpServers"),
    ),
    ("cursor", lambda h: h / ".cursor/mcp.json", SERVERS_JSON, _servers("mcpServers")),
    ("opencode", lambda h: _xdg(h) / "opencode/opencode.json", JSONC_OPENCODE, _servers("mcp")),
    ("kilo", lambda h: _xdg(h) / "kilo/kilo.jsonc", JSONC_OPENCODE, _servers("mcp")),
    ("copilot", lambda h: h / ".copilot/mcp-config.json", SERVERS_JSON, _servers("mcpServers")),
    ("vibe", lambda h: h / ".vibe/config.toml", VIBE_TOML, _vibe),
    ("zed", lambda h: _xdg(h) / "zed/settings.json", JSONC_ZED, _servers("context_servers")),
    ("crush", lambda h: _xdg(h) / "crush/crush.json", "{}\n", _servers("mcp")),
    (
        "windsurf",
        lambda h: h / ".codeium/windsurf/mcp_config.json",
        SERVERS_JSON,
        _servers("mcpServers"),
    ),
    (
        "amp",
        lambda h: h / ".config/amp/settings.json",
        '{"amp.tab.enabled": true}',
        _servers("amp.mcpServers"),
    ),
    ("droid", lambda h: h / ".factory/mcp.json", SERVERS_JSON, _servers("mcpServers")),
    ("kiro", lambda h: h / ".kiro/settings/mcp.json", SERVERS_JSON, _servers("mcpServers")),
    ("hermes", lambda h: h / ".hermes/config.yaml", HERMES_YAML, _yaml("mcp_servers")),
    ("goose", lambda h: _xdg(h) / "goose/config.yaml", GOOSE_YAML, _yaml("extensions")),
]


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return fake_home


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def _spliced(before: str, after: str) -> bool:
    """Every character of the original is still there, in order (comments too): coffer's
    edits only add."""
    it = iter(after)
    return all(ch in it for ch in before)


@pytest.mark.parametrize(("agent", "where", "text", "entry"), AGENTS, ids=[a[0] for a in AGENTS])
def test_setup_wires_the_agent_and_undo_restores_every_byte(
    home: Path,
    tmp_path: Path,
    agent: str,
    where: Callable[[Path], Path],
    text: str,
    entry: Callable[[Path], Any],
) -> None:
    path = where(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    before = snapshot(home), snapshot(_xdg(home))

    done = coffer("setup", "--yes", "--agent", agent)
    assert done.returncode == 0, done.stdout + done.stderr
    ours = entry(path)
    command = ours.get("command", ours.get("cmd"))
    argv = command if isinstance(command, list) else [command, *ours["args"]]
    assert Path(argv[0]).is_absolute() and argv[-1] == "mcp"
    env = ours.get("env", ours.get("environment", ours.get("envs")))
    assert env["ECC_MEMORY_HARNESS"] == agent
    assert _spliced(text, path.read_text(encoding="utf-8"))

    again = coffer("setup", "--yes", "--agent", agent)
    assert again.returncode == 0 and f"already wired: {agent}" in again.stdout, again.stdout

    repo = make_repo(tmp_path / "repo")
    listed = json.loads(coffer("adapter", "list", "--json", "--all", cwd=repo).stdout)
    wired = next(a for a in listed["adapters"] if a["name"] == agent)["setup"]
    assert wired["mcp"] == "wired"

    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert (snapshot(home), snapshot(_xdg(home))) == before


def test_qwen_gets_a_session_start_hook_whose_output_is_context(home: Path) -> None:
    settings = home / ".qwen" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(QWEN_SETTINGS)
    assert coffer("setup", "--yes", "--agent", "qwen").returncode == 0
    groups = _json(settings)["hooks"]["SessionStart"]
    assert groups[0]["hooks"][0]["command"] == "~/bin/hello.sh"
    ours = groups[1]["hooks"][0]
    assert ours["type"] == "command"
    assert ours["command"].endswith("project --hook --for qwen")
    assert coffer("setup", "--undo").returncode == 0
    assert settings.read_text() == QWEN_SETTINGS


def test_agents_whose_hook_output_is_discarded_get_no_hook_and_are_told(home: Path) -> None:
    (home / ".kimi").mkdir()
    done = coffer("setup", "--yes", "--agent", "kimi", "--agent", "cline")
    assert done.returncode == 0, done.stderr
    assert "no session-start hook: Kimi CLI does not give" in done.stdout
    assert "TaskStart hook does not reach the model" in done.stdout
    assert "hooks" not in _json(home / ".kimi" / "mcp.json")


def test_jsonc_keeps_comments_and_undo_after_a_hand_edit_removes_only_coffer(home: Path) -> None:
    path = _xdg(home) / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    path.write_text(JSONC_OPENCODE)
    assert coffer("setup", "--yes", "--agent", "opencode").returncode == 0
    text = path.read_text()
    assert "// my OpenCode settings" in text and "/* a remote server */" in text
    ours = _json(path)["mcp"]["coffer"]
    assert ours["type"] == "local" and ours["enabled"] is True
    assert ours["command"][-1] == "mcp"
    # The user edits elsewhere in the file; undo then takes out coffer's entry only.
    edited = text.replace('"model": "lab/devstral"', '"model": "lab/other"')
    path.write_text(edited)
    assert coffer("setup", "--undo").returncode == 0
    assert path.read_text() == JSONC_OPENCODE.replace("lab/devstral", "lab/other")


def test_opencode_jsonc_file_is_used_when_it_is_the_one_there(home: Path) -> None:
    path = _xdg(home) / "opencode" / "opencode.jsonc"
    path.parent.mkdir(parents=True)
    path.write_text(JSONC_OPENCODE)
    assert coffer("setup", "--yes", "--agent", "opencode").returncode == 0
    assert not (path.parent / "opencode.json").exists()
    assert _json(path)["mcp"]["coffer"]["type"] == "local"


def test_dry_run_shows_the_jsonc_diff_and_writes_nothing(home: Path) -> None:
    path = _xdg(home) / "zed" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(JSONC_ZED)
    before = snapshot(home)
    shown = coffer("setup", "--dry-run", "--agent", "zed")
    assert shown.returncode == 0, shown.stderr
    assert f"would update {path}" in shown.stdout
    assert '+  "context_servers": {' in shown.stdout
    assert path.read_text() == JSONC_ZED and snapshot(home) == before


@pytest.mark.parametrize(
    ("agent", "rel", "broken"),
    [
        ("opencode", "opencode/opencode.json", '{\n  /* never closed\n  "a": 1\n}\n'),
        ("zed", "zed/settings.json", '{\n  "a": 1 // fine\n  "b": 2\n}\n'),
    ],
)
def test_a_jsonc_file_that_does_not_parse_is_refused(
    home: Path, agent: str, rel: str, broken: str
) -> None:
    path = _xdg(home) / rel
    path.parent.mkdir(parents=True)
    path.write_text(broken)
    done = coffer("setup", "--yes", "--agent", agent)
    assert done.returncode == 1
    assert str(path) in done.stdout + done.stderr
    assert "fix it, then run coffer setup again" in done.stdout + done.stderr
    assert path.read_text() == broken


def test_a_toml_file_that_does_not_parse_is_refused(home: Path) -> None:
    path = home / ".vibe" / "config.toml"
    path.parent.mkdir()
    path.write_text("[[mcp_servers]\nname = 'x'\n")
    done = coffer("setup", "--yes", "--agent", "vibe")
    assert done.returncode == 1
    assert "is not valid TOML" in done.stdout + done.stderr
    assert path.read_text() == "[[mcp_servers]\nname = 'x'\n"


def test_a_missing_config_is_created_and_removed_again(home: Path) -> None:
    (home / ".cursor").mkdir()
    before = snapshot(home)
    assert coffer("setup", "--yes", "--agent", "cursor").returncode == 0
    assert _json(home / ".cursor" / "mcp.json")["mcpServers"]["coffer"]["args"][-1] == "mcp"
    assert coffer("setup", "--undo").returncode == 0
    assert snapshot(home) == before


def test_cline_follows_its_settings_path_variable(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "elsewhere" / "mcp.json"
    moved.parent.mkdir()
    moved.write_text(SERVERS_JSON)
    monkeypatch.setenv("CLINE_MCP_SETTINGS_PATH", str(moved))
    assert coffer("setup", "--yes", "--agent", "cline").returncode == 0
    assert "coffer" in _json(moved)["mcpServers"]
    assert not (home / ".cline").exists()


def test_yaml_keeps_comments_and_a_flow_mapping_is_refused(home: Path) -> None:
    path = home / ".hermes" / "config.yaml"
    path.parent.mkdir()
    path.write_text(HERMES_YAML)
    done = coffer("setup", "--yes", "--agent", "hermes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Hermes does not give on_session_start output to the model" in done.stdout
    text = path.read_text()
    assert "# the time server" in text and '"anthropic/claude-sonnet"   # the model' in text
    assert text.index("  coffer:") < text.index("memory:")  # inside mcp_servers' block
    edited = text.replace("memory_enabled: true", "memory_enabled: false")
    path.write_text(edited)  # the user (or coffer project) edits elsewhere
    assert coffer("setup", "--undo").returncode == 0
    assert path.read_text() == HERMES_YAML.replace("memory_enabled: true", "memory_enabled: false")

    path.write_text("mcp_servers: {}\n")
    refused = coffer("setup", "--yes", "--agent", "hermes")
    assert refused.returncode == 1
    assert "mcp_servers is not a block mapping" in refused.stdout + refused.stderr
    assert path.read_text() == "mcp_servers: {}\n"


def test_goose_extension_has_goose_s_own_field_names(home: Path) -> None:
    path = _xdg(home) / "goose" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(GOOSE_YAML)
    assert coffer("setup", "--yes", "--agent", "goose").returncode == 0
    ours = _yaml("extensions")(path)
    assert ours["name"] == "coffer" and ours["type"] == "stdio" and ours["enabled"] is True
    assert ours["cmd"].endswith("coffer") and ours["args"] == ["mcp"]
    assert ours["envs"]["ECC_MEMORY_HARNESS"] == "goose"
