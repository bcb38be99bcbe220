"""The first day, as a newcomer has it (issue 23): the README's set-up, previews that say
what the run does, no empty blocks, setup's words, and an uninstall that can finish.

Everything runs through the real CLI in a fake home, with real git where git is involved.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coffer_adapters.claude_code import slug
from tests.helpers import coffer
from tests.test_git import init_repo, ok

ENTRY = "---\nname: {name}\ndescription: {text}\nmetadata:\n  type: {kind}\n---\n\n{text}\n"


@pytest.fixture
def world(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude and Codex at their default places; the machine's git configuration shut out."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return fake_home


def claude_memory(home: Path, repo: Path, index: str = "") -> Path:
    """Claude has been used in ``repo`` before coffer: two topic files and its index."""
    native = home / ".claude" / "projects" / slug(str(repo)) / "memory"
    native.mkdir(parents=True)
    tests = ENTRY.format(name="run-tests", text="Run pytest with -vv.", kind="feedback")
    (native / "feedback_tests.md").write_text(tests)
    deploy = ENTRY.format(name="deploy", text="Deploy with make release.", kind="project")
    (native / "project_deploy.md").write_text(deploy)
    (native / "MEMORY.md").write_text(
        index or "- [Tests](feedback_tests.md) — pytest -vv\n- [Deploy](project_deploy.md)\n"
    )
    return native


_LINE = re.compile(r"^(?:would )?(\w+?)(?:d|ed)? (/\S+): (.*)$")


def changes(out: str) -> dict[tuple[str, str], str]:
    """{(verb, path): detail} of a report's change lines (a dry run's or a real run's)."""
    found = {}
    for line in out.splitlines():
        m = _LINE.match(line)
        if m and not line.startswith(("note:", "  ")):
            found[(m[1].rstrip("e"), m[2])] = m[3]
    return found


# ---- 23.6: a dry run shows what the run will do --------------------------------------


def test_a_dry_run_over_a_claude_directory_says_what_the_run_writes(
    world: Path, tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    claude_memory(world, repo)
    dry = ok(coffer("project", "--dry-run", cwd=repo)).stdout
    real = ok(coffer("project", cwd=repo)).stdout
    planned, done = changes(dry), changes(real)
    assert set(planned) == set(done), (dry, real)
    store_dir = next(d for (v, _), d in done.items() if v == "link").removeprefix("-> ")
    for key, detail in planned.items():
        # The dry run cannot name a store it has not created; everything else is the same.
        assert detail.replace("this project's new store (created on a real run)", store_dir).replace(
            "this project's new store", store_dir
        ) == done[key], key
    agents = (("creat", str(repo / "AGENTS.md")))
    assert planned[agents] == done[agents] == "2 project entries"
    assert dry.count("into this project's new store") == 1


# ---- 23.8: an empty tier costs no context ---------------------------------------------


def test_an_empty_tier_gets_no_block_until_its_first_entry(world: Path, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    claude_md, codex_md = world / ".claude" / "CLAUDE.md", world / ".codex" / "AGENTS.md"
    dry = ok(coffer("project", "--dry-run", cwd=repo)).stdout
    assert str(claude_md) not in dry and str(repo / "AGENTS.md") not in dry
    ok(coffer("project", cwd=repo))
    assert not claude_md.exists() and not codex_md.exists()
    assert not (repo / "AGENTS.md").exists()
    listed = coffer("adapter", "list", cwd=repo)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "no global entries yet: the first one writes the block" in listed.stdout

    # The tier's first entry writes the block, where `coffer project` would have.
    said = ok(coffer("remember", "Prefer small commits.", "--scope", "global", cwd=repo)).stdout
    assert f"updated {claude_md}" in said.splitlines()
    assert "Prefer small commits." in claude_md.read_text()
    assert "Prefer small commits." in codex_md.read_text()
    assert not (repo / "AGENTS.md").exists()  # the project tier is still empty
    ok(coffer("remember", "We deploy with make release.", cwd=repo))
    assert "make release" in (repo / "AGENTS.md").read_text()
    assert ok(coffer("project", cwd=repo)).stdout == ""  # nothing left to do

    # A tier that becomes empty keeps its block, shown empty (docs/adr/0045): a forget
    # never deletes a file; `coffer unproject` does, from the journal.
    ok(coffer("forget", "prefer-small-commits", "--scope", "global", cwd=repo))
    assert "_No memories yet._" in claude_md.read_text()
    ok(coffer("unproject", "--all", cwd=repo))
    assert not claude_md.exists() and not codex_md.exists()
    assert not (repo / "AGENTS.md").exists()


def test_a_write_after_unproject_writes_no_waiting_block(world: Path, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "app", {"README.md": b"# app\n"})
    ok(coffer("project", cwd=repo))
    ok(coffer("unproject", "--global", cwd=repo))
    ok(coffer("unproject", cwd=repo))  # pauses the project
    ok(coffer("remember", "Prefer small commits.", "--scope", "global", cwd=repo))
    ok(coffer("remember", "We deploy with make release.", cwd=repo))
    assert not (world / ".claude" / "CLAUDE.md").exists()
    assert not (repo / "AGENTS.md").exists()
