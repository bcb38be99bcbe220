"""The git commands coffer runs for a block file: where its repository is, whether git
tracks or ignores it, and its index entry's stat data (docs/adr/0015-blocks-out-of-git.md).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import subprocess

# Paths written into exclude/attributes as they are: nothing git would read as a glob,
# quote or separator. Anything else is left visible to git and said so.
_SAFE = re.compile(r"[A-Za-z0-9._/+@,%~-]+")
# A hook may run coffer with these set for another repository; git must find the file's.
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX")


class Repo(NamedTuple):
    top: Path  # the work tree holding the file
    common: Path  # the git dir its worktrees share (config, info/)


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    """Run git in ``cwd``; None when git is not installed or could not run."""
    import shutil
    import subprocess  # most runs read git's files and never start it

    git = shutil.which("git")
    if git is None:
        return None
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV}
    try:
        return subprocess.run(
            [git, *args], cwd=cwd, env=env, capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None


def output(result: subprocess.CompletedProcess[bytes] | None) -> str | None:
    if result is None or result.returncode != 0:
        return None
    return result.stdout.decode("utf-8", "surrogateescape").strip()


def locate(path: Path) -> Repo | None:
    """The git work tree holding ``path`` and its common git dir, or None.

    Read from git's own files, as git discovers them (the nearest ``.git`` directory, or a
    ``.git`` file's ``gitdir:``, then its ``commondir``), so a block written outside a
    repository, or in one, starts no git process to learn where it is. git itself is asked
    only where a file cannot tell: a repository whose config sets ``core.worktree``.
    """
    if not path.parent.is_dir():
        return None
    found = _discover(os.path.realpath(path.parent))
    if found is None:
        return None
    top, gitdir = found
    common = _common_dir(gitdir)
    if not _is_git_dir(gitdir, common):
        return None  # git would not take it for a repository either
    if _sets_worktree(os.path.join(common, "config")):
        return _locate_with_git(path)
    return Repo(Path(top), Path(os.path.realpath(common)))


def _discover(start: str) -> tuple[str, str] | None:
    """(work tree, git dir) of the nearest ``.git`` at or above ``start``."""
    from coffer.base.identity import gitdir_of

    probe = start
    while True:
        dotgit = os.path.join(probe, ".git")
        if os.path.isdir(dotgit):
            return probe, dotgit
        if os.path.isfile(dotgit):
            gitdir = gitdir_of(dotgit)
            return (probe, gitdir) if gitdir is not None else None
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def _common_dir(gitdir: str) -> str:
    # A linked worktree's git dir names the shared one in `commondir` (relative to itself).
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            text = fh.read().strip()
    except OSError:
        return gitdir
    return os.path.join(gitdir, text) if text else gitdir


def _is_git_dir(gitdir: str, common: str) -> bool:
    # git's is_git_directory: a HEAD, and objects/ and refs/ (in the common dir).
    return (
        os.path.lexists(os.path.join(gitdir, "HEAD"))
        and os.path.isdir(os.path.join(common, "objects"))
        and os.path.isdir(os.path.join(common, "refs"))
    )


def _sets_worktree(config: str) -> bool:
    try:
        with open(config, encoding="utf-8", errors="replace") as fh:
            return "worktree" in fh.read().lower()
    except OSError:
        return False


def _locate_with_git(path: Path) -> Repo | None:
    out = output(git(path.parent, "rev-parse", "--show-toplevel", "--git-common-dir"))
    lines = out.splitlines() if out else []
    if len(lines) != 2:
        return None
    common = Path(lines[1])
    if not common.is_absolute():
        common = path.parent / common
    return Repo(Path(os.path.realpath(lines[0])), Path(os.path.realpath(common)))


def filter_command() -> str:
    """The clean command: this interpreter by absolute path, so git runs it without coffer's
    environment on PATH; -I keeps the repository's own files off the import path."""
    import shlex  # only where the filter is set or checked: most blocks are excluded

    return f"{shlex.quote(sys.executable)} -I -m coffer.gitfilter"


def relative(repo: Repo, path: Path) -> str | None:
    rel = os.path.relpath(os.path.realpath(path), repo.top).replace(os.sep, "/")
    if rel.startswith("../") or not _SAFE.fullmatch(rel):
        return None
    return rel


def index_entry(repo: Repo, rel: str) -> tuple[bool, tuple[str, str] | None]:
    """(tracked, (mode, blob) of its plain stage-0 entry, or None if conflicted or flagged
    skip-worktree / assume-unchanged, which git does not compare anyway)."""
    return _entry(_index_lines(repo, rel))


def tracked(repo: Repo, rel: str) -> bool | None:
    """Whether git tracks ``rel``; None when git could not say (not installed, failed),
    which its callers take for "not tracked"."""
    lines = _index_lines(repo, rel)
    return None if lines is None else bool(lines)


def _index_lines(repo: Repo, rel: str) -> list[str] | None:
    out = output(git(repo.top, "ls-files", "-s", "-v", "--", rel))
    return None if out is None else out.splitlines()


def _entry(lines: list[str] | None) -> tuple[bool, tuple[str, str] | None]:
    if not lines:
        return False, None
    fields = lines[0].split("\t", 1)[0].split(" ")
    if len(lines) != 1 or len(fields) != 4 or fields[0] != "H" or fields[3] != "0":
        return True, None
    return True, (fields[1], fields[2])


def index_stamp(repo: Repo) -> list[int] | None:
    """The stat of the index git reads for ``repo``'s work tree (``[]``: there is none).

    git never edits its index in place: it writes ``index.lock`` and renames it over the
    index, so a change to what git tracks is a new file here. While this stays the same,
    so does every answer of :func:`index_entry`. None where coffer cannot tell which file
    git reads (``core.worktree`` set: git itself placed the work tree).
    """
    if _sets_worktree(os.path.join(repo.common, "config")):
        return None
    found = _discover(str(repo.top))
    if found is None or os.path.realpath(found[0]) != str(repo.top):
        return None
    try:
        st = os.stat(os.path.join(found[1], "index"))
    except FileNotFoundError:
        return []
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def ignored(repo: Repo, rel: str) -> bool:
    result = git(repo.top, "check-ignore", "-q", "--", rel)
    return result is not None and result.returncode == 0


def refresh_index(repo: Repo, rel: str) -> bool:
    """Give the index entry of ``rel`` the file's current stat data, if git would store the
    file (cleaned) as exactly the staged blob; True if it did. Never stages anything."""
    _, entry = index_entry(repo, rel)
    if entry is None:
        return False
    mode, blob = entry
    if output(git(repo.top, "hash-object", f"--path={rel}", "--", rel)) != blob:
        return False  # the user's own change: git must go on showing it
    # `update-index --refresh` keeps an entry whose size changed as modified without looking
    # at the content; re-adding the same blob zeroes its stat data, and `add --refresh` then
    # compares through the filter and records the stat (it never stages content).
    set_entry = git(repo.top, "update-index", "--cacheinfo", f"{mode},{blob},{rel}")
    if set_entry is None or set_entry.returncode != 0:
        return False
    git(repo.top, "add", "--refresh", "--", rel)
    return True


def forget_stat(repo: Repo, rel: str) -> None:
    """Zero the stat data of ``rel``'s index entry (same blob), so git compares its content
    again: once the filter is gone, the block a refresh vouched for must show."""
    _, entry = index_entry(repo, rel)
    if entry is not None:
        git(repo.top, "update-index", "--cacheinfo", f"{entry[0]},{entry[1]},{rel}")
