"""The pieces of `coffer sync` on their own: remote URL normalisation and keys, the
file-by-file merge decision, the repository layout's path checks, conflict copies, the
untrusted-input checks and git's fixed environment (docs/adr/0034)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from coffer.store.entry import parse
from coffer.sync import keys, local, merge, tree
from coffer.sync.errors import RemoteUnreachable, SyncError
from coffer.sync.gitcmd import SSH_OPTIONS, Git, git_environ, shown

SAME = [
    "git@github.com:owner/repo.git",
    "git@github.com:Owner/Repo",
    "ssh://git@github.com/owner/repo.git",
    "ssh://git@github.com:22/owner/repo/",
    "git+ssh://git@github.com/owner/repo",
    "https://github.com/owner/repo",
    "https://github.com/owner/repo.git",
    "https://user:secret@GitHub.com:443/owner/repo.git/",
    "http://github.com/owner/repo",
    "git://github.com/owner/repo.git",
]


@pytest.mark.parametrize("url", SAME)
def test_ssh_scp_and_https_forms_of_one_url_are_one_key(url: str) -> None:
    assert keys.normalise_remote(url) == "github.com/owner/repo"


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("git@gitlab.com:group/sub/repo.git", "gitlab.com/group/sub/repo"),
        ("https://gitlab.com/group/sub/repo", "gitlab.com/group/sub/repo"),
        ("ssh://me@host.example/~me/repo.git", "host.example/me/repo"),
        ("github.com:owner/repo", "github.com/owner/repo"),
    ],
)
def test_other_hosts_and_nested_paths(url: str, key: str) -> None:
    assert keys.normalise_remote(url) == key


@pytest.mark.parametrize(
    "url",
    [
        None,
        "",
        "/srv/git/repo.git",  # a path names a place on one machine
        "../repo",
        "file:///srv/git/repo.git",
        "C:\\repos\\app",
        "ext::sh -c touch% /tmp/x",
        "https://github.com",  # no repository
        "https://github.com/../../etc",
        "https://host/a b/repo",
    ],
)
def test_local_or_odd_remotes_give_no_key(url: str | None) -> None:
    assert keys.normalise_remote(url) is None


def test_root_commit_is_the_fallback_key_and_nothing_else_is() -> None:
    sha = "a" * 40
    assert keys.project_key("git@github.com:o/r.git", sha) == "github.com/o/r"
    assert keys.project_key("/local/path", sha) == f"root-{sha}"
    assert keys.project_key(None, f"{'b' * 40} {sha}") == f"root-{sha}"  # sorted, first
    assert keys.project_key(None, None) is None
    assert keys.project_key(None, "not-a-sha") is None


@pytest.mark.parametrize("key", ["..", "a/../b", ".hidden", "a//b", "Upper", "global", "", "a/b c"])
def test_keys_that_could_leave_their_directory_are_invalid(key: str) -> None:
    assert not keys.valid_key(key)


@pytest.mark.parametrize(
    "path",
    [
        "global/../x.md",
        "projects/../../x.md",
        "projects/a/.git/x.md",
        "global/MEMORY.md",
        "global/.hidden.md",
        "global/notes.txt",
        "global/sub/x.md",
        "journal/x.md",
        "x.md",
    ],
)
def test_paths_outside_the_layout_are_refused(path: str) -> None:
    assert tree.split(path) is None


def test_paths_inside_the_layout() -> None:
    assert tree.split("global/tabs.md") == ("global", "tabs.md")
    assert tree.split("projects/github.com/o/r/deploy.md") == ("github.com/o/r", "deploy.md")


A, B, C = ("100644", "a" * 40), ("100644", "b" * 40), ("100644", "c" * 40)


@pytest.mark.parametrize(
    ("base", "ours", "theirs", "merged", "conflict"),
    [
        (A, A, A, A, False),
        (A, B, A, B, False),  # only we changed it
        (A, A, B, B, False),  # only they changed it
        (A, B, B, B, False),  # both made the same change
        (A, B, C, B, True),  # both changed it: ours stays, theirs becomes a copy
        (None, B, C, B, True),  # both added it differently
        (None, None, B, B, False),  # they added it
        (A, None, A, None, False),  # we deleted it
        (A, A, None, None, False),  # they deleted it
        (A, None, B, B, False),  # our deletion against their edit: the edit stays
        (A, B, None, B, False),  # their deletion against our edit: the edit stays
        (A, None, None, None, False),
    ],
)
def test_the_three_way_decision(base, ours, theirs, merged, conflict) -> None:  # type: ignore[no-untyped-def]
    def side(x: tuple[str, str] | None) -> dict[str, tuple[str, str]]:
        return {} if x is None else {"global/e.md": x}

    decision = merge.decide(side(base), side(ours), side(theirs))
    assert decision.merged.get("global/e.md") == merged
    assert bool(decision.conflicts) == conflict
    if conflict:
        assert decision.conflicts == (("global/e.md", theirs),)


def test_conflict_copies_are_entries_that_say_where_they_came_from() -> None:
    text = (
        "---\nname: deploy\ndescription: How we deploy\nmetadata:\n  type: project\n"
        "---\n\nShip it.\n"
    )
    copy = merge.conflict_copy(text.encode(), "deploy.md", "laptop", "2026-12-01T10:00:00+00:00")
    assert copy is not None
    entry = parse(copy.decode(), "deploy.conflict-laptop-20261201.md")
    assert entry.name == "deploy-conflict-laptop"
    assert entry.body.strip() == "Ship it."
    assert entry.type == "project"
    assert entry.metadata["conflict_of"] == "deploy.md"
    assert entry.metadata["conflict_from"] == "laptop"
    assert merge.conflict_copy(b"---\nname: [unclosed\n---\n", "x.md", "h", "t") is None
    taken = {"global/deploy.conflict-h-20261201.md"}
    assert merge.copy_name("global/deploy.md", "h", "20261201", taken) == (
        "global/deploy.conflict-h-20261201-2.md"
    )


def test_incoming_checks() -> None:
    good = b"---\nname: fine\n---\n\nA fine fact.\n"
    item = tree.Item("100644", tree.blob_id(good), len(good))
    assert local.check_incoming("global/fine.md", item, good) is None
    link = tree.Item("120000", item.sha, 11)
    assert "not a plain file" in (
        local.check_incoming("global/fine.md", link, b"/etc/passwd") or ""
    )
    big = tree.Item("100644", item.sha, tree.MAX_FILE + 1)
    assert "at most 65536" in (local.check_incoming("global/fine.md", big, good) or "")
    assert "not UTF-8" in (local.check_incoming("global/fine.md", item, b"\xff\xfe") or "")
    token = b"---\nname: t\n---\n\nghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
    assert "secret" in (local.check_incoming("global/t.md", item, token) or "")
    assert "path" in (local.check_incoming("global/../t.md", item, good) or "")


def test_blob_ids_are_gits(tmp_path: Path) -> None:
    import subprocess

    f = tmp_path / "x"
    f.write_bytes(b"hello\n")
    out = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True, check=True)
    assert tree.blob_id(b"hello\n") == out.stdout.strip()


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
