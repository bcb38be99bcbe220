"""Issue 28 §1: the store's default place is platformdirs' answer on every platform.

coffer asks platformdirs (a stand-in ``platformdirs`` on the import path proves the answer
is its, not a rule coffer wrote out for Linux or macOS); `coffer setup` records the store in
the hooks it writes, so the session-start no-op finds it without importing platformdirs.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import platformdirs
import pytest

from coffer.base import platform
from coffer_adapters.claude_code.setup import WINDOWS_SHELL as CLAUDE_SHELL
from tests.helpers import coffer, imported_after, make_repo, run_hook


@pytest.fixture
def no_coffer_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COFFER_HOME")


def where(repo: Path, **env: str) -> str:
    done = coffer("where", "--json", cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["store"])


def test_the_default_store_is_platformdirs_user_data_dir(
    tmp_path: Path, no_coffer_home: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo")
    assert where(repo) == platformdirs.user_data_dir("coffer", appauthor=False)
    monkeypatch.delenv("XDG_DATA_HOME")
    assert where(repo) == platformdirs.user_data_dir("coffer", appauthor=False)
    # Whatever platformdirs answers is the store, on any platform: here a stand-in.
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "platformdirs.py").write_text(
        "def user_data_dir(appname, appauthor=None):\n"
        f"    return {str(tmp_path / 'elsewhere')!r} + '/' + appname\n"
    )
    path = os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")])
    assert where(repo, PYTHONPATH=path) == str(tmp_path / "elsewhere" / "coffer")
    # COFFER_HOME still wins over both.
    assert where(repo, COFFER_HOME=str(tmp_path / "mine")) == str(tmp_path / "mine")


def test_setup_records_the_store_so_the_hook_no_op_skips_platformdirs(
    tmp_path: Path, fake_home: Path, no_coffer_home: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    (fake_home / ".claude").mkdir()
    repo = make_repo(tmp_path / "repo")
    done = coffer("setup", "--yes", "--agent", "claude", "--no-service", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    settings = json.loads((fake_home / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    store = platformdirs.user_data_dir("coffer", appauthor=False)
    if platform.WINDOWS:  # COFFER_SIMULATE=windows: Claude runs hooks in PowerShell there
        assert command.startswith(f"$env:COFFER_HOME='{store}'; & ")
    else:
        assert command.startswith(f"COFFER_HOME={shlex.quote(store)} ")
    servers = json.loads((fake_home / ".claude.json").read_text())["mcpServers"]
    assert servers["coffer"]["env"]["COFFER_HOME"] == store
    # The agent runs the hook as written: the first start projects, the next is the no-op,
    # which never imports platformdirs (nor anything else it did not before).
    for _ in range(2):
        ran = run_hook(command, repo, CLAUDE_SHELL.syntax)
        assert ran.returncode == 0, ran.stderr
    assert (Path(store) / "state").is_dir()
    monkeypatch.setenv("COFFER_HOME", store)  # as the hook command sets it
    argv = ["project", "--hook", "--for", "claude"]
    assert imported_after(argv, repo, ("platformdirs", "typer", "pathlib")) == (0, [])
