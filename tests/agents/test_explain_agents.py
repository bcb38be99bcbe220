"""Issue 12 §5: what `coffer explain --agent NAME --json` lists as loaded is what the real
agent sends, and what it lists as skipped (shadowed, switched off) is not.

Each case plants a marker line in every file it names, runs `coffer project`, then per phase
(more files planted, e.g. a project CLAUDE.md) asks explain about a session in ``repo/sub``
and starts the agent there once against the recorder (tests/agents/conftest.py). Every file
explain gives an order must be in the request (its marker, or for a file coffer wrote, its
longest line); every planted marker in the request must belong to such a file; no skipped
file's marker may be there. Coffer's memory must be where explain says it is.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

PROJECT_FACT = "Explain check: the project builds with make dist-7731"
GLOBAL_FACT = "Explain check: the user signs commits with key id kx-4402"
KEY = "offline-test"


@dataclass(frozen=True)
class Case:
    agent: str
    phases: tuple[tuple[str, ...], ...]  # files to plant before each run ("~/…" or "r/…")
    skipped: tuple[str, ...]  # files explain must call skipped in the last phase


CASES = [
    Case(
        "claude",
        (
            ("~/.claude/CLAUDE.md", "~/.claude/rules/g.md", "r/AGENTS.md", "r/sub/AGENTS.md"),
            ("r/CLAUDE.md", "r/.claude/rules/p.md"),  # a project CLAUDE.md hides AGENTS.md
        ),
        ("r/AGENTS.md", "r/sub/AGENTS.md"),
    ),
    Case(
        "codex",
        (
            ("~/.codex/AGENTS.md", "r/AGENTS.md", "r/sub/AGENTS.md", "r/CLAUDE.md"),
            ("r/sub/AGENTS.override.md",),  # hides sub/AGENTS.md
        ),
        ("r/sub/AGENTS.md", "r/CLAUDE.md"),
    ),
    Case(
        "gemini",
        (("~/.gemini/GEMINI.md", "r/GEMINI.md", "r/sub/GEMINI.md", "r/AGENTS.md"),),
        ("r/AGENTS.md",),  # read only when context.fileName names it
    ),
]


def _argv(agent: str, exe: str, url: str, home: Path) -> tuple[list[str], dict[str, str]]:
    if agent == "claude":
        env = {
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-ant-offline-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        return [exe, "-p", "hi"], env
    if agent == "codex":
        provider = (
            f'{{name="recorder", base_url="{url}/v1", wire_api="responses", '
            'env_key="RECORDER_KEY", supports_websockets=false, request_max_retries=0, '
            "stream_max_retries=0}"
        )
        argv = [exe, "exec", "--skip-git-repo-check", "-c", "model_provider=recorder"]
        argv += ["-c", f"model_providers.recorder={provider}", "-c", 'model="gpt-5"', "hi"]
        return argv, {"RECORDER_KEY": KEY}
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    env = {
        "GOOGLE_GEMINI_BASE_URL": url,
        "GEMINI_API_KEY": KEY,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    return [exe, "-p", "hi"], env


def _sent(bodies: list[str]) -> str:
    """The requests as searchable text: raw, and every JSON string in them decoded."""
    out = list(bodies)
    stack: list[Any] = []
    for body in bodies:
        try:
            stack.append(json.loads(body))
        except ValueError:
            continue
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict | list):
            stack.extend(item.values() if isinstance(item, dict) else item)
    return "\n".join(out)


def _plant(names: tuple[str, ...], home: Path, repo: Path, markers: dict[Path, str]) -> None:
    for name in names:
        path = (home if name.startswith("~/") else repo) / name[2:]
        path.parent.mkdir(parents=True, exist_ok=True)
        markers[path] = f"explain-probe-{len(markers):02d}-{path.name}"
        path.write_text(f"# planted\n{markers[path]}\n", encoding="utf-8")


def _probe(path: Path, markers: dict[Path, str]) -> str:
    if path in markers:
        return markers[path]
    lines = path.read_text(encoding="utf-8").splitlines()
    return max((line.strip() for line in lines), key=len)


@pytest.mark.parametrize("case", CASES, ids=[c.agent for c in CASES])
def test_explain_lists_what_the_agent_sends(
    case: Case, tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    exe = agent_binary(case.agent)
    for config in (".claude", ".codex", ".gemini"):
        (fake_home / config).mkdir(exist_ok=True)
    repo = git_repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    argv, extra = _argv(case.agent, exe, recorder.url, fake_home)
    env = agent_env(extra)
    markers: dict[Path, str] = {}
    _plant(case.phases[0], fake_home, repo, markers)
    assert coffer("remember", PROJECT_FACT, cwd=repo).returncode == 0
    assert coffer("remember", GLOBAL_FACT, "--scope", "global", cwd=repo).returncode == 0
    done = coffer("project", cwd=repo)
    assert done.returncode == 0, done.stderr
    for number, phase in enumerate(case.phases):
        if number:
            _plant(phase, fake_home, repo, markers)
        view = _explain(case.agent, repo / "sub")
        recorder.clear()
        subprocess.run(argv, cwd=repo / "sub", env=env, capture_output=True, timeout=300)
        bodies = recorder.bodies()
        assert bodies, "the agent sent no request"
        _check(view, _sent(bodies), bodies[-1], markers)
    skipped = {f["path"] for f in view["files"] if f["order"] is None}
    assert skipped == {str(repo / n[2:]) for n in case.skipped}


def _explain(agent: str, cwd: Path) -> dict[str, Any]:
    done = coffer("explain", "--agent", agent, "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    view: dict[str, Any] = json.loads(done.stdout)["agents"][0]
    return view


def _check(view: dict[str, Any], sent: str, raw: str, markers: dict[Path, str]) -> None:
    loaded = [Path(f["path"]) for f in view["files"] if f["order"] is not None]
    skipped = [Path(f["path"]) for f in view["files"] if f["order"] is None]
    missing = [str(p) for p in loaded if _probe(p, markers) not in sent]
    assert not missing, f"explain lists these as loaded, the request lacks them: {missing}"
    leaked = [str(p) for p in skipped if p in markers and markers[p] in sent]
    assert not leaked, f"explain says these are not read, the request has them: {leaked}"
    unlisted = [str(p) for p, m in markers.items() if m in sent and p not in loaded]
    assert not unlisted, f"the request has these, explain does not list them: {unlisted}"
    # the planted files reach the request in explain's order (their scope's part of it:
    # an agent may send global and project context in different messages)
    for scope in ("global", "project"):
        listed = [Path(f["path"]) for f in view["files"] if f["order"] and f["scope"] == scope]
        at = [raw.find(markers[p]) for p in listed if p in markers]
        assert -1 not in at and at == sorted(at), f"{scope}: not in this order: {listed}"
    memory = view["memory"]
    assert (memory["project"]["state"], memory["global"]["state"]) == ("loaded", "loaded")
    assert PROJECT_FACT in sent and GLOBAL_FACT in sent
