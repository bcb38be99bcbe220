"""Which project a directory belongs to, computed the way Claude Code computes it.

The project root is the canonical git root of ``realpath(cwd)``; a linked worktree maps to
its main repository, so every worktree and subdirectory of a repository shares one store
and one Claude memory directory. Outside git it is ``realpath(cwd)`` itself.
Only file reads are used (no ``git`` subprocess): this runs on every session start.
See docs/adr/0002-store-layout-and-identity.md.
"""

from __future__ import annotations

import os
from pathlib import Path


def _read_gitdir_file(dotgit: Path) -> Path | None:
    # A `.git` *file* holds "gitdir: <path>" (linked worktrees and submodules).
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            target = line[len("gitdir:") :].strip()
            if not target:
                return None
            path = Path(target)
            if not path.is_absolute():
                path = dotgit.parent / path
            return Path(os.path.realpath(path))
    return None


def _main_root_of_worktree(work_tree: Path, gitdir: Path) -> Path | None:
    """The main repository root for a linked worktree, or None if ``gitdir`` is not one.

    Claude Code's condition: gitdir is ``<common>/worktrees/<name>``, that directory's
    ``gitdir`` file points back at this worktree's ``.git`` file, and ``<common>`` is named
    ``.git`` (a bare common dir is used as is).
    """
    if gitdir.parent.name != "worktrees":
        return None
    common = gitdir.parent.parent
    try:
        back = (gitdir / "gitdir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    back_path = Path(back)
    if not back_path.is_absolute():
        back_path = gitdir / back_path
    if os.path.realpath(back_path) != os.path.realpath(work_tree / ".git"):
        return None
    if common.name == ".git":
        return common.parent
    return common


def project_root(start: Path) -> Path:
    """The canonical project root for ``start`` (a directory or a path inside one)."""
    real = Path(os.path.realpath(start))
    probe = real
    while True:
        dotgit = probe / ".git"
        if dotgit.is_dir():
            return probe
        if dotgit.is_file():
            gitdir = _read_gitdir_file(dotgit)
            if gitdir is not None:
                main = _main_root_of_worktree(probe, gitdir)
                if main is not None:
                    return main
            return probe
        if probe.parent == probe:
            return real
        probe = probe.parent


def git_remote(root: Path) -> str | None:
    """The ``origin`` URL from ``<root>/.git/config``, if any (display only)."""
    config = root / ".git" / "config"
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    in_origin = False
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            in_origin = line.replace(" ", "") in {'[remote"origin"]'}
            continue
        if in_origin and line.startswith("url") and "=" in line:
            return line.split("=", 1)[1].strip()
    return None
