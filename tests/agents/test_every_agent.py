"""Issue 12 §4: every agent that runs offline sees coffer's memory, and nothing after unproject.

For each agent (the pins are in tests/agents/run.sh): a fake home and a git repository, a
project fact and a global fact remembered with this tree's ``coffer``, then ``coffer project``
(the whole command, which projects into every agent it detects: here the one agent, found on
PATH). The agent runs once, non-interactively, against the recorder; the facts its adapter
projects must be in the request. Then ``coffer unproject --all`` (which undoes the global tier
too), the agent runs again, and neither fact nor coffer's block may be in what it sends.

Where a tier reaches an agent only under a condition, the case sets that condition up and
says so (``Case.setup``): Cline and Hermes read ``AGENTS.md`` only in the start directory, so
they start at the root; Mistral Vibe reads project files only in a trusted folder; Aider reads
only the files its ``.aider.conf.yml`` names. A tier whose adapter writes nothing (NONE) is
asserted absent, with the adapter's reason. Claude's project memory stays after unproject,
as its own memory directory (``keeps_project``); OpenClaw also runs once before coffer
projects (``used_before``), so the block goes into a file the agent wrote. What was verified,
per agent and version, is in docs/adr/0031.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo, sent_text
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

PROJECT_FACT = "The release train for this repository leaves from platform nine-14"
GLOBAL_FACT = "On every machine the user prefers tabs rendered four columns wide, id qz-58"
# What only coffer's managed block contains (docs/adr/0003): its markers and its heading.
COFFER_MARKS = ("coffer:memory", "coffer:digest", "Coffer memory")
KEY = "offline-test"


@dataclass(frozen=True)
class Where:
    """What a case's ``setup`` gets: the fake home, the repository, the recorder's URL, the
    agent's executable, and the environment every run and every coffer command uses."""

    home: Path
    repo: Path
    url: str
    exe: str
    env: dict[str, str]


@dataclass(frozen=True)
class Run:
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None  # default: the repository root


@dataclass(frozen=True)
class Case:
    agent: str  # coffer's adapter name, also the executable's
    version: str  # the pin in run.sh, for the report
    setup: Callable[[Where], list[Run]]  # point the agent at the recorder: a session's runs
    project: bool = True  # the project fact is in the prompt after `coffer project`
    global_: bool = True  # and the global fact
    companion: str = ""  # another agent to enable, whose file this one is told to read
    # After unproject the project memories stay the agent's own (a copy, no coffer block).
    keeps_project: bool = False
    # Files (under the home) the agent writes in a session before coffer ever projects:
    # coffer's block goes into them and unproject must give them back byte for byte.
    used_before: tuple[str, ...] = ()
    exe: str = ""  # the executable's name, when it is not the adapter's

    @property
    def command(self) -> str:
        return self.exe or self.agent

    @property
    def id(self) -> str:
        return f"{self.agent}-used-before" if self.used_before else self.agent


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _xdg(w: Where) -> Path:
    return Path(w.env["XDG_CONFIG_HOME"])


def _claude(w: Where) -> list[Run]:
    env = {
        "ANTHROPIC_BASE_URL": w.url,
        "ANTHROPIC_API_KEY": "sk-ant-offline-test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    return [Run([w.exe, "-p", "hi"], env)]


def _codex(w: Where) -> list[Run]:
    provider = (
        f'{{name="recorder", base_url="{w.url}/v1", wire_api="responses", '
        'env_key="RECORDER_KEY", supports_websockets=false, request_max_retries=0, '
        "stream_max_retries=0}"
    )
    argv = [w.exe, "exec", "--skip-git-repo-check", "-c", "model_provider=recorder"]
    argv += ["-c", f"model_providers.recorder={provider}", "-c", 'model="gpt-5"', "hi"]
    return [Run(argv, {"RECORDER_KEY": KEY})]


def _gemini(w: Where) -> list[Run]:
    # The user's choice of an API key over a Google login (without it: "Invalid auth method").
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    _write(w.home / ".gemini" / "settings.json", json.dumps(settings))
    env = {
        "GOOGLE_GEMINI_BASE_URL": w.url,
        "GEMINI_API_KEY": KEY,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    return [Run([w.exe, "-p", "hi"], env)]


def _qwen(w: Where) -> list[Run]:
    settings = {"security": {"auth": {"selectedType": "openai"}}}
    _write(w.home / ".qwen" / "settings.json", json.dumps(settings))
    env = {"OPENAI_BASE_URL": f"{w.url}/v1", "OPENAI_API_KEY": KEY, "OPENAI_MODEL": "m"}
    return [Run([w.exe, "-p", "hi"], env)]


def _provider_json(w: Where) -> str:
    """An OpenAI-compatible provider, in the config shape OpenCode and its fork Kilo share."""
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "recorder",
        "options": {"baseURL": f"{w.url}/v1", "apiKey": KEY},
        "models": {"m": {"name": "m"}},
    }
    return json.dumps({"provider": {"lab": provider}, "model": "lab/m"})


def _opencode(w: Where) -> list[Run]:
    _write(_xdg(w) / "opencode" / "opencode.json", _provider_json(w))
    return [Run([w.exe, "run", "hello"])]


def _kilo(w: Where) -> list[Run]:
    _write(_xdg(w) / "kilo" / "kilo.json", _provider_json(w))
    return [Run([w.exe, "run", "hello"])]


def _pi(w: Where) -> list[Run]:
    models = {
        "providers": {
            "rec": {
                "baseUrl": f"{w.url}/v1",
                "api": "openai-completions",
                "apiKey": KEY,
                "models": [{"id": "m"}],
            }
        }
    }
    _write(w.home / ".pi" / "agent" / "models.json", json.dumps(models))
    argv = [w.exe, "--provider", "rec", "--model", "m", "-p", "hello"]
    return [Run(argv, {"PI_OFFLINE": "1"})]


def _cline(w: Where) -> list[Run]:
    auth = [w.exe, "auth", "--provider", "openai", "--apikey", KEY, "--modelid", "m"]
    auth += ["--baseurl", f"{w.url}/v1"]
    done = subprocess.run(auth, env=w.env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # Cline reads AGENTS.md only in the start directory: the session starts at the root.
    # One argument, more than one word: a lone word is taken for an unknown subcommand.
    return [Run([w.exe, "--yolo", "say hello"])]


def _openclaw(w: Where) -> list[Run]:
    config = {
        "models": {
            "providers": {
                "rec": {
                    "baseUrl": f"{w.url}/v1",
                    "apiKey": KEY,
                    "api": "openai-completions",
                    "models": [{"id": "m", "name": "m"}],
                }
            }
        },
        "agents": {"defaults": {"model": {"primary": "rec/m"}}},
    }
    _write(w.home / ".openclaw" / "openclaw.json", json.dumps(config))
    # `agent exec` reads the start directory (the project tier), `agent --local` the
    # workspace ~/.openclaw/workspace (the global tier): a session of each.
    return [
        Run([w.exe, "agent", "exec", "hello"]),
        Run([w.exe, "agent", "--local", "--agent", "main", "--message", "hello"]),
    ]


def _continue(w: Where) -> list[Run]:
    config = (
        "name: offline\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: rec\n"
        f"    provider: openai\n    model: m\n    apiBase: {w.url}/v1\n"
        f"    apiKey: {KEY}\n    roles: [chat]\n"
    )
    # The default config (no hub login): Continue's CLI reads ~/.continue/config.yaml.
    _write(w.home / ".continue" / "config.yaml", config)
    return [Run([w.exe, "-p", "say hello"])]


def _copilot(w: Where) -> list[Run]:
    # Bring-your-own-model mode needs no GitHub login; COPILOT_OFFLINE keeps it off GitHub.
    env = {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"{w.url}/v1",
        "COPILOT_PROVIDER_API_KEY": KEY,
        "COPILOT_MODEL": "m",
    }
    return [Run([w.exe, "-p", "say hello", "--allow-all-tools"], env)]


def _aider(w: Where) -> list[Run]:
    # Aider reads no file by itself; its adapter's note tells the user to add this line,
    # which gives it the AGENTS.md block another agent (the companion) has projected.
    _write(w.repo / ".aider.conf.yml", "read: AGENTS.md\n")
    env = {
        "OPENAI_API_BASE": f"{w.url}/v1",
        "OPENAI_API_KEY": KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    argv = [w.exe, "--model", "openai/m", "--message", "hello", "--yes-always"]
    argv += ["--no-check-update", "--no-show-release-notes", "--analytics-disable"]
    argv += ["--no-auto-commits", "--no-gitignore", "--no-pretty", "--no-stream"]
    return [Run(argv, env)]


def _hermes(w: Where) -> list[Run]:
    config = f"model:\n  provider: custom\n  default: m\n  base_url: {w.url}/v1\n  api_key: {KEY}\n"
    _write(w.home / ".hermes" / "config.yaml", config)
    # Hermes reads AGENTS.md only in the start directory: the session starts at the root.
    return [Run([w.exe, "-z", "hello"])]


def _kimi(w: Where) -> list[Run]:
    config = (
        'default_model = "rec"\n\n[providers.rec]\ntype = "openai_legacy"\n'
        f'base_url = "{w.url}/v1"\napi_key = "{KEY}"\n\n'
        '[models.rec]\nprovider = "rec"\nmodel = "m"\nmax_context_size = 128000\n'
    )
    _write(w.home / ".kimi" / "config.toml", config)
    return [Run([w.exe, "--print", "-p", "hello"])]


def _vibe(w: Where) -> list[Run]:
    config = (
        'active_model = "rec"\n\n[[providers]]\nname = "rec"\n'
        f'api_base = "{w.url}/v1"\napi_key_env_var = "RECORDER_KEY"\napi_style = "openai"\n\n'
        '[[models]]\nname = "m"\nprovider = "rec"\nalias = "rec"\n'
    )
    _write(w.home / ".vibe" / "config.toml", config)
    # Vibe loads no project file in a folder the user has not trusted: trust the repository.
    _write(w.home / ".vibe" / "trusted_folders.toml", f"trusted = [{json.dumps(str(w.repo))}]\n")
    return [Run([w.exe, "-p", "hello"], {"RECORDER_KEY": KEY})]


CASES = [
    # Claude's project tier is its memory directory, linked to the store; unproject turns
    # the link back into a real directory holding the current memories (README, "Claude"):
    # the fact stays, as Claude's own auto-memory, without coffer's block.
    Case("claude", "2.1.332", _claude, keeps_project=True),
    Case("codex", "0.171.0", _codex),
    Case("gemini", "0.61.0", _gemini),
    Case("qwen", "0.24.4", _qwen),
    Case("opencode", "1.18.33", _opencode),
    Case("kilo", "7.7.7", _kilo),
    Case("pi", "0.73.1", _pi),
    Case("cline", "3.0.65", _cline),
    Case("openclaw", "2026.9.6", _openclaw),
    # A fresh install's first session seeds the workspace with OpenClaw's own AGENTS.md;
    # coffer's global block then goes into that file (without this, coffer creates the file
    # and OpenClaw seeds no template while it is there: docs/adr/0031).
    Case("openclaw", "2026.9.6", _openclaw, used_before=(".openclaw/workspace/AGENTS.md",)),
    Case("continue", "1.5.47", _continue, exe="cn"),
    Case("copilot", "1.0.102", _copilot),
    # Aider's tiers are NONE: the project fact comes through `read: AGENTS.md`, the global
    # tier has no file Aider reads.
    Case("aider", "0.86.2", _aider, global_=False, companion="codex"),
    # Hermes' only global file is SOUL.md, its identity: the global tier is NONE.
    Case("hermes", "0.19.0", _hermes, global_=False),
    # Kimi CLI loads no global file: the global tier is NONE.
    Case("kimi", "1.51.0", _kimi, global_=False),
    Case("vibe", "3.0.2", _vibe),
]
NOT_RUNNABLE = {
    "crush": "@charmland/crush's install script downloads the binary from outside the "
    "registry (docs/adr/0031)",
}


def _around(sent: str, text: str) -> str:
    """Where ``text`` is in what the agent sent, for the failure message."""
    at = sent.find(text)
    return f"{text!r} still sent: ...{sent[max(0, at - 300) : at + len(text) + 100]}..."


def _session(recorder: Recorder, runs: list[Run], w: Where) -> str:
    """Run one session's commands against the recorder; everything they sent, as text."""
    recorder.clear()
    output = []
    for run in runs:
        cwd = run.cwd or w.repo
        done = subprocess.run(
            run.argv,
            cwd=cwd,
            # PWD as a shell sets it: some agents (OpenCode, Kilo) take their directory from it
            env={**w.env, "PWD": str(cwd), **run.env},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        output.append(f"$ {' '.join(run.argv)}\n{done.stdout}{done.stderr}")
    # Kept beside the test's home for a look at a failure (pytest --basetemp).
    log = w.repo.parent / "session.log"
    with log.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(output) + "\n--- sent ---\n" + "\n".join(recorder.bodies()) + "\n")
    bodies = recorder.bodies()
    assert bodies, f"{runs[0].argv[0]} sent no request: " + "\n".join(output)[-3000:]
    return sent_text(bodies)


def installed(
    case: Case, tmp_path: Path, home: Path, recorder: Recorder
) -> tuple[Where, list[Run]]:
    """The agent installed in the fake home as a user has it: its executable alone on PATH
    (so `coffer` detects it), a git repository, and its provider pointed at the recorder;
    the runs of one session."""
    exe = agent_binary(case.command)
    repo = git_repo(tmp_path / "repo")
    on_path = tmp_path / "agent-bin"
    on_path.mkdir()
    (on_path / case.command).symlink_to(exe)
    env = agent_env({"PATH": f"{on_path}{os.pathsep}{agent_env({})['PATH']}"})
    w = Where(home, repo, recorder.url, exe, env)
    return w, case.setup(w)


@pytest.mark.timeout(900)  # two sessions; OpenClaw's take half a minute each
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_memory_in_the_prompt_and_gone_after_unproject(
    tmp_path: Path, fake_home: Path, recorder: Recorder, case: Case
) -> None:
    w, runs = installed(case, tmp_path, fake_home, recorder)
    repo, env = w.repo, w.env

    def run_coffer(*args: str) -> None:
        done = coffer(*args, cwd=repo, env=env)
        assert done.returncode == 0, done.stdout + done.stderr

    if case.companion:
        run_coffer("adapter", "enable", case.companion)
    if case.used_before:
        _session(recorder, runs, w)
    own = {name: (fake_home / name).read_bytes() for name in case.used_before}
    run_coffer("remember", PROJECT_FACT)
    run_coffer("remember", "--scope", "global", GLOBAL_FACT)
    run_coffer("project")
    sent = _session(recorder, runs, w)
    assert (PROJECT_FACT in sent) is case.project, "project fact"
    assert (GLOBAL_FACT in sent) is case.global_, "global fact"

    run_coffer("unproject", "--all")
    sent = _session(recorder, runs, w)
    kept = (PROJECT_FACT,) if case.keeps_project else ()
    for left in {PROJECT_FACT, GLOBAL_FACT, *COFFER_MARKS} - set(kept):
        assert left not in sent, _around(sent, left)
    for name, before in own.items():
        assert (fake_home / name).read_bytes() == before, f"{name} is not as the agent left it"


@pytest.mark.parametrize("agent", sorted(NOT_RUNNABLE))
def test_agents_that_cannot_run_offline(agent: str) -> None:
    pytest.skip(NOT_RUNNABLE[agent])
