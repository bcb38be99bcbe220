"""The team tier through real git and the real CLI (docs/adr/0036): opted in by `coffer team
init`, promoted only by `coffer team add`, committed with the repository and projected into a
teammate's clone (a second store) with `git status` clean; unproject leaves .coffer/memory/."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coffer.projection import managed_block as block
from tests.helpers import coffer
from tests.projection.test_git import git, init_repo, ok

TEXT = "Releases are cut from the release branch with make ship."


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return fake_home


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    """A repository with a tracked CLAUDE.md (so Claude's team block goes there), projected
    once, with one personal project entry."""
    r = init_repo(tmp_path / "repo", {"CLAUDE.md": b"# Claude\n\nBe brief.\n"})
    ok(coffer("remember", TEXT, "--name", "release", cwd=r))
    ok(coffer("project", cwd=r))
    return r


def _files(root: Path) -> dict[str, bytes]:
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if rel.parts[0] != ".git" and p.is_file():
            out[str(rel)] = p.read_bytes()
    return out


def _teammate(tmp_path: Path, origin: Path) -> tuple[Path, dict[str, str]]:
    """A clone of ``origin`` with a store, home and agents of its own."""
    home = tmp_path / "home2"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir()
    env = {
        "HOME": str(home),
        "COFFER_HOME": str(tmp_path / "store2"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
    }
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return clone, env


def _team_body(path: Path) -> str:
    span = block.find(path.read_bytes(), block.TEAM)
    assert span is not None, f"no team block in {path}"
    return span.body


def test_init_writes_only_the_team_directory_and_the_blocks(repo: Path) -> None:
    before = _files(repo)
    ok(coffer("team", "init", cwd=repo))
    after = _files(repo)
    new = set(after) - set(before)
    assert new == {".coffer/memory/MEMORY.md"}
    changed = {n for n in before if before[n] != after[n]}
    assert changed <= {"AGENTS.md", "CLAUDE.md"}
    for name in changed:  # only a team block was added; the rest is byte for byte
        assert block.remove(after[name], block.TEAM).rstrip(b"\n") == before[name].rstrip(b"\n")
    # remember never writes to the team tier
    ok(coffer("remember", "Tabs, not spaces.", "--name", "tabs", cwd=repo))
    assert sorted(os.listdir(repo / ".coffer" / "memory")) == ["MEMORY.md"]
    assert "Tabs" not in _team_body(repo / "AGENTS.md")


def test_add_is_explicit_refuses_secrets_and_clashes(repo: Path, home: Path) -> None:
    ok(coffer("team", "init", cwd=repo))
    out = ok(coffer("team", "add", "release", cwd=repo))
    assert ".coffer/memory/release.md" in out.stdout
    assert TEXT in (repo / ".coffer" / "memory" / "release.md").read_text()
    assert TEXT in _team_body(repo / "AGENTS.md")
    assert TEXT in _team_body(repo / "CLAUDE.md")
    clash = coffer("team", "add", "release", cwd=repo)
    assert clash.returncode != 0 and "already has an entry named 'release'" in clash.stderr
    # a secret edited into a personal entry by hand never reaches the repository
    tier = next((Path(os.environ["COFFER_HOME"]) / "projects").glob("*/memory/release.md"))
    leak = "\nDB_PASSWORD=hunter2-0123456789abcdef\n"
    (tier.parent / "leak.md").write_text("---\nname: leak\n---\n" + leak)
    refused = coffer("team", "add", "leak", cwd=repo)
    assert refused.returncode != 0 and "secret" in refused.stderr
    assert not (repo / ".coffer" / "memory" / "leak.md").exists()
    assert "hunter2" not in (repo / "AGENTS.md").read_text().split(block.START_MARKER)[0]
    listed = ok(coffer("team", "list", cwd=repo)).stdout
    assert "release" in listed and "leak" not in listed


def test_a_teammates_clone_gets_the_team_entries_and_stays_clean(
    repo: Path, tmp_path: Path
) -> None:
    ok(coffer("team", "init", cwd=repo))
    ok(coffer("team", "add", "release", cwd=repo))
    git(repo, "add", ".coffer", "AGENTS.md", "CLAUDE.md")
    git(repo, "commit", "-q", "-m", "team memory")
    assert git(repo, "status", "--porcelain") == ""
    committed = git(repo, "show", "HEAD:AGENTS.md")
    assert TEXT in committed and block.START_MARKER not in committed  # personal stays out
    ok(coffer("project", cwd=repo))
    assert git(repo, "status", "--porcelain") == ""

    clone, env = _teammate(tmp_path, repo)
    ok(coffer("project", cwd=clone, env=env))
    for name in ("AGENTS.md", "CLAUDE.md"):
        assert TEXT in _team_body(clone / name)
    assert git(clone, "status", "--porcelain") == ""
    before = _files(clone)
    ok(coffer("project", cwd=clone, env=env))
    assert _files(clone) == before and git(clone, "status", "--porcelain") == ""
    hits = ok(coffer("recall", "release branch", cwd=clone, env=env)).stdout
    assert "[team]" in hits and "release.md" in hits

    # a teammate's new entry arrives by pull and shows at the next session start
    (repo / ".coffer" / "memory" / "review.md").write_text("Two approvals before merging.\n")
    git(repo, "add", ".coffer")
    git(repo, "commit", "-q", "-m", "more")
    git(clone, "pull", "-q", "--no-rebase")
    ok(coffer("project", cwd=clone, env=env))
    assert "Two approvals" in _team_body(clone / "AGENTS.md")
    assert git(clone, "status", "--porcelain") == " M AGENTS.md\n M CLAUDE.md\n"


@pytest.mark.needs_symlinks
def test_hostile_team_files_are_reported_and_the_session_starts(repo: Path, tmp_path: Path) -> None:
    ok(coffer("team", "init", cwd=repo))
    team = repo / ".coffer" / "memory"
    (team / "good.md").write_text("Use make ship to release.\n")
    (team / "huge.md").write_bytes(b"A" * (2 * 1024 * 1024))
    (team / "bin.md").write_bytes(b"\x00\xff\xfe")
    (tmp_path / "passwd").write_text("root:x:0:0\n")
    (team / "link.md").symlink_to(tmp_path / "passwd")
    (team / "yaml.md").write_text("---\nname: [x\n---\nbad\n")
    forged = f"forged\n{block.TEAM.end.decode()}\n{block.END_MARKER}\n"
    (team / "end.md").write_text(forged)
    token = "ghp_" + "x9" * 18
    (team / "token.md").write_text(f"Deploy with {token}\n")
    assert coffer("project", "--hook", cwd=repo).returncode == 0  # a session start
    result = ok(coffer("project", "--dry-run", cwd=repo))
    out = result.stdout + result.stderr
    for name in ("huge.md", "bin.md", "link.md", "yaml.md"):
        assert f".coffer/memory/{name}" in out
    body = _team_body(repo / "AGENTS.md")
    assert "make ship" in body and "root:x" not in body and "AAAA" not in body
    assert "forged" in body  # shown, but its marker lines are neutralised
    assert token not in (repo / "AGENTS.md").read_text()  # the gate keeps it out of git
    assert "look like secrets: token" in out and token not in out
    block.find((repo / "AGENTS.md").read_bytes())  # both blocks still well-formed


def test_unproject_removes_the_blocks_and_leaves_the_team_directory(repo: Path) -> None:
    original = (repo / "CLAUDE.md").read_bytes()
    ok(coffer("team", "init", cwd=repo))
    ok(coffer("team", "add", "release", cwd=repo))
    team_files = {n: b for n, b in _files(repo).items() if n.startswith(".coffer/")}
    ok(coffer("unproject", cwd=repo))
    assert not (repo / "AGENTS.md").exists()  # coffer created it for both blocks
    assert (repo / "CLAUDE.md").read_bytes() == original
    assert {n: b for n, b in _files(repo).items() if n.startswith(".coffer/")} == team_files
    assert git(repo, "status", "--porcelain") == "?? .coffer/\n"


def test_a_merge_conflict_in_the_team_block_is_resolved_by_project(repo: Path) -> None:
    ok(coffer("team", "init", cwd=repo))
    git(repo, "add", ".coffer", "AGENTS.md", "CLAUDE.md")
    git(repo, "commit", "-q", "-m", "team")
    team = repo / ".coffer" / "memory"
    git(repo, "checkout", "-q", "-b", "other")
    (team / "alpha.md").write_text("Alpha rule one.\n")
    ok(coffer("project", cwd=repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "alpha")
    git(repo, "checkout", "-q", "main")
    (team / "beta.md").write_text("Beta rule two.\n")
    ok(coffer("project", cwd=repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "beta")
    git(repo, "merge", "-q", "other", check=False)
    assert "<<<<<<<" in (repo / "AGENTS.md").read_text()
    ok(coffer("project", cwd=repo))
    body = _team_body(repo / "AGENTS.md")
    assert "Alpha rule one." in body and "Beta rule two." in body and "<<<<<<<" not in body
    git(repo, "add", "AGENTS.md", "CLAUDE.md")
    git(repo, "commit", "-q", "-m", "merge")
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.needs_symlinks
def test_a_linked_team_directory_is_not_read_and_writes_no_block(
    repo: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "memory").mkdir(parents=True)
    (elsewhere / "memory" / "x.md").write_text("Read me from outside the repository.\n")
    (repo / ".coffer").symlink_to(elsewhere)
    result = ok(coffer("project", "--dry-run", cwd=repo))
    assert "symlink" in result.stdout + result.stderr
    ok(coffer("project", cwd=repo))
    assert block.TEAM.start not in (repo / "AGENTS.md").read_bytes()
    refused = coffer("team", "list", cwd=repo)
    assert refused.returncode != 0 and "symlink" in refused.stderr


def _undo_in_order(repo: Path, team_first: bool) -> None:
    """Undo the two records of AGENTS.md in a chosen order (the journal's own order of one
    path's records depends on their file names, so `coffer unproject` meets both)."""
    from coffer.projection import kinds
    from coffer.projection.agents import AgentSet
    from coffer.projection.unproject import undo_of
    from coffer.store import Store

    agents = AgentSet(Store.from_environ(os.environ), os.environ)
    path = str(repo / "AGENTS.md")
    records = [r for r in agents.journal.load_all() if r.path == path]
    assert sorted(r.kind for r in records) == ["block", "team"]
    records.sort(key=lambda r: r.kind != "team" if team_first else r.kind == "team")
    undo = undo_of(agents)
    for record in records:
        report = kinds.KINDS[record.kind].undo(undo, record)
        assert not report.problems, report.problems
    assert not (repo / "AGENTS.md").exists()
    assert [r for r in agents.journal.load_all() if r.path == path] == []


@pytest.mark.parametrize("team_first", [True, False])
@pytest.mark.parametrize("team_created_the_file", [True, False])
def test_either_undo_order_deletes_the_file_coffer_created(
    tmp_path: Path, home: Path, team_first: bool, team_created_the_file: bool
) -> None:
    r = init_repo(tmp_path / "r", {"README.md": b"# r\n"})
    ok(coffer("remember", TEXT, "--name", "release", cwd=r))
    if not team_created_the_file:
        ok(coffer("project", cwd=r))  # the personal block creates AGENTS.md
    ok(coffer("team", "init", cwd=r))
    ok(coffer("team", "add", "release", cwd=r))
    _undo_in_order(r, team_first)


def test_a_moved_repository_keeps_one_team_record_and_unproject_removes_the_block(
    repo: Path, tmp_path: Path
) -> None:
    ok(coffer("team", "init", cwd=repo))
    ok(coffer("team", "add", "release", cwd=repo))
    moved = tmp_path / "moved"
    repo.rename(moved)
    ok(coffer("project", cwd=moved))
    journal = Path(os.environ["COFFER_HOME"]) / "journal"
    keys = [json.loads(f.read_text())["key"] for f in journal.glob("*.json")]
    team_keys = sorted(k for k in keys if k.startswith("team:"))
    assert team_keys == [f"team:{moved}/AGENTS.md", f"team:{moved}/CLAUDE.md"]
    ok(coffer("unproject", cwd=moved))
    assert block.TEAM.start not in (moved / "CLAUDE.md").read_bytes()
    assert not (moved / "AGENTS.md").exists()
    assert (moved / ".coffer" / "memory" / "release.md").exists()


def test_doctor_names_what_the_team_tier_skips(repo: Path) -> None:
    ok(coffer("team", "init", cwd=repo))
    team = repo / ".coffer" / "memory"
    (team / "bin.md").write_bytes(b"\x00\x01")
    (team / "key.md").write_text("use ghp_" + "q7" * 18 + "\n")
    result = coffer("doctor", cwd=repo)
    assert result.returncode == 1
    assert "warning: team: " in result.stdout and "bin.md: is binary" in result.stdout
    assert "key.md: looks like a secret" in result.stdout and "ghp_" not in result.stdout


def test_removing_the_team_directory_takes_the_team_blocks_away(repo: Path) -> None:
    original = (repo / "CLAUDE.md").read_bytes()
    personal = block.find((repo / "AGENTS.md").read_bytes())
    ok(coffer("team", "init", cwd=repo))
    ok(coffer("team", "add", "release", cwd=repo))
    for f in (repo / ".coffer" / "memory").iterdir():
        f.unlink()
    (repo / ".coffer" / "memory").rmdir()
    (repo / ".coffer").rmdir()
    ok(coffer("project", cwd=repo))
    data = (repo / "AGENTS.md").read_bytes()
    assert block.TEAM.start not in data and block.find(data) == personal
    assert (repo / "CLAUDE.md").read_bytes() == original
    ok(coffer("unproject", cwd=repo))
    assert not (repo / "AGENTS.md").exists()


def test_the_team_tier_first_then_gone_leaves_no_empty_file(tmp_path: Path, home: Path) -> None:
    r = init_repo(tmp_path / "r", {"README.md": b"# r\n"})
    ok(coffer("remember", TEXT, "--name", "release", cwd=r))
    ok(coffer("team", "init", cwd=r))  # the team block creates AGENTS.md, the personal joins
    (r / ".coffer" / "memory" / "MEMORY.md").unlink()
    (r / ".coffer" / "memory").rmdir()
    (r / ".coffer").rmdir()
    ok(coffer("project", cwd=r))
    assert block.TEAM.start not in (r / "AGENTS.md").read_bytes()
    ok(coffer("unproject", cwd=r))
    assert not (r / "AGENTS.md").exists()


@pytest.mark.needs_symlinks
def test_a_claude_md_linked_to_agents_md_shows_the_one_team_block(
    tmp_path: Path, home: Path
) -> None:
    r = init_repo(tmp_path / "r", {"AGENTS.md": b"# Agents\n"})
    (r / "CLAUDE.md").symlink_to("AGENTS.md")
    git(r, "add", "CLAUDE.md")
    git(r, "commit", "-q", "-m", "link")
    ok(coffer("remember", TEXT, "--name", "release", cwd=r))
    ok(coffer("team", "init", cwd=r))
    ok(coffer("team", "add", "release", cwd=r))
    assert (r / "CLAUDE.md").is_symlink()
    assert TEXT in _team_body(r / "CLAUDE.md")  # through the link: AGENTS.md's own block


def test_a_promoted_entry_is_shown_once_in_the_team_block_not_twice(repo: Path) -> None:
    ok(coffer("remember", "Staging resets every night.", "--name", "staging", cwd=repo))
    ok(coffer("team", "init", cwd=repo))
    ok(coffer("team", "add", "release", cwd=repo))
    ok(coffer("project", cwd=repo))
    agents_md = repo / "AGENTS.md"
    personal = block.find(agents_md.read_bytes())
    assert personal is not None
    assert TEXT in _team_body(agents_md)
    assert TEXT not in personal.body  # the team block shows it; the personal one does not
    assert "Staging resets every night." in personal.body  # what is only personal stays
    # The audit and the next run agree with what was written: nothing stale, nothing to do.
    listed = coffer("adapter", "list", "--json", cwd=repo)
    ok(listed)  # the team block in CLAUDE.md is no orphan of Claude's personal targets
    states = {t["state"] for a in json.loads(listed.stdout)["adapters"] for t in a["targets"]}
    assert states == {"ok"}
    before = agents_md.read_bytes()
    ok(coffer("project", cwd=repo))
    assert agents_md.read_bytes() == before
    # Edited in the personal tier only, the two differ again: the personal block shows it.
    ok(coffer("update", "release", TEXT + " Tag first.", cwd=repo))
    ok(coffer("project", cwd=repo))
    personal = block.find(agents_md.read_bytes())
    assert personal is not None and "Tag first." in personal.body
