"""Issue 25.1: every entry says where it came from (docs/adr/0051), end to end through the
CLI, the MCP server and Claude's real linked folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from coffer.store.provenance import machine
from coffer_adapters.claude_code import slug as claude_slug
from tests.helpers import coffer, make_repo, mcp_tools, store

CLAUDE_FILE = """---
name: ci-runs-on-push
description: CI runs on every push
metadata:
  type: project
  originSessionId: 3f9a1c2e-7b4d
---

CI runs on every push to main.
"""


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    (fake_home / ".claude").mkdir()
    return make_repo(tmp_path / "repo")


def _json(*args: str, cwd: Path) -> Any:
    done = coffer(*args, "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _shown(name: str, cwd: Path) -> dict[str, Any]:
    prov: dict[str, Any] = _json("show", name, cwd=cwd)["provenance"]
    return prov


def _claude_dir(home: Path) -> Path:
    links = [p for p in (home / ".claude" / "projects").glob("*/memory") if p.is_symlink()]
    assert len(links) == 1, links
    return links[0]


def test_remember_is_cli_and_every_view_says_so(repo: Path) -> None:
    assert (
        coffer("remember", "We deploy with make release.", "--name", "deploy", cwd=repo).returncode
        == 0
    )
    here = machine(store().root)
    prov = _shown("deploy", repo)
    assert prov["origin"] == "cli" and prov["machine"] == here and prov["at"]
    listed = _json("list", cwd=repo)["tiers"][0]["entries"][0]["provenance"]
    assert listed["origin"] == "cli"
    hit = _json("recall", "deploy", cwd=repo)["results"][0]["provenance"]
    assert hit["origin"] == "cli"
    human = coffer("recall", "deploy", cwd=repo).stdout
    assert f"from cli on {here}" in human
    # an update keeps the origin and records who changed it
    assert coffer("update", "deploy", "We deploy with make ship.", cwd=repo).returncode == 0
    prov = _shown("deploy", repo)
    assert prov["origin"] == "cli" and prov["updated_by"] == "cli"


def test_a_file_claude_writes_into_its_linked_folder_is_claudes(
    repo: Path, fake_home: Path
) -> None:
    assert coffer("remember", "Tabs, not spaces.", "--name", "tabs", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    folder = _claude_dir(fake_home)
    (folder / "ci-runs-on-push.md").write_text(CLAUDE_FILE, encoding="utf-8")
    done = coffer("project", "--hook", cwd=repo, input="{}")
    assert done.returncode == 0, done.stderr
    prov = _shown("ci-runs-on-push", repo)
    assert prov["origin"] == "agent:claude", prov
    assert prov["machine"] == machine(store().root)
    assert prov["session"] == "3f9a1c2e-7b4d"
    assert _shown("tabs", repo)["origin"] == "cli"  # coffer's own entry is untouched
    # Claude still reads its own format: name, description and type where it put them
    text = (folder / "ci-runs-on-push.md").read_text(encoding="utf-8")
    assert "name: ci-runs-on-push" in text and "  type: project" in text
    assert "originSessionId: 3f9a1c2e-7b4d" in text
    # Claude edits coffer's entry in place: the origin stays, the change is Claude's
    tabs = folder / "tabs.md"
    tabs.write_text(tabs.read_text().replace("Tabs, not spaces.", "Tabs, width 8."))
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    prov = _shown("tabs", repo)
    assert prov["origin"] == "cli" and prov["updated_by"] == "agent:claude"
    # a run with nothing new changes nothing
    before = text = (folder / "ci-runs-on-push.md").read_bytes()
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    assert (folder / "ci-runs-on-push.md").read_bytes() == before == text


def test_entries_from_before_provenance_are_unknown(repo: Path, fake_home: Path) -> None:
    tier = store().project_tier(repo, create=True)
    assert tier is not None
    tier.dir.mkdir(parents=True, exist_ok=True)
    (tier.dir / "old.md").write_text(
        "---\nname: old\ndescription: an old memory\nmetadata:\n  type: user\n---\n\nOld.\n"
    )
    assert coffer("project", cwd=repo).returncode == 0
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    assert _shown("old", repo) == {"origin": "unknown"}
    assert "origin:" not in (tier.dir / "old.md").read_text()  # never guessed, never stamped


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_claudes_own_memory_merged_at_first_projection_is_merge_claude(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    native = fake_home / ".claude" / "projects" / claude_slug(str(repo)) / "memory"
    native.mkdir(parents=True)
    (native / "ci-runs-on-push.md").write_text(CLAUDE_FILE)
    assert coffer("project", cwd=repo).returncode == 0
    assert _claude_dir(fake_home) == native  # the directory is now coffer's link
    prov = _shown("ci-runs-on-push", repo)
    assert prov["origin"] == "merge:claude" and prov["machine"] == machine(store().root)
    assert prov["session"] == "3f9a1c2e-7b4d"  # Claude's own session id, as it wrote it
    assert (native / "ci-runs-on-push.md").read_text() == CLAUDE_FILE  # the copy is exact
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    assert _shown("ci-runs-on-push", repo)["origin"] == "merge:claude"  # not the agent's
    said = coffer("recall", "push", cwd=repo).stdout
    assert "from merge:claude" in said
    # A change keeps where it came from, whoever makes it: `coffer edit` of the whole file
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/to main/to any branch/' \"$1\"\n")
    editor.chmod(0o755)
    done = coffer("edit", "ci-runs-on-push", cwd=repo, env={"EDITOR": str(editor), "VISUAL": ""})
    assert done.returncode == 0, done.stderr
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    prov = _shown("ci-runs-on-push", repo)
    assert prov["origin"] == "merge:claude" and prov["updated_by"] == "cli"
    # and `coffer update`
    assert coffer("update", "ci-runs-on-push", "CI runs on every push.", cwd=repo).returncode == 0
    prov = _shown("ci-runs-on-push", repo)
    assert prov["origin"] == "merge:claude" and prov["updated_by"] == "cli"


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_an_edit_of_the_whole_file_is_the_writers_not_the_linked_agents(
    repo: Path, fake_home: Path, tmp_path: Path
) -> None:
    # `coffer edit` and a Review merge write the whole file (coffer.store.edits): stamped
    # and sealed as every write is, so the next look at Claude's linked folder does not take
    # the change for Claude's.
    from coffer.store.edits import edit

    for name in ("tabs", "deploy"):
        text = f"The {name} rule, as first written."
        assert coffer("remember", text, "--name", name, cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    assert (_claude_dir(fake_home) / "tabs.md").is_file()  # the tier is Claude's linked folder
    s = store()
    tier = s.project_tier(repo)
    assert tier is not None
    s.writer = "mcp:tester"
    found = s.find([tier], "tabs")
    base = (tier.dir / "tabs.md").read_text()
    assert edit(s, found, base.replace("as first written", "as edited"), base=base).action == (
        "updated"
    )
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    prov = _shown("tabs", repo)
    assert prov["origin"] == "cli" and prov["updated_by"] == "mcp:tester", prov
    # `coffer edit` through the user's editor
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/as first written/as edited/' \"$1\"\n")
    editor.chmod(0o755)
    env = {"EDITOR": str(editor), "VISUAL": ""}
    done = coffer("edit", "deploy", cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    assert coffer("project", "--hook", cwd=repo, input="{}").returncode == 0
    prov = _shown("deploy", repo)
    assert prov["origin"] == "cli" and prov["updated_by"] == "cli", prov
    assert "The deploy rule, as edited." in coffer("show", "deploy", cwd=repo).stdout


def test_mcp_remember_is_named_after_the_client(repo: Path) -> None:
    remember = {"name": "remember", "arguments": {"text": "Use ruff.", "name": "lint"}}
    listing = {"name": "list_memory", "arguments": {}}
    saved, listed = mcp_tools(repo, "claude-code", remember, listing)
    assert saved["entry"]["provenance"]["origin"] == "mcp:claude-code"
    assert listed["tiers"][0]["entries"][0]["provenance"]["origin"] == "mcp:claude-code"
    assert _shown("lint", repo)["origin"] == "mcp:claude-code"


def test_a_native_import_names_the_agent(repo: Path, fake_home: Path) -> None:
    (fake_home / ".codex").mkdir()
    (fake_home / ".codex" / "config.toml").write_text("[features]\nmemories = true\n")
    (fake_home / ".codex" / "memories").mkdir()
    (fake_home / ".codex" / "memories" / "memory_summary.md").write_text("Use pnpm, not npm.\n")
    assert coffer("project", cwd=repo).returncode == 0
    prov = _shown("codex-memory-summary", repo)
    assert prov["origin"] == "import:codex" and prov["machine"] == machine(store().root)


def test_sync_keeps_the_origin_and_marks_the_arrival(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.sync_machines import make_world

    world = make_world(tmp_path, monkeypatch)
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    b.ok("sync")
    prov = json.loads(b.ok("show", "deploy", "--json").out)["provenance"]
    assert prov["origin"] == "cli" and prov["machine"] == a.name
    assert prov["arrived"] == f"sync:{a.name}"
    at_a = json.loads(a.ok("show", "deploy", "--json").out)["provenance"]
    assert "arrived" not in at_a
    # changed on B, the origin stays A's; back on A it arrived from B
    b.ok("update", "deploy", "We deploy with make ship.")
    b.ok("sync")
    a.ok("sync")
    prov = json.loads(a.ok("show", "deploy", "--json").out)["provenance"]
    assert prov["origin"] == "cli" and prov["machine"] == a.name
    assert prov["updated_by"] == "cli" and prov["updated_machine"] == b.name
    assert prov["arrived"] == f"sync:{b.name}"


def test_team_add_keeps_the_origin_and_names_the_author(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "team-repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert coffer("remember", "Release with make.", "--name", "release", cwd=repo).returncode == 0
    assert coffer("team", "init", cwd=repo).returncode == 0
    assert coffer("team", "add", "release", cwd=repo).returncode == 0
    from coffer.store.entry import parse

    text = (repo / ".coffer" / "memory" / "release.md").read_text()
    meta = parse(text, "release.md").metadata
    assert meta["origin"] == "cli"
    assert meta["updated_by"] == "team:Ada Lovelace <ada@example.com>"
    assert "origin_machine" not in meta  # which machine stays personal, like the session
    (hit,) = json.loads(coffer("recall", "release", "--json", cwd=repo).stdout)["team"]
    assert hit["provenance"] == {
        "origin": "cli",
        "at": meta["origin_at"],
        "updated_by": meta["updated_by"],
    }
    said = coffer("recall", "release", cwd=repo).stdout
    assert "[team]" in said and "from cli; changed by team:Ada Lovelace" in said


def test_the_watchers_refresh_names_the_agent_too(repo: Path, fake_home: Path) -> None:
    from coffer.app import App

    assert coffer("remember", "Tabs, not spaces.", "--name", "tabs", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    (_claude_dir(fake_home) / "ci-runs-on-push.md").write_text(CLAUDE_FILE, encoding="utf-8")
    tier = store().project_tier(repo)
    assert tier is not None
    App(dict(os.environ)).engine().refresh("project", Path(tier.info.root))  # what watch runs
    assert _shown("ci-runs-on-push", repo)["origin"] == "agent:claude"


def test_a_listing_reads_each_tiers_provenance_sources_once(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coffer.store import Found, provenance, views

    s = store()
    tiers = [s.project_tier(repo, create=True), s.global_tier(create=True)]
    for tier in tiers:
        assert tier is not None
        for n in range(3):
            s.remember(tier, f"Fact {n} of the {tier.scope} tier.", name=f"fact-{n}")
    listing = [Found(t, e) for t in tiers if t is not None for e in s.entries(t)]
    one_by_one = [views.entry_json(f, body=False) for f in listing]
    read: list[Path] = []
    merged = provenance.merged

    def counted(base: Path) -> dict[str, dict[str, str]]:
        read.append(base)
        return merged(base)

    monkeypatch.setattr(provenance, "merged", counted)
    assert views.entries_json(listing, body=False) == one_by_one
    assert read == [t.base for t in tiers if t is not None]  # once per tier, not per entry


def test_the_machine_name_is_read_once_per_version_within_a_bound(tmp_path: Path) -> None:
    """Each version of the sync config is read once; a long-lived process that sees it
    change keeps a bounded few versions."""
    from coffer.store import provenance

    config = tmp_path / "sync" / "config.json"
    config.parent.mkdir(parents=True)
    for n in range(10):
        config.write_text(json.dumps({"host": f"laptop-{n}"}))
        st = config.stat()
        os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns + n * 1_000_000_000))
        assert machine(tmp_path) == f"laptop-{n}"
    assert provenance._machine.cache_info().currsize <= 4
