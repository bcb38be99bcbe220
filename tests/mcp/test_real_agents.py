"""Real agents connect to ``coffer mcp`` and ``ecc-memory-mcp`` (docs/adr/0028).

Marked ``agents`` and skipped unless ``$COFFER_AGENTS_BIN`` holds the pinned agents (as
tests/agents/run.sh installs them); run with

    COFFER_AGENTS_BIN=~/.cache/coffer-agent-tests/bin .venv/bin/python -m pytest -m agents \\
        tests/mcp/test_real_agents.py

Checked against Claude Code 2.1.332 and Codex 0.171.0: Claude probes ``server/discover``
(2026-07-28) and then initializes at 2025-11-25 with ``roots``; Codex initializes at
2025-06-18 and lists tools with ``{"_meta": {"progressToken": 0}}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo, recorder

pytestmark = pytest.mark.agents
__all__ = ["recorder"]  # the fixture, used by name below

COFFER = str(Path(sys.executable).with_name("coffer"))
ECC = str(Path(sys.executable).with_name("ecc-memory-mcp"))
VAULT = ["memory_save", "memory_search", "memory_read", "memory_doctor"]
OWN = ["remember", "recall", "list_memory", "update_memory", "forget"]


def _run(argv: list[str], cwd: Path, extra: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        env=agent_env(extra or {}),
        check=False,
    )
    assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return done.stdout


def test_claude_code_connects_to_both_servers(tmp_path: Path) -> None:
    claude = agent_binary("claude")
    repo = git_repo(tmp_path / "repo")
    for name, command in (("coffer", [COFFER, "mcp"]), ("ecc", [ECC])):
        add = [claude, "mcp", "add", "--scope", "user", name, "-e", "ECC_MEMORY_HARNESS=claude"]
        _run([*add, "--", *command], repo)
    listed = _run([claude, "mcp", "list"], repo).splitlines()
    # `claude mcp list` starts each server and runs the handshake (its health check).
    status = {line.split(":")[0]: line.rsplit(" - ", 1)[-1] for line in listed if " - " in line}
    assert status == {"coffer": "✔ Connected", "ecc": "✔ Connected"}, listed


def test_codex_puts_both_servers_tools_in_the_prompt(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    codex = agent_binary("codex")
    repo = git_repo(tmp_path / "repo")
    (fake_home / ".codex").mkdir()
    for name, command in (("coffer", [COFFER, "mcp"]), ("ecc", [ECC])):
        _run([codex, "mcp", "add", name, "--env", "ECC_MEMORY_HARNESS=codex", "--", *command], repo)
    provider = (
        f'{{name="recorder", base_url="{recorder.url}/v1", wire_api="responses", '
        'env_key="RECORDER_KEY", supports_websockets=false, request_max_retries=0, '
        "stream_max_retries=0}"
    )
    argv = [codex, "exec", "--skip-git-repo-check", "-c", "model_provider=recorder"]
    argv += ["-c", f"model_providers.recorder={provider}", "-c", 'model="gpt-5"', "hi"]
    subprocess.run(
        argv,
        cwd=repo,
        capture_output=True,
        timeout=180,
        env=agent_env({"RECORDER_KEY": "offline-test"}),
        check=False,  # the recorder answers with an error: codex exits non-zero
    )
    bodies = [json.loads(body) for body in recorder.bodies()]
    assert bodies, "codex sent no model request"
    namespaces = {
        tool["name"]: sorted(t["name"] for t in tool.get("tools", []))
        for tool in bodies[0].get("tools", [])
        if str(tool.get("name", "")).startswith("mcp__")
    }
    assert namespaces == {"mcp__coffer": sorted(OWN + VAULT), "mcp__ecc": sorted(VAULT)}
