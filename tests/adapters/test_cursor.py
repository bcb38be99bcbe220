from __future__ import annotations

from coffer.adapter import Context, Mode
from coffer.testing import AdapterContract
from coffer_adapters import cursor


class TestCursor(AdapterContract):
    adapter = cursor

    def prepare(self, ctx: Context) -> None:
        (ctx.home / ".cursor").mkdir()

    def test_project_block_shared_in_agents_md_and_no_global_file(self, ctx):
        by_tier = {t.tier: t for t in cursor.targets(ctx)}
        assert by_tier["project"].path == ctx.project / "AGENTS.md"
        assert by_tier["global"].mode is Mode.NONE
