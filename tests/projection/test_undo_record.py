"""Undoing one journal record (the Undo button of `coffer ui`'s State view):
``Engine.undo_record`` and ``unproject.one``. Exactly that record's file comes back, every
other record stays, and no choice is recorded (docs/adr/0056, Amendment)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from coffer.base.errors import InvalidInputError
from coffer.projection import managed_block, unproject
from coffer.store import settings
from coffer.testing import snapshot
from tests.helpers import make_repo, store
from tests.projection.test_engine import claude_dir, engine
from tests.projection.test_undo_tree import tree

ORIGINAL = b"\xef\xbb\xbf# Team rules\r\n\r\nRun the tests.\r\nNo final newline"
WHEN = 1_600_000_000_123_456_789  # an mtime coffer must give back with the bytes


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()  # Claude Code and Codex "installed"
    (fake_home / ".codex").mkdir()
    r = make_repo(tmp_path / "repo")
    (r / "AGENTS.md").write_bytes(ORIGINAL)
    os.utime(r / "AGENTS.md", ns=(WHEN, WHEN))
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    s.remember(s.global_tier(create=True), "Prefer tabs over spaces.", name="tabs")
    return r


def keys() -> set[str]:
    return {r.key for r in engine().journal.load_all()}


def choices() -> tuple[dict[str, bool], list[str]]:
    kept = settings.load(store().root)
    return dict(kept.adapters), list(kept.paused)


def test_a_block_record_gives_the_file_back_byte_for_byte_and_nothing_else(
    repo: Path, fake_home: Path
) -> None:
    agents = repo / "AGENTS.md"
    assert engine().project(repo).ok
    assert agents.read_bytes().startswith(ORIGINAL) and agents.read_bytes() != ORIGINAL
    others = keys() - {str(agents)}
    assert others  # Claude's link and both global blocks are journaled too
    report = engine().undo_record(str(agents))
    assert report.ok, report.problems
    assert [(c.path, c.action) for c in report.changes] == [(agents, "update")]
    assert agents.read_bytes() == ORIGINAL
    assert agents.stat().st_mtime_ns == WHEN
    assert keys() == others
    assert claude_dir(fake_home, repo).is_symlink()
    assert managed_block.START_MARKER in (fake_home / ".codex" / "AGENTS.md").read_text()


def test_a_block_coffer_created_goes_with_its_file(repo: Path) -> None:
    agents = repo / "AGENTS.md"
    agents.unlink()
    engine().project(repo)
    assert agents.is_file()
    report = engine().undo_record(str(agents))
    assert [(c.path, c.action) for c in report.changes] == [(agents, "remove")]
    assert not agents.exists()


def test_a_link_record_gives_the_directory_back(repo: Path, fake_home: Path) -> None:
    native = claude_dir(fake_home, repo)
    native.mkdir(parents=True)
    (native / "role.md").write_text("---\nname: role\ndescription: I am SRE\n---\nSRE\n")
    (native / "notes.txt").write_bytes(b"\x00not a memory\xff")
    before = tree(native)
    engine().project(repo)
    assert native.is_symlink()
    with_block = (repo / "AGENTS.md").read_bytes()
    report = engine().undo_record(str(native))
    assert report.ok, report.problems
    assert [(c.path, c.action) for c in report.changes] == [(native, "restore")]
    assert native.is_dir() and not native.is_symlink()
    after = tree(native)
    assert {k: after[k] for k in before} == before
    # the current memories come along (the undo's promise); nothing else was added
    assert set(after) - set(before) == {"deploy.md", "MEMORY.md"}
    assert str(native) not in keys()
    assert (repo / "AGENTS.md").read_bytes() == with_block  # the other records stay
    # No choice recorded: the next `coffer project` links it again (nothing is lost).
    assert engine().project(repo).ok
    assert native.is_symlink() and {"role.md", "deploy.md"} <= {p.name for p in native.iterdir()}


def test_a_dry_run_says_what_it_would_do_and_changes_nothing(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    engine().project(repo)
    agents, native = repo / "AGENTS.md", claude_dir(fake_home, repo)
    before, recorded = (
        snapshot(tmp_path, tmp_path / "coffer-home"),
        list(engine().journal.records()),
    )
    block = unproject.one(engine(), str(agents), dry_run=True)
    assert [(c.path, c.action) for c in block.changes] == [(agents, "update")]
    assert "-- We deploy with make release. (`deploy`)" in str(block.changes[0].diff)
    link = engine().undo_record(str(native), dry_run=True)
    assert [(c.path, c.action) for c in link.changes] == [(native, "restore")]
    assert snapshot(tmp_path, tmp_path / "coffer-home") == before
    assert list(engine().journal.records()) == recorded


def test_an_unknown_key_is_a_clear_error(repo: Path) -> None:
    engine().project(repo)
    recorded = list(engine().journal.records())
    missing = str(repo / "CLAUDE.md")
    with pytest.raises(
        InvalidInputError, match=re.escape(f"no projection is journaled for {missing}")
    ):
        engine().undo_record(missing)
    with pytest.raises(InvalidInputError, match="no projection is journaled for nothing"):
        unproject.one(engine(), "nothing", dry_run=True)
    assert list(engine().journal.records()) == recorded


def test_a_block_edited_by_hand_is_left_alone_and_kept(repo: Path) -> None:
    agents = repo / "AGENTS.md"
    engine().project(repo)
    edited = agents.read_bytes().replace(b"make release", b"make ship")
    agents.write_bytes(edited)
    report = engine().undo_record(str(agents))
    assert [(p.path, p.state) for p in report.problems] == [(agents, "refused")]
    assert "edited by hand" in report.problems[0].message
    assert report.changes == []
    assert agents.read_bytes() == edited
    assert str(agents) in keys()


def test_text_added_beside_the_block_is_kept(repo: Path) -> None:
    agents = repo / "AGENTS.md"
    engine().project(repo)
    agents.write_bytes(b"# Added since\r\n" + agents.read_bytes())
    report = engine().undo_record(str(agents))
    assert report.ok, report.problems
    assert agents.read_bytes() == b"# Added since\r\n" + ORIGINAL
    assert str(agents) not in keys()


@pytest.mark.needs_symlinks
def test_a_link_someone_replaced_is_left_alone_and_kept(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    native = claude_dir(fake_home, repo)
    engine().project(repo)
    native.unlink()
    (tmp_path / "mine").mkdir()
    native.symlink_to(tmp_path / "mine")
    report = engine().undo_record(str(native))
    assert [(p.path, p.state) for p in report.problems] == [(native, "refused")]
    assert os.readlink(native) == str(tmp_path / "mine")
    assert str(native) in keys()


def test_a_block_removed_by_hand_only_loses_its_record(repo: Path) -> None:
    agents = repo / "AGENTS.md"
    engine().project(repo)
    agents.write_bytes(managed_block.remove(agents.read_bytes()))
    report = engine().undo_record(str(agents))
    assert report.ok and report.changes == []
    assert report.notices == [f"{agents}: the coffer block was already removed"]
    assert str(agents) not in keys()


def test_no_choice_is_recorded_so_the_next_project_writes_the_block_again(repo: Path) -> None:
    # What docs/ui.md says: undoing one record is not `coffer unproject`; a store write
    # leaves the file alone (the watcher refreshes journaled blocks only), the next
    # `coffer project` (every session-start hook) writes the block again.
    agents = repo / "AGENTS.md"
    engine().project(repo)
    chosen = choices()
    engine().undo_record(str(agents))
    assert choices() == chosen
    s = store()
    s.remember(s.project_tier(repo), "Staging is at staging.example.com.", name="staging")
    assert engine().refresh("project", repo).changes == []
    assert agents.read_bytes() == ORIGINAL
    again = engine().project(repo)
    assert agents in [c.path for c in again.changes]
    assert b"(`staging`)" in agents.read_bytes() and str(agents) in keys()


def test_unproject_for_the_agent_keeps_the_block_off(repo: Path) -> None:
    agents = repo / "AGENTS.md"
    engine().project(repo)
    (record,) = [r for r in engine().journal.load_all() if r.key == str(agents)]
    assert engine().unproject(repo, agents=record.adapters).ok
    assert agents.read_bytes() == ORIGINAL
    engine().project(repo)
    assert agents.read_bytes() == ORIGINAL
