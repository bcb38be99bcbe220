"""Issue 25, proof with the real Claude Code: what Claude loads says when a memory may no
longer be true, and a memory Claude's folder lost comes back with `coffer restore`.

Claude runs offline against the local recorder (tests/agents/conftest.py); what it sent is
what its model would have read.
"""

from __future__ import annotations

import os
import re
import subprocess
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

BUILD = "Build the service with make -C src all"
WALRUS = "The staging cluster is called walrus-77"


def _ok(*args: str, cwd: Path) -> str:
    done = coffer(*args, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, timeout=60)


def _claude_project(tmp_path: Path) -> Path:
    repo = git_repo(tmp_path / "repo")
    _git(repo, "config", "user.email", "dev@example.com")
    _git(repo, "config", "user.name", "Dev")
    _ok("setup", "--yes", "--no-service", "--agent", "claude", cwd=repo)
    _ok("project", cwd=repo)  # Claude's memory folder is now the store's project tier
    return repo


def _session(recorder: Recorder, repo: Path) -> str:
    """One real Claude session in ``repo`` (its SessionStart hook runs coffer); what it sent."""
    env = agent_env(
        {
            "ANTHROPIC_BASE_URL": recorder.url,
            "ANTHROPIC_API_KEY": "sk-ant-offline-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    )
    recorder.clear()
    claude = agent_binary("claude")
    subprocess.run(
        [claude, "-p", "hi"], cwd=repo, env=env, capture_output=True, timeout=300, check=False
    )
    bodies = recorder.bodies()
    assert bodies, "Claude sent no request"
    return sent_text(bodies)


def _claude_memory(home: Path) -> Path:
    links = [p for p in (home / ".claude" / "projects").glob("*/memory") if p.is_symlink()]
    assert len(links) == 1, links
    return links[0]


def test_an_entry_whose_anchored_file_changed_is_marked_stale_in_what_claude_loads(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    repo = _claude_project(tmp_path)
    (repo / "src").mkdir()
    (repo / "src" / "Makefile").write_text("all:\n\tcc -o app main.c\n")
    _git(repo, "add", "src/Makefile")
    _git(repo, "commit", "-q", "-m", "build")
    _ok("remember", BUILD, "--name", "build", "--anchor", "src/Makefile", cwd=repo)
    fresh = _session(recorder, repo)
    assert BUILD in fresh
    assert not re.search(r"\[stale[^\]]*\][^\n]*" + re.escape(BUILD), fresh)
    assert not re.search(re.escape(BUILD) + r"[^\n]*\[stale", fresh)

    (repo / "src" / "Makefile").write_text("all:\n\tzig build\n")  # what the entry is about
    sent = _session(recorder, repo)
    line = next(x for x in sent.splitlines() if BUILD in x and "stale" in x)
    assert "src/Makefile" in line  # the mark says what changed


def test_an_entry_deleted_in_claudes_folder_is_back_in_its_prompt_after_restore(
    tmp_path: Path, fake_home: Path, recorder: Recorder
) -> None:
    repo = _claude_project(tmp_path)
    _ok("remember", WALRUS, "--name", "walrus", cwd=repo)
    assert WALRUS in _session(recorder, repo)

    (_claude_memory(fake_home) / "walrus.md").unlink()  # as Claude's consolidation does
    # Claude loads its MEMORY.md before its SessionStart hook runs: the first session
    # still lists the entry; its hook keeps the version the deletion lost and rewrites the
    # index, so the next session has it no more.
    _session(recorder, repo)
    assert "deleted" in _ok("history", "walrus", cwd=repo)
    assert WALRUS not in _session(recorder, repo)

    _ok("restore", "walrus", cwd=repo)
    assert WALRUS in _session(recorder, repo)
