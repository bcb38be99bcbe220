"""Issue 9, point 9: Claude's directory backups stay bounded; its modes come back on undo."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo, store


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    return make_repo(tmp_path / "repo")


def claude_dir(home: Path, root: Path) -> Path:
    from coffer_adapters.claude_code import slug

    return home / ".claude" / "projects" / slug(str(root)) / "memory"


def backups() -> dict[str, dict[str, bytes]]:
    """backups/dirs as {backup name: {relative path: bytes}}."""
    base = store().root / "backups" / "dirs"
    if not base.is_dir():
        return {}
    return {
        d.name: {str(p.relative_to(d)): p.read_bytes() for p in d.rglob("*") if p.is_file()}
        for d in sorted(base.iterdir())
    }


def run(*args: str, cwd: Path) -> None:
    r = coffer(*args, cwd=cwd)
    assert r.returncode == 0, (args, r.stdout, r.stderr)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_unproject_resume_cycles_do_not_grow_backups_and_keep_the_only_copies(
    repo: Path, fake_home: Path
) -> None:
    native = claude_dir(fake_home, repo)
    (native / "team").mkdir(parents=True)
    (native / "team" / "shared.md").write_text("only here: never merged\n")
    (native / "role.md").write_text("---\nname: role\ndescription: I am SRE\n---\nSRE\n")
    (native / "MEMORY.md").write_text("# Memory Index\n\n- [role](role.md) — I am SRE\n")
    originals = {
        str(p.relative_to(native)): p.read_bytes() for p in native.rglob("*") if p.is_file()
    }
    run("project", cwd=repo)
    first = backups()
    assert list(first.values()) == [originals]  # the user's directory, whole

    for _ in range(4):
        run("unproject", cwd=repo)
        assert native.is_dir() and not native.is_symlink()
        run("project", "--resume", cwd=repo)
        assert native.is_symlink()
        # The user's directory stays whole, and coffer's own copy of the store adds nothing.
        assert backups() == first

    # While paused, the agent writes something new: that is user data, and it is kept.
    run("unproject", cwd=repo)
    (native / "late.md").write_text(
        "---\nname: late\ndescription: late\n---\nwritten while paused\n"
    )
    run("project", "--resume", cwd=repo)
    now = backups()
    assert len(now) == len(first) + 1 and {k: now[k] for k in first} == first
    (added,) = (v for k, v in now.items() if k not in first)
    # the tier's copy has since gained its provenance (docs/adr/0051); the text is the same
    late = (store().project_tier(repo).dir / "late.md").read_bytes()
    assert list(added) == ["late.md"] and b"written while paused" in late
    assert added["late.md"] == b"---\nname: late\ndescription: late\n---\nwritten while paused\n"

    def cycle() -> dict[str, dict[str, bytes]]:
        run("unproject", cwd=repo)
        run("project", "--resume", cwd=repo)
        return backups()

    assert cycle() == now and cycle() == now


def test_a_directory_the_store_already_holds_is_reported_not_backed_up(
    repo: Path, fake_home: Path
) -> None:
    run("project", cwd=repo)
    run("unproject", cwd=repo)
    r = coffer("project", "--resume", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "the store already held every file of the directory; no backup needed" in r.stdout
    assert backups() == {}


@pytest.mark.posix_only("POSIX permission bits")
def test_restored_directory_gets_back_the_users_modes(repo: Path, fake_home: Path) -> None:
    native = claude_dir(fake_home, repo)
    native.mkdir(parents=True)
    (native / "role.md").write_text("---\nname: role\ndescription: r\n---\nSRE\n")
    (native / "odd.md").write_text("---\nname: odd\ndescription: o\n---\nodd\n")
    os.chmod(native, 0o755)
    os.chmod(native / "role.md", 0o644)
    os.chmod(native / "odd.md", 0o640)
    run("project", cwd=repo)
    assert mode(store().project_tier(repo).dir) == 0o700  # the store itself stays private
    run("remember", "Added while linked.", "--name", "added", cwd=repo)
    run("unproject", cwd=repo)
    assert not native.is_symlink()
    assert mode(native) == 0o755
    assert mode(native / "role.md") == 0o644
    assert mode(native / "odd.md") == 0o640
    assert mode(native / "added.md") == 0o644  # new: the usual mode (a tie: the more open)


@pytest.mark.posix_only("POSIX permission bits")
def test_a_directory_coffer_created_comes_back_with_umask_modes(
    repo: Path, fake_home: Path
) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    run("remember", "A fact.", "--name", "fact", cwd=repo)
    run("project", cwd=repo)  # no directory before: coffer created the link
    run("unproject", cwd=repo)
    native = claude_dir(fake_home, repo)
    assert mode(native) == 0o777 & ~umask  # what Claude Code would have created
    assert mode(native / "fact.md") == 0o666 & ~umask
