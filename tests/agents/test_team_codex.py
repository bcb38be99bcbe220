"""Issue 13 §6: a cloud agent that reads only the repository sees the team tier.

(The second test does the same with the real Claude Code 2.1.332 against the request
recorder: in a clone of a repository with a tracked ``CLAUDE.md``, the team block coffer
put there reaches Claude, which reads no ``AGENTS.md`` beside a ``CLAUDE.md``.)

One machine (the test's fake home, with a store) keeps a personal project entry and a team
entry promoted with `coffer team add`, and commits ``.coffer/memory/`` and ``AGENTS.md``.
Then a fresh ``git clone`` is read by the real Codex in a home with no coffer store and no
Codex configuration, the way a hosted agent sees a repository: ``codex debug prompt-input``
prints the model-visible input, which must hold the team entry's text and none of the
personal memory (git's clean filter kept the personal block out of the commit).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.agents.conftest import Recorder, agent_binary, git_repo, sent_text
from tests.helpers import coffer

pytestmark = [
    pytest.mark.agents,
    pytest.mark.skipif(
        not os.environ.get("COFFER_AGENTS_BIN"), reason="run by tests/agents/run.sh"
    ),
]

TEAM_FACT = "Database migrations for this service are reviewed by the data team, ticket dm-7731"
PERSONAL_FACT = "I keep my scratch notes for this repository in the folder named zz-private-41"


def _ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _git(cwd: Path, *args: str) -> str:
    return _run(["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args], cwd)


def _prompt_input(exe: str, cwd: Path, home: Path) -> list[object]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "COFFER_HOME": str(home / "no-store"),
    }
    items: list[object] = json.loads(_run([exe, "debug", "prompt-input", "hi"], cwd, env))
    return items


def test_codex_reads_the_team_tier_from_a_fresh_clone(tmp_path: Path, fake_home: Path) -> None:
    exe = agent_binary("codex")
    (fake_home / ".codex").mkdir()
    repo = git_repo(tmp_path / "repo")
    _ok(coffer("remember", TEAM_FACT, "--name", "migrations", cwd=repo))
    _ok(coffer("remember", PERSONAL_FACT, "--name", "scratch", cwd=repo))
    _ok(coffer("team", "init", cwd=repo))
    _ok(coffer("team", "add", "migrations", cwd=repo))
    assert PERSONAL_FACT in (repo / "AGENTS.md").read_text()  # this machine's own block
    _git(repo, "add", ".coffer", "AGENTS.md")
    _git(repo, "commit", "-q", "-m", "team memory")
    assert _git(repo, "status", "--porcelain") == ""

    clone = tmp_path / "cloud" / "checkout"
    _git(tmp_path, "clone", "-q", str(repo), str(clone))
    cloud_home = tmp_path / "cloud" / "home"
    (cloud_home / ".codex").mkdir(parents=True)
    prompt = sent_text([json.dumps(_prompt_input(exe, clone, cloud_home))])
    assert TEAM_FACT in prompt
    assert "Team memory" in prompt
    assert PERSONAL_FACT not in prompt and "coffer:memory" not in prompt
    assert not (cloud_home / "no-store").exists()  # nothing of coffer ran in the cloud


def test_claude_reads_the_team_tier_from_claude_md_in_a_fresh_clone(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    exe = agent_binary("claude")
    (fake_home / ".claude").mkdir()
    repo = git_repo(tmp_path / "repo")
    (repo / "CLAUDE.md").write_text("# Project\n\nKeep answers short.\n")
    _git(repo, "add", "CLAUDE.md")
    _git(repo, "commit", "-q", "-m", "init")
    _ok(coffer("remember", TEAM_FACT, "--name", "migrations", cwd=repo))
    _ok(coffer("remember", PERSONAL_FACT, "--name", "scratch", cwd=repo))
    _ok(coffer("team", "init", cwd=repo))
    _ok(coffer("team", "add", "migrations", cwd=repo))
    _git(repo, "add", ".coffer", "CLAUDE.md")
    _git(repo, "commit", "-q", "-m", "team memory")

    clone = tmp_path / "cloud" / "checkout"
    _git(tmp_path, "clone", "-q", str(repo), str(clone))
    cloud_home = tmp_path / "cloud" / "home"
    (cloud_home / ".claude").mkdir(parents=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cloud_home),
        "CLAUDE_CONFIG_DIR": str(cloud_home / ".claude"),
        "ANTHROPIC_BASE_URL": recorder.url,
        "ANTHROPIC_API_KEY": "sk-ant-offline-test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    # Claude exits 1 once the recorder answers with an error: what it sent is the point.
    done = subprocess.run(
        [exe, "-p", "hi"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    bodies = recorder.bodies()
    assert bodies, done.stdout + done.stderr
    sent = sent_text(bodies)
    assert TEAM_FACT in sent and "Keep answers short." in sent
    assert PERSONAL_FACT not in sent and "coffer:memory" not in sent
