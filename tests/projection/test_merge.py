"""The first `coffer project` over an existing Claude memory directory, through the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coffer.store import entry
from tests.helpers import coffer, make_repo, store

NATIVE_INDEX = (
    "# Memory Index\n"
    "\n"
    "- [Deploy](deploy.md) — how we ship\n"
    "- [User role](user_role.md) — I am an SRE\n"
    "- [Tests](./feedback_tests.md) — run them with -x\n"
    "- Remember: CI is flaky on Mondays\n"
)


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    r = make_repo(tmp_path / "repo")
    s = store()
    s.remember(s.project_tier(r, create=True), "We deploy with make release.", name="deploy")
    return r


def native_dir(home: Path, root: Path) -> Path:
    from coffer_adapters.claude_code import slug

    d = home / ".claude" / "projects" / slug(str(root)) / "memory"
    d.mkdir(parents=True)
    (d / "deploy.md").write_text("---\nname: deploy\ndescription: how we ship\n---\nTag, push.\n")
    (d / "user_role.md").write_text(
        "---\nname: user role\ndescription: I am an SRE\nmetadata:\n  type: user\n---\nSRE.\n"
    )
    (d / "feedback_tests.md").write_text(
        "---\nname: deploy\ndescription: run tests with -x\n---\nAlways -x.\n"
    )
    (d / "MEMORY.md").write_text(NATIVE_INDEX)
    return d


def index_lines(root: Path) -> list[str]:
    tier = store().project_tier(root)
    assert tier is not None
    return (tier.dir / "MEMORY.md").read_text().splitlines()


def test_first_merge_index_lists_every_entry_and_keeps_hand_lines(repo, fake_home):
    native = native_dir(fake_home, repo)
    first = coffer("project", cwd=repo)
    assert first.returncode == 0, first.stderr
    assert native.is_symlink()
    lines = index_lines(repo)
    tier = store().project_tier(repo)
    assert tier is not None
    files = sorted(p.name for p in tier.dir.iterdir() if p.name != "MEMORY.md")
    assert files == ["deploy.imported-1.md", "deploy.md", "feedback_tests.md", "user_role.md"]
    for name in files:  # every entry, merged or not, has its index line
        assert any(f"]({name})" in line for line in lines), (name, lines)
    assert "- Remember: CI is flaky on Mondays" in lines
    # The native lines pointing at merged entries became those entries' lines, not copies.
    assert not any("./feedback_tests.md" in line for line in lines)
    # What Claude loads through the link is that index.
    assert (native / "MEMORY.md").read_text().splitlines() == lines

    again = coffer("project", "--quiet", cwd=repo)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert index_lines(repo) == lines


def test_collisions_never_leave_two_entries_with_one_name(repo, fake_home):
    native_dir(fake_home, repo)
    assert coffer("project", cwd=repo).returncode == 0
    tier = store().project_tier(repo)
    assert tier is not None
    names = [e.name for e in store().scan(tier).entries]
    assert len(names) == len(set(names)), names
    renamed = entry.parse((tier.dir / "deploy.imported-1.md").read_text(), "deploy.imported-1.md")
    assert renamed.name == "deploy-imported-1"
    assert renamed.body == "Tag, push.\n"
    # A different file whose name was taken is renamed too (its file name was free).
    other = entry.parse((tier.dir / "feedback_tests.md").read_text(), "feedback_tests.md")
    assert other.name == "deploy-imported-2" and other.description == "run tests with -x"
    show = coffer("show", "deploy-imported-2", cwd=repo)
    assert show.returncode == 0 and "Always -x." in show.stdout


def test_dry_run_shows_moves_collisions_and_backup_then_writes_nothing(repo, fake_home):
    native = native_dir(fake_home, repo)
    before = {p.name: p.read_bytes() for p in native.iterdir()}
    dry = coffer("project", "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    out = dry.stdout
    assert f"would merge {native}: 3 native files into" in out
    assert "! deploy.md -> deploy.imported-1.md (a different deploy.md is in the store)" in out
    assert "+ user_role.md" in out
    assert "its name is taken: renamed to 'deploy-imported-2'" in out
    assert "MEMORY.md: 1 hand-written line kept" in out
    assert "MEMORY.md: 3 lines for merged entries" in out
    backups = str(store().root / "backups" / "dirs")
    assert f"the original directory goes to {backups}{os.sep}" in out
    assert not native.is_symlink()
    assert {p.name: p.read_bytes() for p in native.iterdir()} == before
    assert not Path(backups).exists()


def test_dry_run_of_a_project_coffer_never_saw_shows_the_merge(tmp_path, fake_home):
    (fake_home / ".claude").mkdir()
    fresh = make_repo(tmp_path / "fresh")
    native = native_dir(fake_home, fresh)
    dry = coffer("project", "--dry-run", cwd=fresh)
    assert dry.returncode == 0, dry.stderr
    assert f"would merge {native}: 3 native files into this project's new store" in dry.stdout
    assert "+ deploy.md" in dry.stdout and "+ feedback_tests.md" in dry.stdout
    # Two native files share the name `deploy`: the second is renamed even in a new store.
    assert "renamed to 'deploy-imported-1'" in dry.stdout
    assert store().project_tier(fresh) is None


def test_adapter_list_reports_a_stale_index_behind_an_ok_link(repo, fake_home):
    native_dir(fake_home, repo)
    assert coffer("project", cwd=repo).returncode == 0
    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    claude = next(a for a in listed["adapters"] if a["name"] == "claude")
    link = next(t for t in claude["targets"] if t["mode"] == "symlink")
    assert link["state"] == "ok"
    # Claude writes a memory into the linked directory; the index no longer lists it.
    tier = store().project_tier(repo)
    assert tier is not None
    (tier.dir / "new_fact.md").write_text("---\nname: new fact\ndescription: x\n---\nx\n")
    stale = coffer("adapter", "list", "--json", cwd=repo)
    assert stale.returncode == 0  # behind the entries: `coffer project` fixes it, no error
    assert json.loads(stale.stdout)["pending"] == 1
    claude = next(a for a in json.loads(stale.stdout)["adapters"] if a["name"] == "claude")
    link = next(t for t in claude["targets"] if t["mode"] == "symlink")
    assert link["state"] == "stale" and "MEMORY.md lists" in link["detail"]
    assert claude["ok"] is False
    assert coffer("project", "--quiet", cwd=repo).returncode == 0
    ok = coffer("adapter", "list", cwd=repo)
    assert ok.returncode == 0, ok.stdout
