"""Agents' own memory directories linked to coffer's store, proved with the real agents
(docs/adr/0032). Run by tests/agents/run.sh, offline against the request recorder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.agents.conftest import Recorder, agent_binary, agent_env, git_repo, sent_text
from tests.helpers import coffer, store

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

FACT = "The staging cluster is called walrus-77 and is rebuilt every Tuesday"
NOTE = "The build cache lives in /var/cache/narwhal-12"
INDEX = "--- Private Project Memory Index (private, not committed to repo) ---"


def _gemini(recorder: Recorder, fake_home: Path) -> tuple[str, dict[str, str]]:
    gemini = agent_binary("gemini")
    settings = fake_home / ".gemini" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    # Headless Gemini refuses an untrusted folder (it still registers it first).
    extra = {
        "GOOGLE_GEMINI_BASE_URL": recorder.url,
        "GEMINI_API_KEY": "offline-test",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    return gemini, agent_env(extra)


def _session(recorder: Recorder, argv: list[str], repo: Path, env: dict[str, str]) -> str:
    recorder.clear()
    subprocess.run(argv, cwd=repo, env=env, capture_output=True, timeout=300, check=False)
    bodies = recorder.bodies()
    assert bodies, "the agent sent no request"
    return sent_text(bodies)


def _memory_dir(fake_home: Path, repo: Path) -> Path:
    """Where Gemini keeps the private memory of ``repo``: read from its own registry."""
    registry = json.loads((fake_home / ".gemini" / "projects.json").read_text())
    return fake_home / ".gemini" / "tmp" / registry["projects"][str(repo)] / "memory"


def test_gemini_loads_coffer_memory_through_its_linked_memory_dir(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    gemini, env = _gemini(recorder, fake_home)
    repo = git_repo(tmp_path / "My.Repo").resolve()
    # A first session without coffer: Gemini registers the project in projects.json.
    _session(recorder, [gemini, "-p", "hi"], repo, env)
    memory = _memory_dir(fake_home, repo)
    assert memory.parent.name == "my-repo"  # Gemini's slug, never computed by coffer
    # Gemini's own private note, written the way its prompt asks (a line in MEMORY.md).
    memory.mkdir()
    (memory / "MEMORY.md").write_text(f"# Project memory\n\n- {NOTE}\n")
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    tier = store().project_tier(repo)
    assert tier is not None
    assert memory.is_symlink() and Path(os.readlink(memory)) == tier.dir

    sent = _session(recorder, [gemini, "-p", "hi"], repo, env)
    assert INDEX in sent
    index = sent.split(INDEX, 1)[1].split("--- End Private Project Memory Index ---", 1)[0]
    assert NOTE in index  # Gemini's own note, kept in coffer's index
    assert "walrus-77" in index  # coffer's entry, listed by the index Gemini loads

    undo = coffer("unproject", cwd=repo)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert memory.is_dir() and not memory.is_symlink()
    assert NOTE in (memory / "MEMORY.md").read_text()


def test_gemini_first_session_hook_links_the_directory_gemini_just_registered(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    gemini, env = _gemini(recorder, fake_home)
    repo = git_repo(tmp_path / "repo").resolve()
    done = coffer("setup", "--yes", "--no-service", "--agent", "gemini", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    # Gemini registers the root before it fires SessionStart, so the first session's hook
    # already finds the slug and links the memory directory.
    _session(recorder, [gemini, "-p", "hi"], repo, env)
    memory = _memory_dir(fake_home, repo)
    assert memory.is_symlink()
    sent = _session(recorder, [gemini, "-p", "hi"], repo, env)
    assert "walrus-77" in sent.split(INDEX, 1)[1]


QWEN_FACT = "Integration tests need the docker group; run them with make itest"


def test_qwen_memory_is_imported_switched_off_and_restored(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    qwen = agent_binary("qwen")
    settings = fake_home / ".qwen" / "settings.json"
    settings.parent.mkdir()
    original = json.dumps({"security": {"auth": {"selectedType": "openai"}}}, indent=2) + "\n"
    settings.write_text(original)
    user = fake_home / ".qwen" / "memories"
    user.mkdir()
    (user / "itest.md").write_text(
        f"---\nname: itest\ndescription: {QWEN_FACT}\ntype: user\n---\n\n{QWEN_FACT}.\n"
    )
    (user / "MEMORY.md").write_text(f"- [itest](itest.md) — {QWEN_FACT}\n")
    env = agent_env({"OPENAI_BASE_URL": f"{recorder.url}/v1", "OPENAI_API_KEY": "k"})
    env["OPENAI_MODEL"] = "m"
    repo = git_repo(tmp_path / "repo").resolve()
    before = _session(recorder, [qwen, "-p", "hi"], repo, env)
    assert f"{user}/MEMORY.md" in before  # Qwen's own memory block, on by default
    # Qwen migrates its settings on a first run ("$version"): the pre-image is what is
    # there when coffer runs.
    pre_image = settings.read_bytes()

    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "coffer unproject --agent qwen" in run.stderr
    during = _session(recorder, [qwen, "-p", "hi"], repo, env)
    assert f"{user}/MEMORY.md" not in during  # switched off: Qwen no longer loads it
    assert QWEN_FACT in during  # the imported entry, through the block in ~/.qwen/QWEN.md

    undo = coffer("unproject", "--agent", "qwen", cwd=repo)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert settings.read_bytes() == pre_image
    after = _session(recorder, [qwen, "-p", "hi"], repo, env)
    assert f"{user}/MEMORY.md" in after


HERMES_NOTE = "The nightly backup runs at 02:30 from host orca-9"


def test_hermes_memory_is_imported_for_every_agent_and_stays_on(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    hermes = agent_binary("hermes")
    config = fake_home / ".hermes" / "config.yaml"
    config.parent.mkdir()
    config.write_text(
        f"model:\n  provider: custom\n  default: m\n  base_url: {recorder.url}/v1\n  api_key: k\n"
    )
    memories = fake_home / ".hermes" / "memories"
    memories.mkdir()
    (memories / "MEMORY.md").write_text(f"{HERMES_NOTE}\n§\nPrefers short answers.\n")
    repo = git_repo(tmp_path / "repo").resolve()
    (fake_home / ".codex").mkdir()  # another agent, to see Hermes' note in its global file
    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "hermes's own memory stays on" in run.stdout + run.stderr
    sent = _session(recorder, [hermes, "-z", "hello"], repo, agent_env({}))
    assert "MEMORY (your personal notes)" in sent and HERMES_NOTE in sent  # still on
    assert HERMES_NOTE in (fake_home / ".codex" / "AGENTS.md").read_text()


def test_gemini_session_in_a_subdirectory_gets_the_project_memory_through_its_own_slug(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    gemini, env = _gemini(recorder, fake_home)
    repo = git_repo(tmp_path / "repo").resolve()
    sub = repo / "services" / "api"
    sub.mkdir(parents=True)
    done = coffer("setup", "--yes", "--no-service", "--agent", "gemini", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert coffer("remember", FACT, cwd=repo).returncode == 0
    _session(recorder, [gemini, "-p", "hi"], sub, env)  # registers repo/services/api as `api`
    memory = _memory_dir(fake_home, sub)
    assert memory.parent.name == "api" and memory.is_symlink()
    sent = _session(recorder, [gemini, "-p", "hi"], sub, env)
    assert "walrus-77" in sent.split(INDEX, 1)[1]
