"""OpenClaw's workspace MEMORY.md: imported into the global tier at every run and left on,
since its only switch would hide coffer's AGENTS.md block too (docs/adr/0032)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coffer.store import entry
from coffer_adapters.openclaw import native as openclaw_native
from tests.helpers import coffer, make_repo, store

MEMORY = "# Memory\n\n- The user deploys from host orca-9.\n"


def workspace(home: Path) -> Path:
    ws = home / ".openclaw" / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(MEMORY)
    (ws / "USER.md").write_text("# USER.md - User Model\n")  # seeded from a template
    (ws / "memory" / "2026-12-01.md").write_text("daily note\n")
    return ws


def test_only_memory_md_is_imported(fake_home):
    ws = workspace(fake_home)
    items = openclaw_native.imports(ws)
    assert [(i.name, i.source) for i in items] == [("openclaw-memory", str(ws / "MEMORY.md"))]


@pytest.mark.needs_symlinks
def test_a_symlinked_workspace_is_refused(fake_home, tmp_path):
    ws = workspace(fake_home)
    moved = tmp_path / "elsewhere"
    ws.rename(moved)
    ws.symlink_to(moved)
    (item,) = openclaw_native.imports(ws)
    assert "symlink" in item.refused


def test_project_imports_leaves_it_on_and_writes_nothing_of_openclaw(fake_home, tmp_path):
    ws = workspace(fake_home)
    repo = make_repo(tmp_path / "repo")
    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "openclaw's own memory stays on" in run.stdout + run.stderr
    tier = store().global_tier()
    got = entry.parse((tier.dir / "openclaw-memory.md").read_text(), "openclaw-memory.md")
    assert "orca-9" in got.body and got.metadata["source"] == f"openclaw:{ws / 'MEMORY.md'}"
    assert (ws / "MEMORY.md").read_text() == MEMORY
    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    oc = next(a for a in listed["adapters"] if a["name"] == "openclaw")
    assert oc["native_memory"].startswith("on (no switch:") and oc["ok"] is True
    (ws / "MEMORY.md").write_text(MEMORY + "- Backups run at 02:30.\n")
    assert coffer("project", "--quiet", cwd=repo).returncode == 0
    got = entry.parse((tier.dir / "openclaw-memory.md").read_text(), "openclaw-memory.md")
    assert "02:30" in got.body
