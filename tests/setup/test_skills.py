"""The guidance skill `coffer setup` installs for Claude Code and Codex (issue 12 §7, ADR 0033):
where each agent reads personal skills, the SKILL.md shape both accept, what the guidance
says, and that it is journaled and undone like every other setup edit."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from coffer.adapter.guidance import INTERFACE, skill_document
from tests.helpers import coffer

# Every agent whose skills directory was checked (docs/adr/0033) gets the skill.
READS_SKILLS = ("claude", "codex", "gemini", "qwen", "opencode", "kilo", "kimi", "vibe", "copilot")
# And those whose documentation names a personal skills directory (not in the agent suite).
READS_SKILLS += ("droid", "hermes")


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for d in (".claude", ".codex"):
        (fake_home / d).mkdir()
    return fake_home


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def _frontmatter(text: str) -> dict[str, str]:
    assert text.startswith("---\n")
    head, _, _ = text[4:].partition("\n---\n")
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


def test_the_skill_has_the_shape_claude_and_codex_accept() -> None:
    meta = _frontmatter(skill_document())
    assert set(meta) == {"name", "description"}
    # Claude: lowercase letters, digits and hyphens, at most 64; description at most 1024.
    # Codex: name at most 100, description at most 500, each on one line.
    assert meta["name"] == "coffer-memory" and len(meta["name"]) <= 64
    assert 0 < len(meta["description"]) <= 500 and "\n" not in meta["description"]


def test_the_interface_metadata_is_what_ecc_ships_beside_its_skill() -> None:
    # ECC's skills carry agents/openai.yaml (Codex's interface metadata) beside SKILL.md.
    meta = yaml.safe_load(INTERFACE)
    assert meta["policy"] == {"allow_implicit_invocation": True}
    assert set(meta["interface"]) == {"display_name", "short_description", "default_prompt"}
    assert len(meta["interface"]["short_description"]) <= 64
    assert "$coffer-memory" in meta["interface"]["default_prompt"]


def test_the_guidance_says_what_issues_12_and_28_ask() -> None:
    text = skill_document()
    for phrase in (
        # issue 12 §7
        "Recall before writing",
        "Remember facts, not transcripts",
        "Never store credentials",
        "context, not instructions",
        # issue 28 §2: what the vault is not (the seed's list), where active state goes
        "Not a task tracker, not a secret store, not a policy engine",
        "not a replacement for the\nproject's own reviewed documents",
        "Active state (what is open, who does what) belongs in the\nissue tracker",
        # what a handoff holds
        "the goal and the current state",
        "the evidence: the commands and tests you ran",
        "the files or work items involved",
        "the remaining work, the blockers and the risks",
        "the next action",
        # later memories link to earlier ones instead of overwriting them
        "Later context links to earlier context (`--link ID`",
        "never overwritten",
        # what must be installed, and the session id the hook gives
        "This skill is guidance only",
        "origin_session_id",
    ):
        assert phrase in text, phrase
    assert len(text.encode()) < 4096  # short: the body is read whole when the skill is used


def test_setup_installs_the_skill_for_both_and_undo_removes_it(home: Path) -> None:
    (home / ".claude" / "skills" / "mine").mkdir(parents=True)  # the user's own skill
    (home / ".claude" / "skills" / "mine" / "SKILL.md").write_text("---\nname: mine\n---\n")
    before = snapshot(home)
    done = coffer("setup", "--yes", "--agent", "claude", "--agent", "codex", "--no-service")
    assert done.returncode == 0, done.stdout + done.stderr
    for skills in (home / ".claude" / "skills", home / ".codex" / "skills"):
        assert (skills / "coffer-memory" / "SKILL.md").read_text() == skill_document()
        assert (skills / "coffer-memory" / "agents" / "openai.yaml").read_text() == INTERFACE
    again = coffer("setup", "--yes", "--agent", "claude", "--agent", "codex", "--no-service")
    assert "already wired: claude, codex" in again.stdout
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert snapshot(home) == before  # skills/coffer-memory and ~/.codex/skills are gone


def test_a_skill_edited_by_hand_is_not_removed(home: Path) -> None:
    assert coffer("setup", "--yes", "--agent", "claude", "--no-service").returncode == 0
    path = home / ".claude" / "skills" / "coffer-memory" / "SKILL.md"
    path.write_text(path.read_text() + "\nMy own addition.\n")
    undone = coffer("setup", "--undo")
    assert undone.returncode == 1
    assert "was changed since coffer wrote it" in undone.stdout + undone.stderr
    assert path.read_text().endswith("My own addition.\n")


def test_someone_elses_file_at_that_path_is_left_alone(home: Path) -> None:
    path = home / ".claude" / "skills" / "coffer-memory" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: coffer-memory\ndescription: mine\n---\n")
    done = coffer("setup", "--yes", "--agent", "claude", "--no-service")
    assert done.returncode == 1
    assert "already holds something coffer did not write" in done.stdout + done.stderr
    assert path.read_text() == "---\nname: coffer-memory\ndescription: mine\n---\n"


def test_the_skill_follows_the_agents_config_directories(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    for d in ("claude-config", "codex-home"):
        (tmp_path / d).mkdir()
    done = coffer("setup", "--yes", "--agent", "claude", "--agent", "codex", "--no-service")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "claude-config" / "skills" / "coffer-memory" / "SKILL.md").is_file()
    assert (tmp_path / "codex-home" / "skills" / "coffer-memory" / "SKILL.md").is_file()
    assert not (home / ".claude" / "skills").exists()


@pytest.mark.parametrize("agent", READS_SKILLS)
def test_every_agent_that_reads_skills_gets_both_files(
    home: Path, tmp_path: Path, agent: str
) -> None:
    before = snapshot(tmp_path)
    done = coffer("setup", "--yes", "--agent", agent, "--no-service")
    assert done.returncode == 0, done.stdout + done.stderr
    found = [p for p in tmp_path.rglob("coffer-memory") if p.is_dir()]
    assert len(found) == 1, found
    assert (found[0] / "SKILL.md").read_text() == skill_document()
    assert (found[0] / "agents" / "openai.yaml").read_text() == INTERFACE
    listed = coffer("adapter", "list")
    assert "skill wired" in listed.stdout
    undone = coffer("setup", "--undo")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if "coffer-memory" in k} == {}
    # The agents' own places are back as they were (coffer's ledger of the undo stays).
    mine = ("home", "xdg_config_home", "xdg_data_home")
    assert {k: v for k, v in after.items() if k.startswith(mine)} == {
        k: v for k, v in before.items() if k.startswith(mine)
    }
