"""Issue 9, point 1: the first session in a never-projected project sees its memory.

Each agent reads its memory files before its SessionStart hook finishes, so the memory the
hook puts in place reaches the first session only through the hook's output. These tests
run the real agents offline and read the request each one sends (tests/agents/conftest.py).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo
from tests.helpers import coffer

pytestmark = pytest.mark.agents

FACT = "The staging cluster is called walrus-77 and is rebuilt every Tuesday"
HANDOVER = "Coffer put this memory in place after the session had loaded its files"


def _sent(recorder: Recorder) -> str:
    """Everything the agent sent this session (some agents make a routing call first)."""
    bodies = recorder.bodies()
    assert bodies, "the agent sent no request"
    return "\n".join(bodies)


def _remember_in_new_repo(tmp_path: Path, agent: str) -> Path:
    """setup, then a fact remembered in a repository coffer has never projected."""
    repo = git_repo(tmp_path / "repo")
    done = coffer("setup", "--yes", "--agent", agent, cwd=repo)
    assert done.returncode == 0, done.stderr
    remembered = coffer("remember", FACT, cwd=repo)
    assert remembered.returncode == 0, remembered.stderr
    return repo


def test_claude_first_session_gets_the_memory(tmp_path: Path, recorder: Recorder) -> None:
    claude = agent_binary("claude")
    repo = _remember_in_new_repo(tmp_path, "claude")
    env = agent_env(
        {
            "ANTHROPIC_BASE_URL": recorder.url,
            "ANTHROPIC_API_KEY": "sk-ant-offline-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    )

    def session() -> str:
        recorder.clear()
        subprocess.run(
            [claude, "-p", "hi"], cwd=repo, env=env, capture_output=True, timeout=300, check=False
        )
        return _sent(recorder)

    first = session()
    assert FACT in first, "the first session's prompt lacks the remembered fact"
    assert HANDOVER in first
    second = session()
    # Claude now loads the linked memory itself; the hook hands nothing over again.
    assert FACT in second
    assert HANDOVER not in second


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
    env = agent_env({"RECORDER_KEY": "offline-test"})

    def session() -> str:
        recorder.clear()
        subprocess.run(argv, cwd=repo, env=env, capture_output=True, timeout=300, check=False)
        return _sent(recorder)

    first = session()
    assert FACT in first, "the first session's prompt lacks the remembered fact"
    assert HANDOVER in first
    second = session()
    # Codex now reads the block in AGENTS.md itself; the hook hands nothing over again.
    assert FACT in second
    assert HANDOVER not in second


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

    def session() -> str:
        recorder.clear()
        subprocess.run(
            [gemini, "-p", "hi"], cwd=repo, env=env, capture_output=True, timeout=300, check=False
        )
        return _sent(recorder)

    first = session()
    assert FACT in first, "the first session's prompt lacks the remembered fact"
    assert HANDOVER in first
    second = session()
    # Gemini now loads the block in GEMINI.md itself; the hook hands nothing over again.
    assert FACT in second
    assert HANDOVER not in second
