"""A damaged journal record blocks only its own undo (issue 10, point 6).

Driven through the CLI: project, damage one record file, then `coffer unproject` must undo
everything else, name the damaged record with what it could not restore and how to do it
by hand, and `coffer doctor` must report the damage. A pre-image is never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo, store
from tests.projection.test_engine import CODEX_CONFIG, claude_dir
from tests.projection.test_git import init_repo

AGENTS_MD = b"# Team rules\n\nRun the tests before pushing.\n"


@pytest.fixture
def home(fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    (fake_home / ".codex" / "config.toml").write_bytes(CODEX_CONFIG)
    return fake_home


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    r = make_repo(tmp_path / "repo")
    (r / "AGENTS.md").write_bytes(AGENTS_MD)
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    s.remember(s.global_tier(create=True), "Prefer tabs.", name="tabs", type="feedback")
    done = coffer("project", cwd=r)
    assert done.returncode == 0, done.stderr
    assert b"memories = false" in (home / ".codex" / "config.toml").read_bytes()
    return r


def record_file(path: Path | str, kind: str | None = None) -> Path:
    journal = store().root / "journal"
    for f in journal.glob("*.json"):
        rec = json.loads(f.read_text())
        if rec["path"] == str(path) and (kind is None or rec["kind"] == kind):
            return f
    raise AssertionError(f"no record for {path}")


def truncate(f: Path) -> None:
    f.write_bytes(f.read_bytes()[:-40])  # the end of the record is lost


def not_json(f: Path) -> None:
    f.write_bytes(b"\x00\xffgarbage")


def missing_key(f: Path) -> None:
    rec = json.loads(f.read_text())
    del rec["adapters"]
    f.write_text(json.dumps(rec))


def wrong_type(f: Path) -> None:
    rec = json.loads(f.read_text())
    rec["adapters"] = "codex"
    rec["before_sha256"] = 42
    f.write_text(json.dumps(rec))


def a_list(f: Path) -> None:
    f.write_text("[1, 2, 3]\n")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated": truncate,
    "not-json": not_json,
    "missing-key": missing_key,
    "wrong-type": wrong_type,
    "not-an-object": a_list,
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_one_damaged_record_does_not_block_the_rest(repo, home, damage):
    bad = record_file(repo / "AGENTS.md")
    DAMAGE[damage](bad)
    r = coffer("unproject", "--all", cwd=repo)
    assert r.returncode == 1
    # Everything else was undone: Codex memory is back on, Claude's link is a directory.
    assert (home / ".codex" / "config.toml").read_bytes() == CODEX_CONFIG
    link = claude_dir(home, repo)
    assert link.is_dir() and not link.is_symlink()
    assert not (home / ".claude" / "CLAUDE.md").exists()
    # The damaged one is named, with what was not restored and how to do it by hand.
    out = r.stdout + r.stderr
    assert str(bad) in out
    assert "damaged" in out and "by hand" in out and "delete the record file" in out
    assert "coffer:memory:start" in out
    if damage not in ("not-json", "not-an-object"):  # the path is still legible
        assert str(repo / "AGENTS.md") in out
    # Its file is left exactly as it was: nothing was guessed, nothing forgotten.
    assert bad.exists()
    assert b"<!-- coffer:memory:start" in (repo / "AGENTS.md").read_bytes()
    doc = coffer("doctor", cwd=repo)
    assert doc.returncode == 1
    assert "journal" in doc.stdout and str(bad) in doc.stdout


def test_damaged_codex_record_is_reported_for_agent_undo(repo, home):
    bad = record_file(home / ".codex" / "config.toml", "native")
    truncate(bad)
    r = coffer("unproject", "--agent", "codex", cwd=repo)
    assert r.returncode == 1
    out = r.stdout + r.stderr
    assert "switched back on" in out and str(bad) in out
    # Never guessed: the switch stays as coffer left it.
    assert b"memories = false" in (home / ".codex" / "config.toml").read_bytes()
    # The project's own blocks for Codex were still undone.
    assert b"<!-- coffer:memory:start" not in (repo / "AGENTS.md").read_bytes()


def test_project_leaves_a_path_with_a_damaged_record_alone(repo, home):
    bad = record_file(repo / "AGENTS.md")
    not_json(bad)
    agents_md = (repo / "AGENTS.md").read_bytes()
    s = store()
    s.remember(s.project_tier(repo), "Another fact.", name="another")
    s.remember(s.global_tier(), "A global fact.", name="global-fact")
    r = coffer("project", cwd=repo)
    assert r.returncode == 1
    assert f"damaged: {repo / 'AGENTS.md'}" in r.stdout + r.stderr
    # Not written over with a guessed pre-image; the file it guards is left alone.
    assert bad.read_bytes() == b"\x00\xffgarbage"
    assert (repo / "AGENTS.md").read_bytes() == agents_md
    # Every other path is still projected.
    assert "A global fact" in (home / ".claude" / "CLAUDE.md").read_text()


def test_missing_backup_falls_back_to_the_recorded_values(repo, home):
    rec = json.loads(record_file(home / ".codex" / "config.toml", "native").read_text())
    (store().root / "backups" / f"{rec['before_sha256']}.bak").unlink()
    doc = coffer("doctor", cwd=repo)
    assert doc.returncode == 1 and "backup" in doc.stdout
    r = coffer("unproject", "--all", cwd=repo)
    assert r.returncode == 0, r.stdout + r.stderr
    # The switch is restored from the values the record keeps, byte for byte here.
    assert (home / ".codex" / "config.toml").read_bytes() == CODEX_CONFIG
    assert (repo / "AGENTS.md").read_bytes() == AGENTS_MD


def test_git_records_are_valid_and_a_damaged_one_blocks_only_itself(tmp_path, home, monkeypatch):
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = init_repo(tmp_path / "gitrepo", {"AGENTS.md": AGENTS_MD})
    assert coffer("remember", "Build with make.", "--name", "build", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    journal = store().root / "journal"
    kinds = {f: json.loads(f.read_text())["kind"] for f in journal.glob("*.json")}
    git = [f for f, kind in kinds.items() if kind.startswith("git-")]
    assert git, "the project's blocks are hidden from git through journaled git files"
    doc = coffer("doctor", cwd=repo)
    assert "journal" not in doc.stdout, doc.stdout  # every kind of record coffer writes is valid
    bad = git[0]
    rec = json.loads(bad.read_text())
    del rec["users"]
    bad.write_text(json.dumps(rec))
    r = coffer("unproject", "--all", cwd=repo)
    assert r.returncode == 1
    out = r.stdout + r.stderr
    assert str(bad) in out and "by hand" in out
    assert (home / ".codex" / "config.toml").read_bytes() == CODEX_CONFIG
    assert (repo / "AGENTS.md").read_bytes() == AGENTS_MD
