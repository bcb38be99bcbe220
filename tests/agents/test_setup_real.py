"""`coffer setup` seen from the real agents (docs/adr/0033): after setup, each agent's first
request offers the model coffer's MCP tools (so the agent read the entry coffer wrote into its
own config and started `coffer mcp`), and the agents that read skills list the guidance skill.
Offline, against the recorder (tests/agents/conftest.py), with the sessions of
tests/agents/test_every_agent.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coffer.adapter.guidance import DESCRIPTION, SKILL_NAME
from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo
from tests.agents.test_every_agent import CASES, Run, Where, _session
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

# two of coffer's tool names (coffer/mcp/specs.py), in every tool list whatever prefix the
# agent gives MCP tools (mcp__coffer__list_memory, coffer_list_memory, …)
TOOLS = ("list_memory", "update_memory")
# Mistral Vibe 3.0.2 offers MCP tools on demand: its prompt names the server's group instead
SEEN = {"vibe": ("mcp_coffer",)}
WIRED = {c.agent: c for c in CASES if not c.used_before}
MCP_AGENTS = ["claude", "codex", "qwen", "opencode", "kilo", "cline", "kimi", "vibe", "copilot"]
NOT_SEEN = {
    # the first request Gemini CLI sends is its model router's, which carries no tools, and
    # the recorder's error ends the session there
    "gemini": "Gemini's first request (its router's) carries no tools",
    # Hermes starts MCP servers only with its `mcp` extra, which the suite's install lacks
    "hermes": "the suite's Hermes has no `mcp` extra: it disables MCP without a word",
}


def _wired(
    tmp_path: Path, fake_home: Path, recorder: Recorder, agent: str
) -> tuple[Where, list[Run]]:
    """The agent installed and pointed at the recorder (its own config first: its provider),
    then `coffer setup` for it: where it runs, and a session's commands."""
    case = WIRED[agent]
    exe = agent_binary(case.command)
    repo = git_repo(tmp_path / "repo")
    on_path = tmp_path / "agent-bin"
    on_path.mkdir()
    (on_path / case.command).symlink_to(exe)
    env = agent_env({"PATH": f"{on_path}{os.pathsep}{agent_env({})['PATH']}"})
    w = Where(fake_home, repo, recorder.url, exe, env)
    runs = case.setup(w)
    done = coffer("setup", "--yes", "--no-service", "--agent", agent, cwd=repo, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return w, runs


def _wired_session(tmp_path: Path, fake_home: Path, recorder: Recorder, agent: str) -> str:
    w, runs = _wired(tmp_path, fake_home, recorder, agent)
    return _session(recorder, runs, w)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "agent",
    [
        *MCP_AGENTS,
        *(pytest.param(a, marks=pytest.mark.skip(reason=why)) for a, why in NOT_SEEN.items()),
    ],
)
def test_the_agent_offers_coffers_tools_after_setup(
    tmp_path: Path, fake_home: Path, recorder: Recorder, agent: str
) -> None:
    sent = _wired_session(tmp_path, fake_home, recorder, agent)
    seen = SEEN.get(agent, TOOLS)
    assert all(t in sent for t in seen), f"{agent} did not offer coffer's MCP tools"


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "agent", ["claude", "codex", "gemini", "qwen", "opencode", "kilo", "kimi", "vibe", "copilot"]
)
def test_the_agent_lists_the_guidance_skill(
    tmp_path: Path, fake_home: Path, recorder: Recorder, agent: str
) -> None:
    sent = _wired_session(tmp_path, fake_home, recorder, agent)
    assert SKILL_NAME in sent and DESCRIPTION[:60] in sent


FACT = "The staging cluster is called walrus-77 and is rebuilt every Tuesday"
HANDOVER = "Coffer put this memory in place after the session had loaded its files"


@pytest.mark.timeout(600)
def test_qwens_first_session_gets_the_memory_through_the_hook(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    """Qwen Code reads its files before its SessionStart hook ends: in a project coffer has
    never projected, the memory reaches the first session only as the hook's output, which
    Qwen adds to the context (agents-more.md), and the second session reads it from
    AGENTS.md itself."""
    w, runs = _wired(tmp_path, fake_home, recorder, "qwen")
    assert coffer("remember", FACT, cwd=w.repo, env=w.env).returncode == 0
    first = _session(recorder, runs, w)
    assert FACT in first and HANDOVER in first
    second = _session(recorder, runs, w)
    assert FACT in second and HANDOVER not in second
