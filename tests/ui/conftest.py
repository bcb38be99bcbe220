"""A `coffer ui` server in the test's process, on a random port, over a project where
`coffer project` ran for Claude Code and Codex (so edits reach AGENTS.md)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from coffer.app import App
from coffer.ui.server import UIServer
from coffer.ui.site import Site
from tests.helpers import coffer, make_repo


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (fake_home / ".claude").mkdir()  # Claude Code and Codex "installed"
    (fake_home / ".codex").mkdir()
    # a person with a git identity: the team tier names who shared an entry
    config = fake_home / ".gitconfig"
    config.write_text("[user]\n\tname = Dana Reviewer\n\temail = dana@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    root = make_repo(tmp_path / "repo")
    (root / "AGENTS.md").write_text("# Team rules\n\nRun the tests.\n")
    for args in (
        ("remember", "Deploys use make release.", "--name", "deploy", "--type", "project"),
        ("remember", "Tabs are never used in Python files.", "--name", "tabs"),
        ("project",),
    ):
        done = coffer(*args, cwd=root)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def server(repo: Path) -> Iterator[UIServer]:
    running = UIServer(Site(App(dict(os.environ)), repo))
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()
    thread.join(5)
