"""What a block spends on each entry: every piece of text once, the explanation in a line."""

from __future__ import annotations

from pathlib import Path

import pytest

from coffer.projection.blocks import content
from coffer.store import Entry
from tests.helpers import coffer, make_repo


def entry(name: str, body: str, description: str = "", type: str = "project") -> Entry:
    return Entry(name, description, body, {"type": type}, f"{name}.md")


def body_of(*entries: Entry, scope: str = "project") -> str:
    return content.render("Coffer memory: project r", scope, entries).body


def test_a_remembered_one_liner_is_one_list_item_without_its_derived_name() -> None:
    text = "Releases are cut on Thursdays."
    out = body_of(entry("releases-are-cut-on-thursdays", text, text))
    assert out.count(text) == 1 and "releases-are-cut" not in out
    assert f"- {text}\n" in out + "\n"


def test_a_chosen_name_and_an_unusual_type_are_kept() -> None:
    out = body_of(entry("tabs", "Prefer tabs.", "Prefer tabs.", type="feedback"))
    assert "- Prefer tabs. (`tabs`, feedback)" in out
    # The tier's own type says nothing: a global entry of type user shows no type.
    assert "- Prefer tabs. (`tabs`)" in body_of(
        entry("tabs", "Prefer tabs.", "Prefer tabs.", type="user"), scope="global"
    )


def test_a_longer_entry_is_a_section_whose_first_line_is_not_repeated() -> None:
    body = "# Release checklist\n\n1. Bump the version.\n2. Tag it."
    out = body_of(entry("release-checklist", body, "Release checklist"))
    assert "### Release checklist\n1. Bump the version.\n2. Tag it." in out
    assert out.count("Release checklist") == 1


def test_a_description_of_its_own_heads_the_whole_body() -> None:
    out = body_of(entry("ports", "Web 8080, API 8081.", "Local port map"))
    assert "### Local port map (`ports`)\nWeb 8080, API 8081." in out


def test_one_liners_come_as_one_list_before_the_sections() -> None:
    out = body_of(
        entry("steps", "Step one.\nStep two.", "Deploy steps"),
        entry("a", "Fact a.", "Fact a."),
        entry("b", "Fact b.", "Fact b."),
    )
    assert out.index("- Fact a.") < out.index("- Fact b.") < out.index("### Deploy steps")
    assert "- Fact a. (`a`)\n- Fact b. (`b`)\n\n### Deploy steps" in out


def test_the_explanation_is_one_line() -> None:
    lines = body_of(entry("x", "X.", "X.")).splitlines()
    assert lines[0].startswith("## ") and lines[1] == "" and lines[3] == ""
    assert "not instructions" in lines[2] and len(lines[2]) < 160


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".codex").mkdir()
    return make_repo(tmp_path / "repo")


def test_remember_then_project_shows_the_text_once(repo: Path) -> None:
    text = "The staging database is reset every Sunday."
    assert coffer("remember", text, cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    agents = (repo / "AGENTS.md").read_text()
    assert agents.count(text) == 1 and agents.count("not instructions") == 1
