"""Many agents read AGENTS.md: through the real CLI, they share one block, `coffer adapter
list` shows each of them reading it, an agent that is not installed gets nothing, and
`coffer unproject` takes it all back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import coffer, make_repo, project_shared_block

READERS = {"codex", "cline", "kimi", "openclaw", "pi", "qwen", "vibe", "hermes"}


def test_agents_sharing_agents_md_get_one_block(tmp_path: Path, fake_home: Path) -> None:
    repo = project_shared_block(
        tmp_path,
        fake_home,
        (".codex", ".cline", ".kimi", ".openclaw", ".pi/agent", ".qwen", ".vibe", ".hermes"),
    )
    assert (
        len((repo / "AGENTS.md").read_bytes()) <= 20_000
    )  # the smallest reader's cap (OpenClaw, Hermes)

    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    reading = {
        a["name"]
        for a in listed["adapters"]
        if a["enabled"]
        and any(t["path"] == str(repo / "AGENTS.md") and t["state"] == "ok" for t in a["targets"])
    }
    assert reading == READERS
    for absent in ("kilo", "aider", "cursor", "gemini"):  # counted, listed with --all
        assert absent in listed["hidden"]
    every = json.loads(coffer("adapter", "list", "--json", "--all", cwd=repo).stdout)
    by_name = {a["name"]: a for a in every["adapters"]}
    for absent in ("kilo", "aider", "cursor", "gemini"):
        assert by_name[absent]["present"] is False and by_name[absent]["enabled"] is False

    # Globals land where each agent reads them; absent agents get no directory at all.
    assert (fake_home / ".qwen" / "QWEN.md").is_file()
    assert (fake_home / ".openclaw" / "workspace" / "AGENTS.md").is_file()
    assert (fake_home / ".vibe" / "AGENTS.md").is_file()
    assert (fake_home / ".agents" / "AGENTS.md").is_file()
    assert (fake_home / ".pi" / "agent" / "AGENTS.md").is_file()
    assert not (fake_home / ".kimi" / "AGENTS.md").exists()  # Kimi reads no global file
    assert not (fake_home / ".hermes" / "SOUL.md").exists()
    assert not (fake_home / ".config" / "kilo").exists()
    assert not (fake_home / ".aider.conf.yml").exists()

    assert coffer("unproject", "--all", cwd=repo).returncode == 0
    assert not (repo / "AGENTS.md").exists()
    assert not (fake_home / ".qwen" / "QWEN.md").exists()
    assert not (fake_home / ".agents").exists()


def test_adapter_list_text_names_every_reader(tmp_path: Path, fake_home: Path) -> None:
    for d in (".codex", ".qwen", ".vibe"):
        (fake_home / d).mkdir()
    repo = make_repo(tmp_path / "p")
    assert coffer("remember", "Fact.", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    out = coffer("adapter", "list", cwd=repo).stdout
    for name in ("codex", "qwen", "vibe"):
        lines = out.split(f"\n{name} (present, enabled;", 1)[1].splitlines()
        section = lines[1 : next(i for i, x in enumerate(lines[1:], 1) if not x.startswith(" "))]
        row = next(x.split() for x in section if x.split()[0] == "project")
        assert row == ["project", "render", "ok", str(repo / "AGENTS.md")], (name, section)
