"""The product story, end to end through the real CLI: one fact written by one agent is
seen natively by the others at their next session start, and everything can be undone."""

from __future__ import annotations

import json

from coffer.testing import snapshot
from coffer_adapters.claude_code import slug
from coffer_adapters.claude_code.setup import WINDOWS_SHELL as CLAUDE_SHELL
from coffer_adapters.codex.setup import WINDOWS_SHELL as CODEX_SHELL
from tests.helpers import coffer, make_repo, run_hook

CODEX_CONFIG = '# mine\nmodel = "o4"\n\n[features]\nmemories = true\n'


def test_one_memory_seen_by_every_agent_and_undone(tmp_path, fake_home, monkeypatch):
    # Agents at their default places (what `coffer setup` and most users have).
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    claude, codex = fake_home / ".claude", fake_home / ".codex"
    claude.mkdir()
    (codex / "memories").mkdir(parents=True)
    (codex / "config.toml").write_text(CODEX_CONFIG)
    (codex / "memories" / "memory_summary.md").write_text("The user prefers pnpm.\n")
    repo = make_repo(tmp_path / "app")
    (repo / "AGENTS.md").write_text("# Team rules\n\nRun `make lint` before pushing.\n")
    before = snapshot(tmp_path, tmp_path / "coffer-home")

    setup = coffer("setup", "--yes", cwd=repo)
    assert setup.returncode == 0, setup.stderr
    claude_hook = json.loads((claude / "settings.json").read_text())["hooks"]["SessionStart"]
    codex_hook = json.loads((codex / "hooks.json").read_text())["hooks"]["SessionStart"]

    # Claude's session starts: coffer projects everything, after Claude had read its files.
    # The hook's message, shown to the user, says that Codex's own memory was switched off
    # and how to undo that; its context hands this session what the run put in place
    # (docs/adr/0012): the facts imported from Codex into the global block.
    first = run_hook(
        claude_hook[0]["hooks"][0]["command"], repo / ".git" / "..", CLAUDE_SHELL.syntax
    )
    assert first.returncode == 0, first.stderr
    said = json.loads(first.stdout)
    assert said["systemMessage"].startswith("coffer turned off codex's own memory")
    assert "The user prefers pnpm." in said["hookSpecificOutput"]["additionalContext"]
    memory_dir = claude / "projects" / slug(str(repo)) / "memory"
    assert memory_dir.is_symlink()
    assert "memories = false" in (codex / "config.toml").read_text()  # Codex's own memory off
    assert "pnpm" in (claude / "CLAUDE.md").read_text()  # ...after its facts were imported

    # Claude writes a memory the way Claude does: a topic file in its memory directory.
    (memory_dir / "project_release.md").write_text(
        "---\nname: release-process\ndescription: Releases are cut with `make release`.\n"
        "metadata:\n  type: project\n---\n\nNever push tags by hand.\n"
    )

    # Codex's session starts: its AGENTS.md block now carries Claude's fact.
    second = run_hook(codex_hook[0]["hooks"][0]["command"], repo, CODEX_SHELL.syntax)
    assert second.returncode == 0, second.stderr
    agents = (repo / "AGENTS.md").read_text()
    assert agents.startswith("# Team rules\n\nRun `make lint` before pushing.\n")
    assert "release-process" in agents and "Never push tags by hand." in agents

    # Codex remembers something through coffer and leaves Claude a handoff.
    assert (
        coffer(
            "remember", "Staging lives at staging.example.com.", "--name", "staging", cwd=repo
        ).returncode
        == 0
    )
    handoff = coffer(
        "vault",
        "handoff",
        "--from",
        "codex",
        "--target",
        "claude",
        "--title",
        "Finish the auth rollout",
        "--stdin",
        cwd=repo,
        input="Tests pass.\n",
    )
    assert handoff.returncode == 0, handoff.stderr
    third = run_hook(claude_hook[0]["hooks"][0]["command"], repo, CLAUDE_SHELL.syntax)
    assert third.returncode == 0, third.stderr
    assert "Finish the auth rollout" in third.stdout  # Claude reads hook output as context
    assert "staging" in (memory_dir / "MEMORY.md").read_text()  # and its own index shows it

    # Everything coffer did outside its store can be undone.
    assert coffer("unproject", "--all", cwd=repo).returncode == 0
    assert coffer("setup", "--undo", cwd=repo).returncode == 0
    after = snapshot(tmp_path, tmp_path / "coffer-home")
    kept = str(memory_dir.relative_to(tmp_path))
    vault = str((repo / ".ecc").relative_to(tmp_path))
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    # What remains: Claude's memory directory, now a real one holding what it knows (and its
    # parents), and the vault handoff, which is the user's data, not coffer's projection.
    unexpected = sorted(
        k for k in changed if not k.startswith((kept, vault)) and after.get(k, ("",))[0] != "dir"
    )
    assert (codex / "config.toml").read_text() == CODEX_CONFIG
    assert unexpected == []
    assert (memory_dir / "project_release.md").is_file() and not memory_dir.is_symlink()
    assert (codex / "config.toml").read_text() == CODEX_CONFIG
