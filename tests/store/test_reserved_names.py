"""Names Windows reserves for devices (``con``, ``prn``, ``nul``, ``com1``…) never become
entry files, on any system: a store made on Linux syncs to a Windows machine. An explicit
name is refused, a derived one gets a safe variant, an arriving file is not taken in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coffer.base.errors import InvalidInputError
from coffer.projection.symlink import merge as symlink_merge
from coffer.store import drafts
from coffer.store.incoming import entry_name_ok
from coffer.sync import tree
from tests.helpers import (
    MCP_INIT,
    MCP_INITIALIZED,
    coffer,
    make_repo,
    mcp_call,
    mcp_lines,
    mcp_serve,
    store,
)


def test_a_derived_reserved_name_gets_a_safe_variant(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    said = coffer("remember", "Con", cwd=repo)
    assert said.returncode == 0, said.stderr
    tier = store().project_tier(repo)
    assert tier is not None
    names = sorted(os.listdir(tier.dir))
    assert names == ["MEMORY.md", "con-notes.md"]


@pytest.mark.parametrize("text", ["NUL", "com1", "Aux", "lpt9"])
def test_each_derived_device_name_is_varied(text: str) -> None:
    made = drafts.draft(text, None, None, None, "project")
    assert made.base_name == f"{text.lower()}-notes" and not made.explicit


def test_an_explicit_reserved_name_is_refused_by_mcp(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    call = mcp_call(1, "remember", {"text": "Printers live on floor 2.", "name": "prn"})
    answers = mcp_serve(repo, mcp_lines(MCP_INIT, MCP_INITIALIZED, call))
    result = answers[1]["result"]
    assert result["isError"] is True
    assert "Windows reserves" in result["content"][0]["text"]
    tier = store().project_tier(repo)
    assert tier is None or not any(n.startswith("prn") for n in os.listdir(tier.dir))


def test_an_explicit_name_that_slugs_to_a_device_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="Windows reserves it for a device"):
        drafts.draft("Printers live on floor 2.", "PRN", None, None, "project")


@pytest.mark.parametrize(
    ("name", "ok"),
    [("con.md", False), ("NUL.md", False), ("com1.md", False), ("aux.notes.md", False),
     ("con-notes.md", True), ("console.md", True), ("com0.md", True)],
)  # fmt: skip
def test_an_arriving_file_with_a_device_name_is_not_taken_in(name: str, ok: bool) -> None:
    # One check for a pull, a merge of the linked folder and the waiting area.
    assert entry_name_ok(name) is ok
    assert (tree.split(f"global/{name}") is not None) is ok


def test_a_linked_folder_merge_gives_a_device_name_file_a_variant(tmp_path: Path) -> None:
    # Claude's own memory folder, merged into the tier when coffer first links it.
    native, tier_dir = tmp_path / "native", tmp_path / "tier"
    native.mkdir()
    tier_dir.mkdir()
    (native / "con.md").write_text("---\nname: con\ndescription: c\n---\nConsole notes.\n")
    (native / "deploy.md").write_text("---\nname: deploy\ndescription: d\n---\nShip it.\n")
    plan = symlink_merge.plan_merge(native, tier_dir, [])
    assert [(m.source, m.dest, m.state) for m in plan.moves] == [
        ("con.md", "con-notes.md", "renamed"),
        ("deploy.md", "deploy.md", "new"),
    ]
    symlink_merge.merge(native, tier_dir, plan)
    assert sorted(os.listdir(tier_dir)) == ["con-notes.md", "deploy.md"]
