"""Which project a directory belongs to, computed the way Claude Code computes it.

The project root is the canonical git root of ``realpath(cwd)``; a linked worktree maps to
its main repository, so every worktree and subdirectory of a repository shares one store
and one Claude memory directory. Outside git it is ``realpath(cwd)`` itself, which is a
project only if the user opted it in (``coffer init``; the store decides, not this module).
Only file reads are used (no ``git`` subprocess), and only ``os.path``: this module is on
the no-op path of ``coffer project`` where even importing pathlib costs (docs/adr/0004).
Where volumes may fold case, a root is spelled as the volume stores it (``spelled_on_disk``).
"""

from __future__ import annotations

import os

from coffer.base import platform


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def gitdir_of(dotgit: str) -> str | None:
    # A `.git` *file* holds "gitdir: <path>" (linked worktrees and submodules).
    text = _read(dotgit)
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            target = line[len("gitdir:") :].strip()
            if not target:
                return None
            if not os.path.isabs(target):
                target = os.path.join(os.path.dirname(dotgit), target)
            return os.path.realpath(target)
    return None


def _main_root_of_worktree(work_tree: str, gitdir: str) -> str | None:
    """The main repository root for a linked worktree, or None if ``gitdir`` is not one.

    Claude Code's condition: gitdir is ``<common>/worktrees/<name>``, that directory's
    ``gitdir`` file points back at this worktree's ``.git`` file, and ``<common>`` is named
    ``.git`` (a bare common dir is used as is).
    """
    parent = os.path.dirname(gitdir)
    if os.path.basename(parent) != "worktrees":
        return None
    common = os.path.dirname(parent)
    back = _read(os.path.join(gitdir, "gitdir"))
    if back is None:
        return None
    back = back.strip()
    if not os.path.isabs(back):
        back = os.path.join(gitdir, back)
    # Compared as spelled on disk: a worktree entered as ~/work/WT is the ~/work/wt git
    # recorded, where the volume folds case.
    here = os.path.join(work_tree, ".git")
    if spelled_on_disk(os.path.realpath(back)) != spelled_on_disk(os.path.realpath(here)):
        return None
    if os.path.basename(common) == ".git":
        return os.path.dirname(common)
    return common


def spelled_on_disk(path: str) -> str:
    """``path`` as the volume stores it where volumes may fold case (macOS, Windows), so
    ``/Users/me/Repo`` and ``/users/me/repo`` are one project: one store, one link (issue
    27 point 11). Elsewhere ``path`` itself, for nothing."""
    return platform.on_disk(path) if platform.FOLDS_CASE else path


def git_root_of(start: str) -> str | None:
    """The canonical git root for the directory ``start``, or None outside git."""
    probe = os.path.realpath(start)
    while True:
        dotgit = os.path.join(probe, ".git")
        if os.path.isdir(dotgit):
            return spelled_on_disk(probe)
        if os.path.isfile(dotgit):
            gitdir = gitdir_of(dotgit)
            if gitdir is not None:
                main = _main_root_of_worktree(probe, gitdir)
                if main is not None:
                    return spelled_on_disk(main)
            return spelled_on_disk(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def linked_worktree_of(start: str) -> str | None:
    """The top of the linked worktree holding ``start``, or None (the main worktree, or
    outside git). Its project is the main repository's, but an agent started there reads
    the worktree's own files (its ``AGENTS.md``), which coffer writes too."""
    probe = os.path.realpath(start)
    while True:
        dotgit = os.path.join(probe, ".git")
        if os.path.isdir(dotgit):
            return None
        if os.path.isfile(dotgit):
            gitdir = gitdir_of(dotgit)
            if gitdir is not None and _main_root_of_worktree(probe, gitdir) is not None:
                return spelled_on_disk(probe)
            return None
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def linked_worktrees(root: str) -> list[str]:
    """The tops of the linked worktrees of the repository at ``root``, read from
    ``.git/worktrees/*/gitdir`` (git's own record of them); those gone from disk are left
    out."""
    base = os.path.join(root, ".git", "worktrees")
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    out = []
    for name in names:
        back = _read(os.path.join(base, name, "gitdir"))
        if back is None or not back.strip():
            continue
        top = os.path.dirname(os.path.realpath(back.strip()))
        if os.path.isfile(os.path.join(top, ".git")):
            out.append(top)
    return out


def root_of(start: str) -> str:
    """The canonical project root for the directory ``start`` (string form)."""
    root = git_root_of(start)
    return root if root is not None else spelled_on_disk(os.path.realpath(start))


def in_git(root: str | os.PathLike[str]) -> bool:
    """True if ``root`` (a project root as computed here) is a git repository's root."""
    return git_root_of(os.fspath(root)) == os.fspath(root)


def git_remote(root: str | os.PathLike[str]) -> str | None:
    """The ``origin`` URL from ``<root>/.git/config``, if any (display only)."""
    text = _read(os.path.join(root, ".git", "config"))
    if text is None:
        return None
    in_origin = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            in_origin = line.replace(" ", "") == '[remote"origin"]'
            continue
        if in_origin and line.startswith("url") and "=" in line:
            return line.split("=", 1)[1].strip()
    return None


# The agent session an entry came from (``metadata.origin_session_id``): what an agent puts
# in its hooks' input (a UUID for Claude Code and Codex). Here, beside the project's
# identity, because the session-start no-op already imports this module and must check a
# session id the same way the store does (docs/adr/0048).
MAX_SESSION_ID = 128
_SESSION_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")
SESSION_ID_PATTERN = "[A-Za-z0-9][A-Za-z0-9._:-]{0,127}"  # the same rule, for JSON Schema


def is_session_id(value: object) -> bool:
    """Whether ``value`` can be stored and shown as a session id: 1 to 128 letters, digits,
    ``.``, ``_``, ``:`` or ``-``, starting with a letter or digit. Nothing that could break a
    line of YAML, JSON or markdown, so it is shown and substituted as is."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= MAX_SESSION_ID
        and value[0].isascii()
        and value[0].isalnum()
        and _SESSION_CHARS.issuperset(value)
    )
