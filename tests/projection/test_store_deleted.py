"""Issue 10, point 8: deleting the store by hand never strands coffer's changes; `coffer
uninstall` undoes everything and deletes nothing it could not put back."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from coffer.projection import managed_block
from tests.helpers import coffer, store
from tests.projection.test_dir_backups import claude_dir
from tests.projection.test_git import git_files, init_repo, ok
from tests.projection.test_git import home as _git_home  # noqa: F401 (a fixture: git's own config)

pytestmark = pytest.mark.usefixtures("_git_home")

CODEX_CONFIG = b'# mine\nmodel = "o3"\n\n[features]\nmemories = true\n'


@pytest.fixture
def machine(tmp_path: Path, fake_home: Path) -> tuple[Path, dict[Path, bytes | None]]:
    """A repository and the agents' files, projected; with what every file held before."""
    (fake_home / ".gemini").mkdir()
    (fake_home / ".codex" / "config.toml").write_bytes(CODEX_CONFIG)
    repo = init_repo(tmp_path / "repo", {"AGENTS.md": b"# Agents\n\nRun make.\n"})
    files = [
        repo / "AGENTS.md",
        repo / "GEMINI.md",
        fake_home / ".codex" / "config.toml",
        fake_home / ".codex" / "AGENTS.md",
        fake_home / ".claude" / "CLAUDE.md",
        fake_home / ".gemini" / "GEMINI.md",
    ]
    before: dict[Path, bytes | None] = {f: f.read_bytes() if f.exists() else None for f in files}
    before |= {repo / ".git" / k: v for k, v in git_files(repo).items()}
    ok(coffer("remember", "The build uses make release.", "--name", "build", cwd=repo))
    ok(coffer("project", cwd=repo))
    assert b"memories = false" in (fake_home / ".codex" / "config.toml").read_bytes()
    return repo, before


def claude_links(fake_home: Path) -> list[Path]:
    base = fake_home / ".claude" / "projects"
    return [p for p in base.glob("*/memory") if p.is_symlink()] if base.is_dir() else []


def assert_all_back(fake_home: Path, before: dict[Path, bytes | None]) -> None:
    for path, data in before.items():
        now = path.read_bytes() if path.exists() else None
        assert now == data, path
        assert now is None or managed_block.find(now) is None
    assert claude_links(fake_home) == []


def test_unproject_all_after_the_store_was_deleted_by_hand(
    machine: tuple[Path, dict[Path, bytes | None]], fake_home: Path
) -> None:
    repo, before = machine
    assert claude_links(fake_home)
    shutil.rmtree(store().root)
    r = coffer("unproject", "--all", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "nothing to undo" not in r.stdout
    assert_all_back(fake_home, before)


def snapshot(top: Path, skip: Path | None = None) -> dict[str, tuple[str, object, int]]:
    """Every path under ``top`` but ``skip``: kind, bytes or link target, and mode."""
    out: dict[str, tuple[str, object, int]] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if skip is not None and (path == skip or skip in path.parents):
                continue
            st = os.lstat(path)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                out[str(path.relative_to(top))] = ("link", os.readlink(path), 0)
            elif stat.S_ISDIR(st.st_mode):
                out[str(path.relative_to(top))] = ("dir", None, mode)
            else:
                out[str(path.relative_to(top))] = ("file", path.read_bytes(), mode)
    return out


@pytest.mark.needs_symlinks
def test_uninstall_puts_everything_back_then_deletes_the_store(
    tmp_path: Path, fake_home: Path
) -> None:
    (fake_home / ".codex" / "config.toml").write_bytes(CODEX_CONFIG)
    repo = init_repo(tmp_path / "repo", {"AGENTS.md": b"# Agents\n\nRun make.\n"})
    native = claude_dir(fake_home, repo)
    (native / "team").mkdir(parents=True)
    (native / "team" / "notes.txt").write_text("only here\n")
    (native / "a.md").write_text("---\nname: a\ndescription: a\n---\nA\n")
    os.symlink("team/notes.txt", native / "link")
    home_before = snapshot(fake_home, skip=native)
    claude_before = snapshot(native)
    repo_before = {"AGENTS.md": (repo / "AGENTS.md").read_bytes(), **git_files(repo)}
    ok(coffer("setup", "--yes", "--no-service", cwd=repo))
    ok(coffer("remember", "The build uses make release.", "--name", "build", cwd=repo))
    ok(coffer("project", "--hook", cwd=repo))
    assert native.is_symlink()
    ledger = next((tmp_path / "xdg_state_home" / "coffer").iterdir())

    done = coffer("uninstall", "--delete-store", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not store().root.exists() and not ledger.exists()
    assert snapshot(fake_home, skip=native) == home_before
    assert {"AGENTS.md": (repo / "AGENTS.md").read_bytes(), **git_files(repo)} == repo_before
    restored = snapshot(native)
    assert {k: restored[k] for k in claude_before} == claude_before
    assert b"make release" in (native / "build.md").read_bytes()  # the memories stay


def test_uninstall_keeps_the_store_while_anything_could_not_be_put_back(
    tmp_path: Path, fake_home: Path
) -> None:
    repo = init_repo(tmp_path / "repo", {"AGENTS.md": b"# Agents\n"})
    native = claude_dir(fake_home, repo)
    native.mkdir(parents=True)
    (native / "a.md").write_text("---\nname: a\ndescription: a\n---\nthe original\n")
    ok(coffer("project", cwd=repo))
    # An agent rewrote the memory since: the original is only in the store's backup.
    (native / "a.md").write_text("---\nname: a\ndescription: a\n---\nrewritten\n")
    done = coffer("uninstall", "--delete-store", cwd=repo)
    assert done.returncode == 1
    out = done.stdout + done.stderr
    assert "only in the store" in out and "a.md" in out and "do not delete" in out
    assert store().root.is_dir()
    backup = next((store().root / "backups" / "dirs").iterdir())
    assert "the original" in (backup / "a.md").read_text()
    assert (native / "a.md").read_text().endswith("rewritten\n")  # undone all the same
    assert not native.is_symlink()


def test_a_journal_from_before_the_ledger_is_copied_to_it(
    machine: tuple[Path, dict[Path, bytes | None]], fake_home: Path, tmp_path: Path
) -> None:
    repo, before = machine
    shutil.rmtree(tmp_path / "xdg_state_home" / "coffer")  # as an older coffer left it
    ok(coffer("remember", "A second fact.", "--name", "second", cwd=repo))
    ok(coffer("project", cwd=repo))  # a full run: the ledger is filled in
    shutil.rmtree(store().root)
    ok(coffer("unproject", "--all", cwd=repo))
    assert_all_back(fake_home, before)


def test_store_and_ledger_both_deleted_coffer_finds_its_changes_by_markers(
    machine: tuple[Path, dict[Path, bytes | None]], fake_home: Path, tmp_path: Path
) -> None:
    repo, before = machine
    shutil.rmtree(store().root)
    shutil.rmtree(tmp_path / "xdg_state_home" / "coffer")
    r = coffer("unproject", "--all", cwd=repo)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "by their markers" in out
    assert claude_links(fake_home) == []
    for path, data in before.items():
        now = path.read_bytes() if path.exists() else None
        if path.name == "config.toml":
            # No pre-image survives: coffer says so and guesses nothing.
            assert b"memories = false" in (now or b"") and str(path) in out
        elif ".git" in path.parts:  # coffer's lines there are said, not guessed at
            assert data == now or str(path) in out, path
        else:
            assert now is None or managed_block.find(now) is None, path
            if data is not None:
                assert now == data, path
