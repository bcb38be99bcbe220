from __future__ import annotations

import json

from coffer.adapter import Context
from coffer.testing import AdapterContract
from coffer_adapters import gemini


class TestGemini(AdapterContract):
    adapter = gemini

    def prepare(self, ctx: Context) -> None:
        (ctx.home / ".gemini").mkdir()

    def test_default_files(self, ctx):
        paths = {t.tier: t.path for t in gemini.targets(ctx)}
        assert paths == {
            "project": ctx.project / "GEMINI.md",
            "global": ctx.home / ".gemini" / "GEMINI.md",
        }

    def test_agents_md_in_context_file_name_is_shared(self, ctx):
        (ctx.home / ".gemini" / "settings.json").write_text(
            json.dumps({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}})
        )
        paths = {t.tier: t.path for t in gemini.targets(ctx)}
        assert paths["project"] == ctx.project / "AGENTS.md"

    def test_gemini_cli_home(self, ctx, tmp_path):
        env = {**ctx.environ, "GEMINI_CLI_HOME": str(tmp_path / "gh")}
        c = Context(ctx.home, env, ctx.store, ctx.project)
        assert gemini.gemini_dir(c) == tmp_path / "gh" / ".gemini"
