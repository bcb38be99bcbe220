"""git as `coffer sync` runs it: a fixed environment, passwords kept out of what is shown,
an unreachable remote that never prompts, and the user's own ssh (coffer.sync.gitcmd,
docs/adr/0034)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from coffer.sync.errors import RemoteUnreachable, SyncError
from coffer.sync.gitcmd import SSH_OPTIONS, Git, git_environ, shown


def test_git_runs_with_a_fixed_environment(tmp_path: Path) -> None:
    env = git_environ(
        {
            "PATH": "/usr/bin",
            "GIT_DIR": "/elsewhere",
            "GIT_CONFIG_PARAMETERS": "'x.y=z'",
            "GIT_SSH_COMMAND": "ssh -i key",
            "SSH_ASKPASS": "/bin/pw",
        },
        tmp_path / "repo.git",
        tmp_path / "index",
    )
    assert env["GIT_DIR"] == str(tmp_path / "repo.git")
    assert "GIT_CONFIG_PARAMETERS" not in env and "SSH_ASKPASS" not in env
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["GIT_SSH_COMMAND"] == f"ssh -i key {SSH_OPTIONS}"
    assert "BatchMode=yes" in SSH_OPTIONS


def test_passwords_in_remote_urls_are_not_shown() -> None:
    assert shown("https://me:hunter2@example.com/o/r.git") == "https://me@example.com/o/r.git"
    assert shown("git@github.com:o/r.git") == "git@github.com:o/r.git"


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no ssh client")
def test_an_ssh_remote_that_refuses_is_unreachable_not_a_prompt(tmp_path: Path) -> None:
    import os

    git = Git(tmp_path / "repo.git", dict(os.environ), "h")
    (tmp_path / "repo.git").mkdir()
    git.run("init", "--quiet", "--bare", "--template=")
    url = "ssh://git@127.0.0.1:1/owner/repo.git"
    with pytest.raises(
        RemoteUnreachable, match=re.escape("cannot reach ssh://git@127.0.0.1:1/owner/repo")
    ):
        git.remote_call("ls-remote", "--", url, remote=url)


def test_without_git_on_path_sync_says_so(tmp_path: Path) -> None:
    with pytest.raises(SyncError, match="needs git on PATH"):
        Git(tmp_path / "repo.git", {"PATH": str(tmp_path)}, "h")


def test_the_users_ssh_choice_wins_and_only_a_plain_ssh_gets_coffers_options() -> None:
    from coffer.sync.gitcmd import ssh_command

    assert ssh_command({}, None) == {"GIT_SSH_COMMAND": f"ssh {SSH_OPTIONS}"}
    assert ssh_command({}, "/usr/bin/ssh -i k") == {
        "GIT_SSH_COMMAND": f"/usr/bin/ssh -i k {SSH_OPTIONS}"
    }
    assert ssh_command({}, "my-wrapper --x") == {"GIT_SSH_COMMAND": "my-wrapper --x"}
    # The environment beats the config, as in git itself; GIT_SSH is a program, kept as is.
    assert ssh_command({"GIT_SSH_COMMAND": "tsh ssh"}, "ssh") == {"GIT_SSH_COMMAND": "tsh ssh"}
    assert ssh_command({"GIT_SSH": "/opt/plink"}, "ssh") == {"GIT_SSH": "/opt/plink"}
    assert ssh_command({}, "ssh 'unbalanced") == {"GIT_SSH_COMMAND": "ssh 'unbalanced"}
