"""Issue 12 §5: what `coffer explain --agent NAME --json` lists as loaded is what the real
agent sends, and what it lists as skipped (shadowed, switched off) is not.

Each case plants a marker line in every file it names, runs `coffer project`, then per phase
(more files planted, e.g. a project CLAUDE.md) asks explain about a session in ``repo/sub``
and starts the agent there once against the recorder (tests/agents/conftest.py; each agent
is pointed at it as in test_every_agent.py). Every file explain gives an order must be in
the request (its marker, or for a file coffer or the agent wrote, its longest line), in that
order within its scope; every planted marker in the request must belong to such a file; no
skipped file's marker may be there. And coffer's memory is in the request exactly where
explain says a tier is "loaded".
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo
from tests.agents.test_every_agent import CASES as SETUPS
from tests.agents.test_every_agent import Where, _session
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

PROJECT_FACT = "Explain check: the project builds with make dist-7731"
GLOBAL_FACT = "Explain check: the user signs commits with key id kx-4402"
BOTH = ("loaded", "loaded")
CLAUDE_BOTH = json.dumps(
    {
        "pluginConfigs": {
            "agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}
        }
    }
)


@dataclass(frozen=True)
class Phase:
    plant: tuple[str, ...]  # "~/…" home, "r/…" repository, "t/…" beside it, "x/…" XDG config
    memory: tuple[str, str] = BOTH  # explain's project and global state afterwards
    append: tuple[tuple[str, str], ...] = ()  # (file, text) added to a settings file


@dataclass(frozen=True)
class Case:
    agent: str
    phases: tuple[Phase, ...]
    skipped: tuple[str, ...]  # the files explain calls skipped in the last phase


CASES = [
    Case(
        "claude",
        (
            Phase(
                ("~/.claude/CLAUDE.md", "~/.claude/rules/g.md", "r/AGENTS.md", "r/sub/AGENTS.md")
            ),
            Phase(("r/CLAUDE.md", "r/.claude/rules/p.md")),  # a project CLAUDE.md hides AGENTS.md
            Phase((), append=(("~/.claude/settings.json", CLAUDE_BOTH),)),  # unless told both
        ),
        (),
    ),
    Case(
        "codex",
        (
            Phase(("~/.codex/AGENTS.md", "r/AGENTS.md", "r/sub/AGENTS.md", "r/CLAUDE.md")),
            Phase(("r/sub/AGENTS.override.md",)),  # hides sub/AGENTS.md
            # a budget of 64 bytes: the root file's head, nothing of its block or the rest
            Phase(
                (), ("cut", "loaded"), (("~/.codex/config.toml", "project_doc_max_bytes = 64\n"),)
            ),
        ),
        # CLAUDE.md: not a configured fallback; the override: past the budget
        ("r/sub/AGENTS.md", "r/CLAUDE.md", "r/sub/AGENTS.override.md"),
    ),
    Case(
        "gemini",
        (Phase(("~/.gemini/GEMINI.md", "r/GEMINI.md", "r/sub/GEMINI.md", "r/AGENTS.md")),),
        ("r/AGENTS.md",),  # read only when context.fileName names it
    ),
    Case(
        "opencode",
        (
            Phase(("~/.claude/CLAUDE.md", "r/AGENTS.md", "r/sub/CLAUDE.md", "r/sub/AGENTS.md")),
            # OpenCode's own global file hides ~/.claude/CLAUDE.md, which holds the block;
            # coffer's target is now that file, still without it (`coffer project` fixes it)
            Phase(("x/opencode/AGENTS.md",), ("loaded", "missing")),
        ),
        ("r/sub/CLAUDE.md", "~/.claude/CLAUDE.md"),
    ),
    Case(
        "kilo",
        (
            Phase(
                ("r/AGENTS.md", "r/sub/CLAUDE.md", "r/sub/.kilo/rules/a.md", "r/.kilo/rules/b.md")
            ),
            Phase(("x/kilo/AGENTS.md",), ("loaded", "missing")),
        ),
        ("r/sub/CLAUDE.md", "~/.claude/CLAUDE.md"),
    ),
    Case(
        "qwen",
        (
            Phase(
                (
                    "~/.qwen/QWEN.md",
                    "t/QWEN.md",
                    "r/QWEN.md",
                    "r/sub/AGENTS.md",
                    "r/.qwen/QWEN.local.md",
                )
            ),
        ),
        (),
    ),
    Case(
        "pi",
        (
            Phase(
                (
                    "~/.pi/agent/AGENTS.md",
                    "t/AGENTS.md",
                    "r/CLAUDE.md",
                    "r/sub/AGENTS.md",
                    "r/sub/CLAUDE.md",
                )
            ),
        ),
        ("r/CLAUDE.md", "r/sub/CLAUDE.md"),  # AGENTS.md beside each hides it
    ),
    Case(
        "kimi",
        (Phase(("r/.kimi/AGENTS.md", "r/sub/AGENTS.md", "r/sub/agents.md"), ("loaded", "none")),),
        ("r/sub/agents.md",),
    ),
    Case("vibe", (Phase(("~/.vibe/AGENTS.md", "r/AGENTS.md", "r/sub/AGENTS.md")),), ()),
    Case(
        "hermes",
        (
            # Hermes reads AGENTS.md only in the start directory: not the root's block
            Phase(("r/sub/AGENTS.md", "r/sub/CLAUDE.md"), ("not-loaded", "none")),
            Phase(("r/HERMES.md",), ("missing", "none")),  # hides sub/AGENTS.md; no block yet
        ),
        ("r/sub/AGENTS.md", "r/sub/CLAUDE.md"),
    ),
    Case(
        "openclaw",
        # `agent exec` here reads only the start directory, `agent --local` the workspace
        (Phase(("r/sub/AGENTS.md", "r/sub/USER.md"), ("not-loaded", "loaded")),),
        (),
    ),
    Case(
        "cline",
        (
            Phase(
                ("r/sub/AGENTS.md", "r/sub/.clinerules/a.md", "~/.cline/rules/g.md"),
                ("not-loaded", "loaded"),
            ),
        ),
        (),
    ),
]


def _where(name: str, home: Path, repo: Path) -> Path:
    bases = {"~": home, "r": repo, "t": repo.parent, "x": Path(os.environ["XDG_CONFIG_HOME"])}
    return bases[name[0]] / name[2:]


def _plant(names: tuple[str, ...], home: Path, repo: Path, markers: dict[Path, str]) -> None:
    for name in names:
        path = _where(name, home, repo)
        path.parent.mkdir(parents=True, exist_ok=True)
        markers[path] = f"explain-probe-{len(markers):02d}-{path.name}"
        path.write_text(f"# planted\n{markers[path]}\n", encoding="utf-8")


def _probe(path: Path, markers: dict[Path, str]) -> str:
    if path in markers:
        return markers[path]
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return max(lines, key=len, default="")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("case", CASES, ids=[c.agent for c in CASES])
def test_explain_lists_what_the_agent_sends(
    case: Case, tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    exe = agent_binary(case.agent)
    repo = git_repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    on_path = tmp_path / "agent-bin"  # installed: on PATH, so `coffer project` detects it
    on_path.mkdir()
    (on_path / case.agent).symlink_to(exe)
    env = agent_env({"PATH": f"{on_path}{os.pathsep}{agent_env({})['PATH']}"})
    w = Where(fake_home, repo, recorder.url, exe, env)
    setup = next(s for s in SETUPS if s.agent == case.agent)
    runs = [dataclasses.replace(r, cwd=repo / "sub") for r in setup.setup(w)]
    markers: dict[Path, str] = {}
    _plant(case.phases[0].plant, fake_home, repo, markers)
    for args in (("remember", PROJECT_FACT), ("remember", "--scope", "global", GLOBAL_FACT)):
        assert coffer(*args, cwd=repo, env=env).returncode == 0
    done = coffer("project", cwd=repo, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    for number, phase in enumerate(case.phases):
        if number:
            _plant(phase.plant, fake_home, repo, markers)
        for name, text in phase.append:
            with _where(name, fake_home, repo).open("a", encoding="utf-8") as settings:
                settings.write(text)
        view = _explain(case.agent, repo / "sub", env)
        sent = _session(recorder, runs, w)
        _check(view, sent, recorder.bodies(), markers)
        _memory(view, sent, phase)
    skipped = {f["path"] for f in view["files"] if f["order"] is None}
    assert skipped == {str(_where(n, fake_home, repo)) for n in case.skipped}


def _explain(agent: str, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    done = coffer("explain", "--agent", agent, "--json", cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    view: dict[str, Any] = json.loads(done.stdout)["agents"][0]
    return view


def _check(view: dict[str, Any], sent: str, raw: list[str], markers: dict[Path, str]) -> None:
    loaded = [Path(f["path"]) for f in view["files"] if f["order"] is not None]
    skipped = [Path(f["path"]) for f in view["files"] if f["order"] is None]
    missing = [str(p) for p in loaded if _probe(p, markers) not in sent]
    assert not missing, f"explain lists these as loaded, the request lacks them: {missing}"
    leaked = [str(p) for p in skipped if p in markers and markers[p] in sent]
    assert not leaked, f"explain says these are not read, the request has them: {leaked}"
    unlisted = [str(p) for p, m in markers.items() if m in sent and p not in loaded]
    assert not unlisted, f"the request has these, explain does not list them: {unlisted}"
    # the planted files reach one request in explain's order (their scope's part of it: an
    # agent may send global and project context in different messages, OpenClaw in runs)
    for scope in ("global", "project"):
        listed = [Path(f["path"]) for f in view["files"] if f["order"] and f["scope"] == scope]
        wanted = [markers[p] for p in listed if p in markers]
        body = next((b for b in raw if all(m in b for m in wanted)), "")
        at = [body.find(m) for m in wanted]
        assert -1 not in at and at == sorted(at), f"{scope}: not in one request in order: {listed}"


def _memory(view: dict[str, Any], sent: str, phase: Phase) -> None:
    states = (view["memory"]["project"]["state"], view["memory"]["global"]["state"])
    assert states == phase.memory, view["memory"]
    assert (PROJECT_FACT in sent) is (states[0] == "loaded"), "project fact"
    assert (GLOBAL_FACT in sent) is (states[1] == "loaded"), "global fact"
