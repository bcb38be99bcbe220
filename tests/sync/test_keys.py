"""A remote's key: one key for every spelling of one URL, the root commit when there is
no URL, and no key that could leave its directory (coffer.sync.keys, docs/adr/0034)."""

from __future__ import annotations

import pytest

from coffer.sync import keys

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
