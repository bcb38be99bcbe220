"""Issue 9, point 1: the first session in a never-projected project sees its memory.

Each agent reads its memory files before its SessionStart hook finishes, so the memory the
hook puts in place reaches the first session only through the hook's output. These tests
run the real agents offline and read the requests each one sends (tests/agents/conftest.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

FACT = "The staging cluster is called walrus-77 and is rebuilt every Tuesday"
HANDOVER = "Coffer put this memory in place after the session had loaded its files"


def _remember_in_new_repo(tmp_path: Path, agent: str) -> Path:
    """setup, then a fact remembered in a repository coffer has never projected."""
    repo = git_repo(tmp_path / "repo")
    # --no-service: these tests are about the hook; no watcher service on this machine
    done = coffer("setup", "--yes", "--no-service", "--agent", agent, cwd=repo)
    assert done.returncode == 0, done.stderr
    remembered = coffer("remember", FACT, cwd=repo)
    assert remembered.returncode == 0, remembered.stderr
    return repo


def _first_two_sessions(
    recorder: Recorder, argv: list[str], repo: Path, env: dict[str, str]
) -> None:
    """Start the agent twice in ``repo``; check what each session sent."""
    sent = []
    for _ in range(2):
        recorder.clear()
        subprocess.run(argv, cwd=repo, env=env, capture_output=True, timeout=300, check=False)
        bodies = recorder.bodies()
        assert bodies, "the agent sent no request"
        sent.append("\n".join(bodies))  # some agents make a routing call first
    first, second = sent
    assert FACT in first, "the first session's prompt lacks the remembered fact"
    assert HANDOVER in first
    # The agent now loads the memory from its own files; the hook hands nothing over again.
    assert FACT in second
    assert HANDOVER not in second


@pytest.mark.parametrize("with_message", [False, True], ids=["plain", "with-message"])
def test_claude_first_session_gets_the_memory(
    tmp_path: Path, fake_home: Path, recorder: Recorder, with_message: bool
) -> None:
    claude = agent_binary("claude")
    if with_message:
        # Codex's own memory on: the hook switches it off and tells the user, so its output
        # is one JSON object (docs/adr/0013) carrying the memory as additionalContext.
        (fake_home / ".codex").mkdir()
        (fake_home / ".codex" / "config.toml").write_text("[features]\nmemories = true\n")
    repo = _remember_in_new_repo(tmp_path, "claude")
    env = agent_env(
        {
            "ANTHROPIC_BASE_URL": recorder.url,
            "ANTHROPIC_API_KEY": "sk-ant-offline-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    )
    _first_two_sessions(recorder, [claude, "-p", "hi"], repo, env)


def test_codex_first_session_gets_the_memory(tmp_path: Path, recorder: Recorder) -> None:
    codex = agent_binary("codex")
    repo = _remember_in_new_repo(tmp_path, "codex")
    provider = (
        f'{{name="recorder", base_url="{recorder.url}/v1", wire_api="responses", '
        'env_key="RECORDER_KEY", supports_websockets=false, request_max_retries=0, '
        "stream_max_retries=0}"
    )
    argv = [
        codex,
        "exec",
        "--skip-git-repo-check",
        # The hook is coffer's own, just installed; a user trusts it once in /hooks.
        "--dangerously-bypass-hook-trust",
        "-c",
        "model_provider=recorder",
        "-c",
        f"model_providers.recorder={provider}",
        "-c",
        'model="gpt-5"',
        "hi",
    ]
    _first_two_sessions(recorder, argv, repo, agent_env({"RECORDER_KEY": "offline-test"}))


def test_gemini_first_session_gets_the_memory(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    gemini = agent_binary("gemini")
    settings = fake_home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    # The user's own choice, made before coffer's setup: an API key, not a Google login.
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    repo = _remember_in_new_repo(tmp_path, "gemini")
    env = agent_env(
        {
            "GOOGLE_GEMINI_BASE_URL": recorder.url,
            "GEMINI_API_KEY": "offline-test",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
    )
    _first_two_sessions(recorder, [gemini, "-p", "hi"], repo, env)
