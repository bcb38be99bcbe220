"""Issue 25.4: `coffer review` walks what needs a person, through the real CLI, and each
choice is a write that reaches the agents' files."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.helpers import coffer, make_repo


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".codex").mkdir()  # Codex "installed": it reads AGENTS.md
    root = make_repo(tmp_path / "repo")
    assert coffer("project", cwd=root).returncode == 0
    return root


def ok(*args: str, cwd: Path, **kw: object) -> str:
    out = coffer(*args, cwd=cwd, **kw)  # type: ignore[arg-type]
    assert out.returncode == 0, out.stderr
    return out.stdout


def _items(repo: Path) -> list[dict[str, object]]:
    return list(json.loads(ok("review", "--json", cwd=repo))["items"])


def _conflict_copy(repo: Path) -> None:
    ok("remember", "Deploys use make release.", "--name", "deploys", cwd=repo)
    tier = Path(json.loads(ok("show", "deploys", "--json", cwd=repo))["file"]).parent
    (tier / "deploys.conflict-laptop-20261203.md").write_text(
        "---\nname: deploys-conflict-laptop\n"
        "description: 'Conflict copy from laptop: Deploys use make ship.'\n"
        "metadata:\n  type: project\n  conflict_of: deploys.md\n  conflict_from: laptop\n"
        "  conflict_at: '2026-12-03T10:00:00'\n---\n\nDeploys use make ship.\n"
    )


def test_review_resolves_a_conflict_copy_by_taking_theirs(repo: Path) -> None:
    _conflict_copy(repo)
    (item,) = [i for i in _items(repo) if i["kind"] == "conflict"]
    assert [e["name"] for e in item["entries"]] == ["deploys", "deploys-conflict-laptop"]  # type: ignore[index]
    said = ok("review", cwd=repo, input="2\n")
    assert "conflict: another machine changed deploys" in said
    assert f"updated {repo / 'AGENTS.md'}" in said
    shown = json.loads(ok("show", "deploys", "--json", cwd=repo))
    assert shown["body"].strip() == "Deploys use make ship."
    assert shown["description"] == "Deploys use make ship."
    assert "make ship" in (repo / "AGENTS.md").read_text()
    assert coffer("show", "deploys-conflict-laptop", cwd=repo).returncode != 0
    assert not [i for i in _items(repo) if i["kind"] == "conflict"]


def test_review_resolves_a_contradiction_between_the_tiers(repo: Path, fake_home: Path) -> None:
    ok("remember", "We use pnpm for every project.", "--scope", "global", "--name", "pm", cwd=repo)
    ok("remember", "Run npm install before the tests.", "--name", "install", cwd=repo)
    (item,) = [i for i in _items(repo) if i["kind"] == "contradiction"]
    assert item["why"] == "JavaScript package manager: install says 'npm', pm says 'pnpm'"
    assert "npm install" in (repo / "AGENTS.md").read_text()
    said = ok("review", cwd=repo, input="2\n")  # keep #2, the global pnpm
    assert f"updated {repo / 'AGENTS.md'}" in said
    assert "npm install" not in (repo / "AGENTS.md").read_text()
    assert "nothing to review" in ok("review", cwd=repo)


def test_keep_leaves_an_item_out_until_an_entry_changes(repo: Path) -> None:
    ok("remember", "The API listens on port 8080.", "--name", "api", cwd=repo)
    ok("remember", "Locally the API listens on port 3000.", "--name", "api-local", cwd=repo)
    assert [i["kind"] for i in _items(repo)] == ["contradiction"]
    ok("review", cwd=repo, input="k\n")
    assert _items(repo) == []
    ok("update", "api-local", "Locally the API listens on port 3001.", cwd=repo)
    assert [i["kind"] for i in _items(repo)] == ["contradiction"]


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_merge_opens_both_in_the_editor(repo: Path, tmp_path: Path) -> None:
    ok("remember", "Releases are cut on Thursdays after the standup.", "--name", "a", cwd=repo)
    ok("remember", "Releases are cut on Thursdays after standup.", "--name", "b", cwd=repo)
    (item,) = _items(repo)
    assert item["kind"] == "near-duplicate"
    editor = tmp_path / "editor.sh"
    # The editor sees both texts; it keeps the first line of the body and drops the rest.
    editor.write_text(
        '#!/bin/sh\ncp "$1" "$1.seen"\nsed -i -e "/^<!-- from b/d" '
        "-e 's/after the standup/at noon/' -e '/after standup/d' \"$1\"\n"
    )
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    said = ok("review", cwd=repo, input="m\n", env={"EDITOR": str(editor), "VISUAL": ""})
    assert "done: merge" in said
    assert ok("show", "a", cwd=repo).strip().endswith("Releases are cut on Thursdays at noon.")
    assert coffer("show", "b", cwd=repo).returncode != 0
    agents = (repo / "AGENTS.md").read_text()
    assert "at noon" in agents and "after standup" not in agents


def test_a_stale_entry_is_verified_from_the_queue(repo: Path) -> None:
    (repo / "Makefile").write_text("release:\n\t./ship\n")
    ok("remember", "Deploys run the `Makefile` release target.", "--name", "d", cwd=repo)
    (repo / "Makefile").write_text("release:\n\t./ship --prod\n")
    (item,) = _items(repo)
    assert (item["kind"], item["actions"]) == ("stale", ["verify", "keep", "forget:1"])
    ok("review", cwd=repo, input="v\n")
    assert _items(repo) == [] and "nothing is stale" in ok("stale", cwd=repo)


def test_an_import_collision_and_an_exact_duplicate(repo: Path) -> None:
    ok("remember", "Use the staging cluster for demos.", "--name", "demos", cwd=repo)
    tier = Path(json.loads(ok("show", "demos", "--json", cwd=repo))["file"]).parent
    (tier / "demos-imported-1.md").write_text(
        "---\nname: demos-imported-1\ndescription: Demo data lives in fixtures.\n"
        "metadata:\n  type: project\n---\n\nDemo data lives in fixtures/demo.json.\n"
    )
    (tier / "copy.md").write_text(
        "---\nname: copy\ndescription: Use the staging cluster for demos.\n"
        "metadata:\n  type: project\n---\n\nUse the staging   cluster for demos.\n"
    )
    collision, duplicate = _items(repo)
    assert (collision["kind"], duplicate["kind"]) == ("collision", "duplicate")
    names = [e["name"] for e in duplicate["entries"]]  # type: ignore[attr-defined]
    assert sorted(names) == ["copy", "demos"]
    keep = "1" if names[0] == "demos" else "2"
    ok("review", cwd=repo, input=f"k\n{keep}\n")  # both memories stay; the copy goes
    assert coffer("show", "copy", cwd=repo).returncode != 0
    assert ok("show", "demos-imported-1", cwd=repo)
    assert _items(repo) == []


def test_a_choice_that_does_not_fit_is_refused() -> None:
    from coffer.base.errors import InvalidInputError
    from coffer.projection.review import resolve
    from coffer.store.review import _item

    item = _item("stale", [], "x")
    with pytest.raises(InvalidInputError, match="not a choice for a stale"):
        resolve(None, item, "merge")  # type: ignore[arg-type]
