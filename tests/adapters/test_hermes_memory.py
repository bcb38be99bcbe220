"""Hermes Agent's memories: imported into the global tier at every run, with provenance, and
left on, since coffer's global tier has no file Hermes reads (docs/adr/0032)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.store import entry
from coffer_adapters.hermes import native as hermes_native
from tests.helpers import coffer, make_repo, store

NOTES = "Staging is walrus-77.\n§\nCI runs on Tuesdays;\nnever on Fridays.\n"
PROFILE = "The user is an SRE who prefers tabs.\n"


@pytest.fixture
def hermes(fake_home: Path) -> Path:
    memories = fake_home / ".hermes" / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text(NOTES)
    (memories / "USER.md").write_text(PROFILE)
    return memories


def imported() -> dict[str, entry.Entry]:
    tier = store().global_tier()
    return {p.stem: entry.parse(p.read_text(), p.name) for p in tier.dir.glob("hermes-*.md")}


def test_each_file_is_one_entry_of_its_entries(hermes):
    items = {i.name: i for i in hermes_native.imports(hermes)}
    assert (
        items["hermes-memory"].body
        == "Staging is walrus-77.\n\nCI runs on Tuesdays;\nnever on Fridays."
    )
    assert items["hermes-user-profile"].source == str(hermes / "USER.md")


@pytest.mark.needs_symlinks
def test_a_symlinked_memory_file_is_refused(hermes, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("private\n")
    (hermes / "USER.md").unlink()
    (hermes / "USER.md").symlink_to(outside)
    refused = [i for i in hermes_native.imports(hermes) if i.refused]
    assert [Path(i.source).name for i in refused] == ["USER.md"]


def test_project_imports_and_leaves_hermes_memory_on(hermes, tmp_path, fake_home):
    config = fake_home / ".hermes" / "config.yaml"
    config.write_text("memory:\n  memory_enabled: true\n")
    repo = make_repo(tmp_path / "repo")
    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "hermes's own memory stays on" in run.stdout + run.stderr
    got = imported()
    assert got["hermes-memory"].body.startswith("Staging is walrus-77.")
    assert got["hermes-memory"].metadata["source"] == f"hermes:{hermes / 'MEMORY.md'}"
    assert got["hermes-user-profile"].body.strip() == PROFILE.strip()
    assert config.read_text() == "memory:\n  memory_enabled: true\n"  # never written
    assert (hermes / "MEMORY.md").read_text() == NOTES
    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    h = next(a for a in listed["adapters"] if a["name"] == "hermes")
    assert h["native_memory"].startswith("on (no switch:")
    assert h["ok"] is True
    quiet = coffer("project", "--quiet", cwd=repo)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_a_changed_file_replaces_its_copy_even_after_a_no_op_run(hermes, tmp_path):
    repo = make_repo(tmp_path / "repo")
    assert coffer("project", cwd=repo).returncode == 0
    assert coffer("project", "--quiet", cwd=repo).returncode == 0  # leaves a no-op stamp
    (hermes / "USER.md").write_text("The user now prefers spaces.\n")
    assert coffer("project", "--quiet", cwd=repo).returncode == 0
    assert imported()["hermes-user-profile"].body.strip() == "The user now prefers spaces."
    assert len(imported()) == 2


def test_dry_run_shows_the_imports_and_writes_nothing(hermes, tmp_path):
    repo = make_repo(tmp_path / "repo")
    dry = coffer("project", "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    assert "hermes-memory from" in dry.stdout and "hermes-user-profile from" in dry.stdout
    assert not imported()
