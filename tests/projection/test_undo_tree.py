"""Issue 10, point 7: undo brings back Claude's whole original directory, not only its
top-level memory files, so deleting the store afterwards loses nothing."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo, store
from tests.projection.test_dir_backups import claude_dir


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    return make_repo(tmp_path / "repo")


def tree(top: Path) -> dict[str, tuple[str, object, int]]:
    """Every path under ``top``: its kind, content (bytes or link target) and mode."""
    out: dict[str, tuple[str, object, int]] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            rel = str(path.relative_to(top))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path), 0)
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", None, stat.S_IMODE(st.st_mode))
            else:
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(st.st_mode))
    return out


def run(*args: str, cwd: Path) -> None:
    r = coffer(*args, cwd=cwd)
    assert r.returncode == 0, (args, r.stdout, r.stderr)


def make_original(native: Path, outside: Path) -> None:
    (native / "team" / "deep").mkdir(parents=True)
    (native / "team" / "shared.md").write_text("only here: never merged\n")
    (native / "team" / "deep" / "notes.txt").write_bytes(b"\x00binary\xff")
    os.chmod(native / "team" / "deep" / "notes.txt", 0o640)
    os.chmod(native / "team" / "deep", 0o750)
    (native / "role.md").write_text("---\nname: role\ndescription: I am SRE\n---\nSRE\n")
    os.chmod(native / "role.md", 0o644)
    outside.write_text("kept elsewhere\n")
    os.symlink(outside, native / "elsewhere.md")
    os.symlink("team/shared.md", native / "relative-link")
    os.symlink("nowhere/at/all", native / "dangling")
    os.symlink("../shared.md", native / "team" / "deep" / "up")


@pytest.mark.posix_only("POSIX permission bits")
@pytest.mark.needs_symlinks
def test_undo_restores_subfolders_links_and_modes_byte_exact(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    native = claude_dir(fake_home, repo)
    make_original(native, tmp_path / "outside.md")
    os.chmod(native, 0o755)
    before = tree(native)
    run("project", cwd=repo)
    assert native.is_symlink()
    run("unproject", cwd=repo)
    assert not native.is_symlink() and native.is_dir()
    after = tree(native)
    # The store's MEMORY.md is added by design (the current memories); all else is exact.
    after.pop("MEMORY.md")
    assert after == before
    assert stat.S_IMODE(os.stat(native).st_mode) == 0o755
    # The README's uninstall: unproject, then delete the store. Nothing of the user's goes.
    shutil.rmtree(store().root)
    assert {k: v for k, v in tree(native).items() if k != "MEMORY.md"} == before


@pytest.mark.needs_symlinks
def test_a_name_taken_since_is_reported_and_nothing_is_overwritten(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    native = claude_dir(fake_home, repo)
    make_original(native, tmp_path / "outside.md")
    before = tree(native)
    run("project", cwd=repo)
    # Since then, a file called like the original subfolder was written into the link.
    (native / "team").write_text("a new file named team\n")
    r = coffer("unproject", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "team.coffer-original" in r.stdout + r.stderr
    assert (native / "team").read_text() == "a new file named team\n"
    restored = tree(native / "team.coffer-original")
    original = {k[len("team/") :]: v for k, v in before.items() if k.startswith("team/")}
    assert restored == original


@pytest.mark.needs_symlinks
def test_project_unproject_cycles_with_subfolders_add_no_backup(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    native = claude_dir(fake_home, repo)
    make_original(native, tmp_path / "outside.md")
    before = tree(native)
    run("project", cwd=repo)
    dirs = store().root / "backups" / "dirs"
    first = sorted(os.listdir(dirs))
    for _ in range(3):
        run("unproject", cwd=repo)
        run("project", "--resume", cwd=repo)
        assert sorted(os.listdir(dirs)) == first
    run("unproject", cwd=repo)
    assert {k: v for k, v in tree(native).items() if k != "MEMORY.md"} == before
