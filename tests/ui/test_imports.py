"""Only `coffer ui` loads the page's server: every other command, and the session-start
path, import none of it (docs/adr/0056)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import imported_after, make_repo

UI = ("coffer.ui", "coffer.ui.server", "coffer.cli.ui", "http.server", "webbrowser")


@pytest.mark.parametrize(
    "argv",
    [["list"], ["where"], ["recall", "x"], ["remember", "Use make.", "--name", "m"],
     ["project", "--quiet"], ["project", "--hook", "--for", "claude"], ["review", "--json"],
     ["explain", "--json"]],
    ids=" ".join,
)  # fmt: skip
def test_other_commands_do_not_import_the_ui(tmp_path: Path, argv: list[str]) -> None:
    repo = make_repo(tmp_path / "repo")
    # the session-start hook reads the agent's JSON on stdin
    code, found = imported_after(argv, repo, UI, input="{}" if "--hook" in argv else None)
    assert found == [], argv
    assert code == 0, argv


@pytest.mark.posix_only("POSIX signals (SIGINT to a child)")
def test_coffer_ui_prints_its_address_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    run = subprocess.Popen(
        [sys.executable, "-m", "coffer", "ui", "--no-open", "--project", str(repo)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
        # As a terminal's shell starts it: a run started in the background by a
        # non-interactive shell (`nohup … &`) inherits SIGINT ignored, and so would coffer.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        assert run.stdout is not None
        line = run.stdout.readline()
        assert line.startswith("coffer ui: http://127.0.0.1:") and "/?token=" in line
        run.send_signal(signal.SIGINT)
        assert run.wait(30) == 130
    finally:
        if run.poll() is None:
            run.kill()
