from __future__ import annotations

from coffer.adapter import Context
from coffer.testing import AdapterContract
from coffer_adapters import codex
from coffer_adapters.codex import switch

CONFIG = b"""# my codex config
model = "o4"  # best

[features]
memories = true   # I like it
memories_extra = true

[memories]
use_memories = true
generate_memories = true
"""


class TestCodex(AdapterContract):
    adapter = codex

    def prepare(self, ctx: Context) -> None:
        (ctx.home / ".codex").mkdir()

    def test_project_block_in_agents_md_with_budget(self, ctx):
        t = next(t for t in codex.targets(ctx) if t.tier == "project")
        assert t.path == ctx.project / "AGENTS.md"
        assert t.max_bytes == 32_768

    def test_override_wins(self, ctx):
        (ctx.project / "AGENTS.override.md").write_text("override\n")
        (ctx.home / ".codex" / "AGENTS.override.md").write_text("g\n")
        paths = {t.tier: t.path for t in codex.targets(ctx)}
        assert paths["project"].name == "AGENTS.override.md"
        assert paths["global"] == ctx.home / ".codex" / "AGENTS.override.md"

    def test_project_doc_max_bytes_is_read(self, ctx):
        (ctx.home / ".codex" / "config.toml").write_text("project_doc_max_bytes = 4096\n")
        t = next(t for t in codex.targets(ctx) if t.tier == "project")
        assert t.max_bytes == 4096

    def test_enabled_detection(self):
        assert switch.enabled(CONFIG)
        assert not switch.enabled(None)
        assert not switch.enabled(b"[features]\nmemories = false\n")
        assert not switch.enabled(b"[features]\nmemories_extra = true\n")
        assert not switch.enabled(
            b"[features]\nmemories = true\n[memories]\nuse_memories = false\n"
            b"generate_memories = false\n"
        )

    def test_disable_changes_only_the_value(self):
        new, previous = switch.disable(CONFIG)
        assert new == CONFIG.replace(
            b"memories = true   # I like it", b"memories = false   # I like it"
        )
        assert previous["features.memories"] is True
        assert switch.restore(new, previous) == CONFIG

    def test_absent_key_ends_absent(self):
        original = b'model = "x"\n\n[features]\nother = 1\n'
        new, previous = switch.disable(original)
        assert b"memories = false" in new
        assert switch.restore(new, previous) == original

    def test_no_features_table(self):
        original = b'model = "x"\n'
        new, previous = switch.disable(original)
        assert not switch.enabled(new)
        assert switch.restore(new, previous) == original  # not even the blank line tomlkit added
        edited = b"# edited by hand later\n" + new  # the file changed, so no pre-image undo
        assert switch.restore(edited, previous) == b"# edited by hand later\n" + original

    def test_crlf_file_gets_crlf_lines(self):
        original = b'model = "x"\r\n'
        new, previous = switch.disable(original)
        assert b"[features]" in new
        assert b"\n" not in new.replace(b"\r\n", b"")
        assert switch.restore(b"# mine\r\n" + new, previous) == b"# mine\r\n" + original

    def test_dotted_key(self):
        original = b"features.memories = true\nmodel = 'x'\n"
        new, previous = switch.disable(original)
        assert new == b"features.memories = false\nmodel = 'x'\n"
        assert switch.restore(new, previous) == original

    def test_restore_refuses_a_value_someone_changed(self):
        import pytest

        from coffer.base.errors import CofferError

        _, previous = switch.disable(b"[features]\nmemories = true\n")
        with pytest.raises(CofferError, match="someone changed it"):
            switch.restore(b"[features]\nmemories = 'maybe'\n", previous)

    def test_imports_summary_index_and_notes(self, ctx):
        mem = ctx.home / ".codex" / "memories"
        (mem / "extensions" / "ad_hoc" / "notes").mkdir(parents=True)
        (mem / "memory_summary.md").write_text("Use pnpm, not npm.\n")
        (mem / "MEMORY.md").write_text("")
        (mem / "extensions" / "ad_hoc" / "notes" / "2026-db.md").write_text("DB is pg\n")
        items = codex.native_memory(ctx).imports()
        assert [i.name for i in items] == ["codex-memory-summary", "codex-note-2026-db"]
        assert items[0].body == "Use pnpm, not npm."
