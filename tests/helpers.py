from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from coffer.store import Store


def make_repo(path: Path) -> Path:
    """A directory that looks like a git work tree (a `.git` directory), no git needed."""
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text('[remote "origin"]\n\turl = git@example.com:o/r.git\n')
    return path


def make_worktree(main: Path, wt: Path, name: str = "wt") -> Path:
    """A linked worktree of ``main`` laid out as `git worktree add` does, no git needed."""
    admin = main / ".git" / "worktrees" / name
    admin.mkdir(parents=True)
    wt.mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {admin}\n")
    (admin / "gitdir").write_text(f"{wt / '.git'}\n")
    return wt


def store() -> Store:
    return Store.from_environ(os.environ)


def coffer(
    *args: str, cwd: Path | None = None, input: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (the environment is the test's fake home)."""
    return subprocess.run(
        [sys.executable, "-m", "coffer", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
