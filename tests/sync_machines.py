"""Two machines for the sync tests: two homes and two stores, one project cloned at a
different path on each (its origin written in ssh form on one, https on the other), and a
bare repository as the sync remote."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from coffer.main import main

GIT_ID = ("-c", "user.name=t", "-c", "user.email=t@example.com")


def git(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        ["git", *GIT_ID, *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


class Ran(NamedTuple):
    code: int
    out: str
    err: str


class Machine:
    """One machine: its home, its store, its clone of the project."""

    def __init__(self, base: Path, name: str, project: Path, mp: pytest.MonkeyPatch) -> None:
        self.name = name
        self.home = base / "home"
        self.project = project
        self.mp = mp
        self.env = {
            "HOME": str(self.home),
            "COFFER_HOME": str(base / "coffer-home"),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "CODEX_HOME": str(self.home / ".codex"),
            **{v: str(base / v.lower()) for v in ("XDG_STATE_HOME", "XDG_CONFIG_HOME")},
            **{v: str(base / v.lower()) for v in ("XDG_DATA_HOME", "XDG_CACHE_HOME")},
        }
        (self.home / ".claude").mkdir(parents=True)
        (self.home / ".codex").mkdir(parents=True)

    @property
    def store_root(self) -> Path:
        return Path(self.env["COFFER_HOME"])

    def coffer(self, *args: str, cwd: Path | None = None) -> Ran:
        """``coffer *args`` in this process, as this machine (its environment and cwd)."""
        out, err = io.StringIO(), io.StringIO()
        with self.mp.context() as m:
            for key, value in self.env.items():
                m.setenv(key, value)
            m.chdir(cwd or self.project)
            code = 0
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    main(list(args))
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
        return Ran(code, out.getvalue(), err.getvalue())

    def ok(self, *args: str, cwd: Path | None = None) -> Ran:
        ran = self.coffer(*args, cwd=cwd)
        assert ran.code == 0, (args, ran)
        return ran

    @contextlib.contextmanager
    def environ(self) -> Iterator[None]:
        with self.mp.context() as m:
            for key, value in self.env.items():
                m.setenv(key, value)
            yield

    def memory_dir(self) -> Path:
        """The project's tier directory in this machine's store."""
        dirs = [
            p / "memory"
            for p in (self.store_root / "projects").iterdir()
            if p.name != "0" * 26 and (p / "project.json").exists()
        ]
        assert len(dirs) == 1, dirs
        return dirs[0]

    def claude_memory(self) -> Path:
        from coffer_adapters.claude_code import slug

        return self.home / ".claude" / "projects" / slug(str(self.project)) / "memory"


class World(NamedTuple):
    a: Machine
    b: Machine
    remote: Path
    origin: Path


def make_world(tmp_path: Path, mp: pytest.MonkeyPatch, *, register_b: bool = True) -> World:
    """Two machines with clones of one origin (an ssh URL on A, https on B) and sync set up
    on a bare remote; without ``register_b``, B has never opened the project with coffer."""
    origin = tmp_path / "origin"
    git("init", "-q", "-b", "main", str(origin))
    (origin / "README.md").write_text("app\n")
    git("add", "README.md", cwd=origin)
    git("commit", "-q", "-m", "root", cwd=origin)
    clone_a = tmp_path / "a" / "work" / "app"
    clone_b = tmp_path / "b" / "src" / "app-clone"
    for clone, url in (
        (clone_a, "git@github.com:Me/App.git"),
        (clone_b, "https://github.com/me/app"),
    ):
        git("clone", "-q", str(origin), str(clone))
        git("remote", "set-url", "origin", url, cwd=clone)
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    a = Machine(tmp_path / "a", "a", clone_a, mp)
    b = Machine(tmp_path / "b", "b", clone_b, mp)
    for m in (a, b):
        if m is a or register_b:
            m.ok("project")
        m.ok("sync", "init", str(remote), "--host", m.name)
    return World(a, b, remote, origin)


def remote_objects(remote: Path) -> bytes:
    """Every object the remote holds, concatenated (to prove something never reached it)."""
    done = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=remote,
        capture_output=True,
        check=True,
        timeout=60,
        env={**os.environ, "GIT_DIR": str(remote)},
    )
    return done.stdout
