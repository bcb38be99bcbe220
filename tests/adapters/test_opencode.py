from __future__ import annotations

import os

from coffer.adapter import Context
from coffer.projection.engine import Engine
from coffer.testing import AdapterContract
from coffer_adapters import opencode
from tests.helpers import make_repo, store


class TestOpenCode(AdapterContract):
    adapter = opencode

    def prepare(self, ctx: Context) -> None:
        (ctx.home / ".config" / "opencode").mkdir(parents=True)

    def test_global_falls_back_to_claude_md(self, ctx):
        paths = {t.tier: t.path for t in opencode.targets(ctx)}
        assert paths["global"] == ctx.home / ".claude" / "CLAUDE.md"
        assert paths["project"] == ctx.project / "AGENTS.md"

    def test_existing_own_agents_md_is_used(self, ctx):
        (ctx.home / ".config" / "opencode" / "AGENTS.md").write_text("mine\n")
        paths = {t.tier: t.path for t in opencode.targets(ctx)}
        assert paths["global"] == ctx.home / ".config" / "opencode" / "AGENTS.md"

    def test_claude_md_only_project_gets_a_note(self, ctx):
        (ctx.project / "CLAUDE.md").write_text("rules\n")
        t = next(t for t in opencode.targets(ctx) if t.tier == "project")
        assert "instead of" in t.note


def test_agents_sharing_a_file_get_one_block(tmp_path, fake_home):
    (fake_home / ".codex").mkdir()
    (fake_home / ".claude").mkdir()
    (fake_home / ".config" / "opencode").mkdir(parents=True)
    os.environ["XDG_CONFIG_HOME"] = str(fake_home / ".config")
    repo = make_repo(tmp_path / "repo")
    s = store()
    s.remember(s.project_tier(repo, create=True), "Shared fact.", name="shared")
    s.remember(s.global_tier(create=True), "Global fact.", name="global-fact")  # a block to show
    r = Engine(s, dict(os.environ)).project(repo)
    assert r.ok, r.problems
    text = (repo / "AGENTS.md").read_text()
    assert text.count("coffer:memory:start") == 1
    record = Engine(s, dict(os.environ)).journal.get(repo / "AGENTS.md")
    assert record["adapters"] == ["codex", "opencode"]
    claude_md = (fake_home / ".claude" / "CLAUDE.md").read_text()
    assert claude_md.count("coffer:memory:start") == 1
    # Undoing one agent keeps the block for the other.
    r = Engine(s, dict(os.environ)).unproject(repo, agents=["codex"])
    assert r.ok
    assert "coffer:memory:start" in (repo / "AGENTS.md").read_text()
    r = Engine(s, dict(os.environ)).unproject(None, all_=True)
    assert r.ok and not (repo / "AGENTS.md").exists()
