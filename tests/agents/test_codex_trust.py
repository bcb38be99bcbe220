"""Issue 23 §7: the trust state coffer reports for its Codex hook is Codex's own.

The real Codex (0.171.0) lists its hooks through ``codex app-server`` (JSON-RPC
``hooks/list``) with each hook's ``currentHash`` and ``trustStatus``. After `coffer setup`,
coffer must say "untrusted" with the very hash Codex computes; after the two config.toml
lines coffer prints are added (what /hooks writes), Codex and coffer both say "trusted".
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import agent_binary, agent_env, git_repo
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]


def _codex_hooks(codex: str, cwd: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "coffer-test", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    server = subprocess.Popen(
        [codex, "app-server"],
        cwd=cwd,
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        for r in requests:
            server.stdin.write(json.dumps(r) + "\n")
        server.stdin.flush()
        for line in server.stdout:  # notifications first, then the answer to id 2
            message = json.loads(line)
            if message.get("id") == 2:
                hooks: list[dict[str, Any]] = message["result"]["data"][0]["hooks"]
                return hooks
    finally:
        server.kill()
        server.wait(timeout=30)
    pytest.fail("codex app-server gave no hooks/list answer")


def _coffers(cwd: Path) -> dict[str, Any]:
    listed = json.loads(coffer("adapter", "list", "--json", cwd=cwd).stdout)
    trust: dict[str, Any] = next(a for a in listed["adapters"] if a["name"] == "codex")[
        "hook_trust"
    ]
    return trust


def test_coffer_reports_the_trust_codex_itself_reports(tmp_path: Path, fake_home: Path) -> None:
    codex = agent_binary("codex")
    home = fake_home / ".codex"
    home.mkdir()
    repo = git_repo(tmp_path / "repo")
    env = agent_env({"CODEX_HOME": str(home)})
    assert coffer("setup", "--yes", "--agent", "codex", "--no-service").returncode == 0
    [hook] = [h for h in _codex_hooks(codex, repo, env) if "coffer" in (h["command"] or "")]
    assert hook["trustStatus"] == "untrusted"
    mine = _coffers(repo)
    assert mine["state"] == "untrusted"
    lines = re.search(
        r'^\[hooks\.state\.".+"\]\ntrusted_hash = "(sha256:[0-9a-f]+)"$', mine["how"], re.M
    )
    assert lines is not None
    assert lines.group(1) == hook["currentHash"] and hook["key"] in lines.group(0)
    config = home / "config.toml"
    config.write_text(config.read_text() + "\n" + lines.group(0) + "\n")
    [hook] = [h for h in _codex_hooks(codex, repo, env) if "coffer" in (h["command"] or "")]
    assert hook["trustStatus"] == "trusted"
    assert _coffers(repo)["state"] == "trusted"
